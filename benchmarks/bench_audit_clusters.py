"""`holdout audit --clusters` and `--samples` on the data mirror: the worked examples of docs/audit.md.

SWE-bench Verified (134 submissions x 500 instances, clustered by repository: the prefix of each
instance id) and LiveCodeBench (45 x 400 pass rates over 10 samples, clustered by contest date),
each audited with and without clusters (accuracy and pairs lenses). With ``--docs`` the numbers go
to docs/measurements/audit_clusters.json, which docs/audit.md and docs/statistics.md show.

    PYTHONPATH=src python benchmarks/bench_audit_clusters.py --docs
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_eval_stats import DATA, LCB, REPO, SWE  # noqa: E402
from bench_workflow import cpu_name  # noqa: E402

from holdout.audit.cli import main as audit  # noqa: E402

LENSES = ["--lenses", "accuracy,pairs"]


def _run(argv: list[str], out: Path) -> tuple[dict, pd.DataFrame, pd.DataFrame, float]:
    start = time.perf_counter()
    assert audit(["audit", *argv, *LENSES, "--out", str(out)]) == 0
    seconds = time.perf_counter() - start
    summary = json.loads((out / "summary.json").read_text())
    return summary, pd.read_csv(out / "accuracy.csv"), pd.read_csv(out / "ranks.csv"), seconds


def _numbers(argv: list[str], clusters: Path, tmp: Path, shown: str) -> dict[str, object]:
    plain, _, ranks_plain, t_plain = _run(argv, tmp / "plain")
    s, acc, ranks, t = _run([*argv, "--clusters", str(clusters)], tmp / "clustered")
    ratio = (acc["se_clustered"] / acc["se"]).replace([np.inf], np.nan).dropna()
    pairs = pd.read_csv(tmp / "clustered" / "pairs.csv")
    return {
        "command": f"holdout audit {shown} --clusters CLUSTERS.csv {' '.join(LENSES)} --out DIR",
        "n_clusters": s["clusters"]["n_clusters"],
        "paired_test": s["clusters"]["paired_test"],
        "se_ratio_median": float(ratio.median()),
        "se_ratio_min": float(ratio.min()),
        "se_ratio_max": float(ratio.max()),
        "tied_with_best_items": len(plain["pairs"]["tied_with_best"]),
        "tied_with_best_clusters": len(s["clusters"]["tied_with_best"]),
        "rank_width_items_median": float((ranks_plain["rank_high"] - ranks_plain["rank_low"]).median()),
        "rank_width_clusters_median": float((ranks["rank_high"] - ranks["rank_low"]).median()),
        "pairs_significant_exact": int((pairs["p_value"] <= 0.05).sum()),
        "pairs_significant_clustered": int((pairs["p_clustered"] <= 0.05).sum()),
        "num_pairs": len(pairs),
        "samples": s.get("samples"),
        "seconds_plain": round(t_plain, 1),
        "seconds_clustered": round(t, 1),
    }


def swebench(tmp: Path) -> dict[str, object]:
    ids = pd.read_csv(SWE, nrows=0).columns[1:]
    clusters = tmp / "swe_clusters.csv"
    pd.DataFrame({"item": ids, "cluster": [i.rsplit("-", 1)[0] for i in ids]}).to_csv(clusters, index=False)
    shown = f"matrix {SWE.relative_to(DATA)}"
    return {"models": 134, "items": len(ids), **_numbers(["matrix", str(SWE)], clusters, tmp / "swe", shown)}


def livecodebench(tmp: Path) -> dict[str, object]:
    from holdout.leaderboards.sources import livecodebench as read

    lcb = read(LCB)
    c = lcb.correctness
    ids = [f"p{j}" for j in range(c.values.shape[1])]
    matrix, clusters = tmp / "lcb.csv", tmp / "lcb_clusters.csv"
    pd.DataFrame(c.values, index=list(c.model_names), columns=ids).rename_axis("model").to_csv(matrix)
    pd.DataFrame({"item": ids, "cluster": lcb.item_dates.astype(str)}).to_csv(clusters, index=False)
    argv = ["matrix", str(matrix), "--samples", "10"]
    shown = "matrix LCB.csv --samples 10"
    return {"models": len(c.model_names), "items": len(ids), **_numbers(argv, clusters, tmp / "lcb", shown)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", action="store_true", help="write docs/measurements/audit_clusters.json")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        record = {
            "what": "holdout audit with --clusters (accuracy and pairs lenses, 1000 rank resamples) on SWE-bench "
            "Verified clustered by repository and LiveCodeBench (pass rates over 10 samples, --samples 10) "
            "clustered by contest date, against the same audit without clusters; from the data mirror",
            "command": "PYTHONPATH=src python benchmarks/bench_audit_clusters.py --docs",
            "date": datetime.date.today().isoformat(),
            "machine": {"cpu": cpu_name(), "cores": os.cpu_count()},
            "load": f"load average {load:.1f} at start",
            "swebench": swebench(Path(tmp)),
            "livecodebench": livecodebench(Path(tmp)),
        }
    json.dump(record, sys.stdout, indent=2)
    print()
    if args.docs:
        out = REPO / "docs" / "measurements" / "audit_clusters.json"
        out.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
