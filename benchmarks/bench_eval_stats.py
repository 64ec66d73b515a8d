"""Clustered standard errors, `holdout power` and `holdout compare` on the data mirror's benchmarks.

SWE-bench Verified (134 x 500, clustered by repository: the prefix of each instance id) and
LiveCodeBench (45 x 400 pass rates over 10 samples, clustered by contest date: problems of one
contest), the planning mode of `holdout power`, and `holdout compare` on real lm-eval and HELM runs.
With ``--docs`` the numbers go to docs/measurements/eval_stats.json, which docs/statistics.md shows.

    PYTHONPATH=src python benchmarks/bench_eval_stats.py --docs
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from bench_workflow import cpu_name  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("HOLDOUT_SHARED_DATA", REPO.parent / "shared" / "data"))
SWE = DATA / "anchors/swebench/swebench_verified_resolved_matrix.csv"
LCB = DATA / "livecodebench/src/mocks/performances_generation.json"
LMEVAL = "evallogs/lmeval_asdiv_llama3/results/{}/meta-llama__Meta-Llama-3-8B-Instruct/samples_asdiv_{}.jsonl"
HELM = "evallogs/helm_safety_bbq/runs/v4/bbq:subject=all,method=multiple_choice_joint,model={}"


def _ratios(values: np.ndarray, clusters: np.ndarray) -> dict[str, float]:
    """Clustered (finite form) over plain standard error: of each model's accuracy, and of the
    paired difference of each adjacent pair in the accuracy order."""
    from holdout.stats import clustered_se

    acc = [clustered_se(v, clusters) for v in values if 0 < v.mean() < 1]
    r_acc = np.array([r.se_clustered_finite / r.se for r in acc])
    order = np.argsort(-values.mean(axis=1), kind="stable")
    diffs = [clustered_se(values[a] - values[b], clusters) for a, b in zip(order[:-1], order[1:])]
    r_diff = np.array([r.se_clustered_finite / r.se for r in diffs if r.se > 0])
    return {
        "clusters": int(len(set(clusters))),
        "ratio_accuracy_median": float(np.median(r_acc)),
        "ratio_accuracy_min": float(r_acc.min()),
        "ratio_accuracy_max": float(r_acc.max()),
        "ratio_diff_median": float(np.median(r_diff)),
        "design_effect_accuracy_median": float(np.median([r.design_effect for r in acc])),
    }


def _power(values: np.ndarray, names: list[str], clusters: np.ndarray) -> dict[str, object]:
    from holdout.commands.power import resolution, summary_line

    table = resolution(values, names, clusters=clusters)
    adj = table[table["comparison"] == "adjacent"]
    return {
        "models": int(values.shape[0]),
        "items": int(values.shape[1]),
        "summary": summary_line(table),
        "summary_clustered": summary_line(table, clustered=True),
        "adjacent_pairs": int(len(adj)),
        "resolved": int(adj["resolved"].sum()),
        "resolved_clustered": int(adj["resolved_clustered"].sum()),
    }


def swebench() -> dict[str, object]:
    m = pd.read_csv(SWE, index_col=0)
    values = m.to_numpy(dtype=float)
    repos = m.columns.str.replace(r"-[0-9]+$", "", regex=True).to_numpy(object)
    return {**_power(values, [str(x) for x in m.index], repos), **_ratios(values, repos)}


def livecodebench() -> dict[str, object]:
    from holdout.leaderboards.sources import livecodebench as read
    from holdout.stats import sample_variance_split_from_rates

    lcb = read(LCB)
    values, names = lcb.correctness.values, list(lcb.correctness.model_names)
    contests = lcb.item_dates.astype(str).astype(object)
    splits = [sample_variance_split_from_rates(v, 10) for v in values if 0 < v.mean() < 1]
    need = [s.m_negligible for s in splits if s.m_negligible is not None]
    return {
        **_power(values, names, contests),
        **_ratios(values, contests),
        "samples": 10,
        "share_within_median": float(np.median([s.share_within for s in splits])),
        "m_negligible_median": float(np.median(need)),
    }


def _first_lines(main, argv: list[str]) -> tuple[int, list[str]]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    return code, buf.getvalue().splitlines()


def commands() -> dict[str, object]:
    from holdout.commands import compare, power

    _, plan = _first_lines(power.main, ["--accuracy", "0.80", "0.78", "--discordance", "0.15"])
    runs = {
        "lmeval": [
            str(DATA / LMEVAL.format("asdiv_cot", "2024-08-21T03-40-10.802679")),
            str(DATA / LMEVAL.format("asdiv", "2024-08-21T03-44-09.494230")),
        ],
        "helm_worse": [
            str(DATA / HELM.format("meta_llama-3-8b-chat")),
            str(DATA / HELM.format("meta_llama-3-70b-chat")),
        ],
        "helm_inconclusive": [
            str(DATA / HELM.format("anthropic_claude-3-5-sonnet-20240620")),
            str(DATA / HELM.format("openai_gpt-4-turbo-2024-04-09")),
            "--prior-uses",
            "20",
        ],
    }
    out: dict[str, object] = {}
    codes: dict[str, int] = {}
    for name, argv in runs.items():
        codes[name], lines = _first_lines(compare.main, argv)
        out[name] = " ".join(lines)
    return {"planning": {"line": plan[0]}, "compare": {**out, "exit_codes": codes}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", action="store_true", help="write docs/measurements/eval_stats.json")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    record = {
        "what": "clustered / plain standard errors, holdout power's resolution (alpha 0.05, power 0.8) of SWE-bench "
        "Verified (clustered by repository) and LiveCodeBench (clustered by contest date), holdout power's "
        "planning mode and holdout compare on real lm-eval and HELM runs, all from the data mirror",
        "command": "PYTHONPATH=src python benchmarks/bench_eval_stats.py --docs",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count()},
        "load": f"load average {load:.1f} at start",
        "swebench": swebench(),
        "livecodebench": livecodebench(),
        **commands(),
    }
    json.dump(record, sys.stdout, indent=2)
    print()
    if args.docs:
        out = REPO / "docs" / "measurements" / "eval_stats.json"
        out.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
