"""Timings of ``holdout site`` (docs/studies/site.md, "Speed").

Usage: PYTHONPATH=src python benchmarks/bench_site.py [--benchmarks 20] [--models 200] [--items 20000]
       [--jobs 2] [--shipped] [--json out.json]

1. ``--benchmarks`` synthetic benchmarks of ``--models`` x ``--items`` 0/1 results (errors correlated
   through a per-item difficulty, as bench_leaderboards.py draws them) written in the documented
   folder layout (``<benchmark>/correctness.npy`` + ``options.yaml`` naming the models), built by
   ``holdout site FOLDER --out ... --jobs J`` in a fresh process. Target: 20 x 200 x 20,000 in
   5 minutes on 2 cores.
2. ``--shipped``: ``holdout site config/site.yaml`` over the mirror (HOLDOUT_SHARED_DATA, default
   ../shared/data).

Wall and CPU seconds (user + system, the children's), the load average before and after, the date and
the machine: on a shared machine the wall time is inflated by other jobs, the CPU time much less.
Writes benchmarks/out/site.json (or --json).
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
from bench_workflow import cpu_name  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def synthetic(k: int, n: int, seed: int) -> np.ndarray:
    """P(model i solves item t) = 1 - difficulty_t ** skill_i, drawn 0/1."""
    rng = np.random.default_rng(seed)
    p = 1.0 - rng.beta(0.5, 1.5, size=n)[None, :] ** rng.uniform(0.6, 1.6, size=k)[:, None]
    return (rng.random((k, n)) < p).astype(np.int8)


def write_folder(root: Path, benchmarks: int, k: int, n: int) -> Path:
    """``benchmarks`` folders, each a correctness.npy and the model names in options.yaml."""
    for b in range(benchmarks):
        folder = root / f"bench_{b:02d}"
        folder.mkdir(parents=True)
        np.save(folder / "correctness.npy", synthetic(k, n, seed=b))
        names = ",".join(f"model_{i:03d}" for i in range(k))
        (folder / "options.yaml").write_text(f"model_names: '{names}'\neps: 0.05\n")
    return root


def timed_command(cmd: list[str]) -> dict[str, float]:
    """Wall and CPU seconds of a fresh process, and the load average around it."""
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = os.environ | {"PYTHONPATH": str(REPO / "src"), "MPLBACKEND": "Agg"}
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def machine() -> dict[str, object]:
    return {"cpu": cpu_name(), "cores": os.cpu_count()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--benchmarks", type=int, default=20)
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--items", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shipped", action="store_true", help="also time config/site.yaml over the mirror")
    ap.add_argument("--json", type=Path, default=REPO / "benchmarks" / "out" / "site.json")
    ap.add_argument("--docs", action="store_true", help="write docs/measurements/site.json (what the docs show)")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    out: dict[str, object] = {
        "what": "holdout site in a fresh process: synthetic benchmarks in the folder layout; config/site.yaml",
        "command": "PYTHONPATH=src python " + " ".join(["benchmarks/bench_site.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": machine(),
    }
    with tempfile.TemporaryDirectory() as tmp:
        spec = write_folder(Path(tmp) / "spec", args.benchmarks, args.models, args.items)
        cmd = [
            sys.executable,
            "-m",
            "holdout.commands.site",
            str(spec),
            "--out",
            f"{tmp}/site",
            "--jobs",
            str(args.jobs),
        ]
        size = {"benchmarks": args.benchmarks, "models": args.models, "items": args.items, "jobs": args.jobs}
        out["synthetic"] = size | timed_command(cmd)
        print("synthetic", out["synthetic"], flush=True)
        if args.shipped:
            mirror = os.environ.get("HOLDOUT_SHARED_DATA", str(REPO.parent / "shared" / "data"))
            cmd = [sys.executable, "-m", "holdout.commands.site", str(REPO / "config" / "site.yaml")]
            out["shipped"] = {"jobs": 1} | timed_command([*cmd, "--root", mirror, "--out", f"{tmp}/shipped"])
            print("shipped", out["shipped"], flush=True)
    out["load"] = (
        f"load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at the end; other work shared the machine"
    )
    if args.docs:
        args.json = REPO / "docs" / "measurements" / "site.json"
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
