"""Timings of the leaderboard inputs of ``holdout audit`` (docs/studies/leaderboards.md, "Speed").

Usage: PYTHONPATH=src python benchmarks/bench_leaderboards.py [--models 2000] [--items 20000]
       [--json out.json] [--docs [--load-note TEXT]]

``--docs`` also writes ``docs/measurements/leaderboards.json`` (what docs/studies/leaderboards.md
shows; then run ``python benchmarks/update_docs_numbers.py``).

1. A synthetic K x n correctness matrix (errors correlated through a per-item difficulty), 0/1 and
   pass rates over 10 samples, audited by the whole command in a fresh process
   (``holdout audit FILE --correctness --search-size K``: every correctness lens, every figure,
   report.html). Target: under 30 s.
2. timm's 1,556-model ImageNet -> ImageNetV2 table from the mirror (HOLDOUT_SHARED_DATA, default
   ../shared/data): ``accuracy_table_audit`` in-process, and
   ``holdout audit --accuracies`` end to end. Target: under 5 s.

Wall seconds and the CPU seconds (user + system) of each command: on a shared machine the wall
time is inflated by other jobs, the CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from bench_workflow import cpu_name  # noqa: E402

from holdout.leaderboards import accuracy_table_audit  # noqa: E402


def synthetic(k: int, n: int, samples: int | None, seed: int = 0) -> np.ndarray:
    """P(model i solves item t) = 1 - difficulty_t ** skill_i; 0/1 draws, or pass rates over ``samples``."""
    rng = np.random.default_rng(seed)
    p = 1.0 - rng.beta(0.5, 1.5, size=n)[None, :] ** rng.uniform(0.6, 1.6, size=k)[:, None]
    if samples is None:
        return (rng.random((k, n)) < p).astype(np.int8)
    return (rng.binomial(samples, p) / samples).astype(np.float32)


def timed_command(cmd: list[str]) -> dict[str, float]:
    """Wall and CPU seconds of a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = os.environ | {"PYTHONPATH": str(REPO / "src"), "MPLBACKEND": "Agg"}
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def timm_table(mirror: Path) -> pd.DataFrame:
    raw = mirror / "pytorch-image-models/results"
    o, n = (pd.read_csv(raw / f"results-{s}.csv") for s in ("imagenet", "imagenetv2-matched-frequency"))
    both = o.merge(n, on=["model", "img_size"], suffixes=("_o", "_n"))
    return pd.DataFrame(
        {"model": both["model"] + "@" + both["img_size"].astype(str), "val": both["top1_o"], "v2": both["top1_n"]}
    )


def docs_measurement(res: dict[str, object], load_end: float, note: str) -> dict[str, object]:
    """The measurement the study page shows (docs/measurements/leaderboards.json, update_docs_numbers.py)."""
    cpu, cores = str(res["machine"]).rsplit(", ", 1)
    load = f"load average {res['load_average_1min']:.1f} at start, {load_end:.1f} at the end"
    keys = ("correctness_binary", "correctness_pass_rates", "accuracy_table_in_process", "accuracy_table_command")
    return {
        "what": f"holdout audit on leaderboard inputs: a synthetic K = {res['models']:,} x n = {res['items']:,} "
        "correctness matrix (0/1, and pass rates over 10 samples), whole command in a fresh process (every lens "
        "and figure, report.html); timm's ImageNet -> ImageNetV2 accuracy table in process and as a command",
        "command": "PYTHONPATH=src python benchmarks/bench_leaderboards.py --docs",
        "date": res["date"],
        "machine": {"cpu": cpu, "cores": int(cores.split()[0])},
        "load": load + (f"; {note}" if note else ""),
        "models": res["models"],
        "items": res["items"],
        **{k: res[k] for k in keys},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=2000)
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--json", help="write the timings here")
    ap.add_argument("--docs", action="store_true", help="also write docs/measurements/leaderboards.json")
    ap.add_argument("--load-note", default="", help="with --docs: a word on the load, e.g. 'other jobs shared it'")
    args = ap.parse_args()
    mirror = Path(os.environ.get("HOLDOUT_SHARED_DATA", REPO.parent / "shared" / "data"))
    out: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores",
        "load_average_1min": os.getloadavg()[0],
        "models": args.models,
        "items": args.items,
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, samples in (("correctness_binary", None), ("correctness_pass_rates", 10)):
            path = Path(tmp) / f"{name}.npy"
            np.save(path, synthetic(args.models, args.items, samples))
            cmd = [sys.executable, "-m", "holdout.audit", str(path), "--correctness", "--out", f"{tmp}/{name}"]
            cmd += ["--search-size", str(args.models)] + (["--samples", str(samples)] if samples else [])
            out[name] = timed_command(cmd)
            print(name, out[name], flush=True)
        table = timm_table(mirror)
        table.to_csv(Path(tmp) / "timm.csv", index=False)
        accuracy_table_audit(table["model"][:3], [0.5, 0.6, 0.7], [0.4, 0.5, 0.6], 10, 10)  # scipy imported
        start = time.perf_counter()
        accuracy_table_audit(table["model"], table["val"] / 100, table["v2"] / 100, 50_000, 10_000)
        out["accuracy_table_in_process"] = {"models": len(table), "wall_s": round(time.perf_counter() - start, 3)}
        cmd = [sys.executable, "-m", "holdout.audit", "--accuracies", f"{tmp}/timm.csv", "--columns", "val"]
        cmd += ["v2", "--sizes", "50000", "10000", "--out", f"{tmp}/table"]
        out["accuracy_table_command"] = timed_command(cmd)
        print("accuracy table", out["accuracy_table_in_process"], out["accuracy_table_command"], flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    if args.docs:
        dest = REPO / "docs" / "measurements" / "leaderboards.json"
        dest.write_text(json.dumps(docs_measurement(out, os.getloadavg()[0], args.load_note), indent=2) + "\n")
        print(f"wrote {dest.relative_to(REPO)}: now run python benchmarks/update_docs_numbers.py", flush=True)


if __name__ == "__main__":
    main()
