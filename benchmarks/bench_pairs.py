"""Time of the paired lens at K = 2,000 models x n = 20,000 items (2 million pairs).

Usage: PYTHONPATH=src python benchmarks/bench_pairs.py [--models 2000] [--n 20000] [--resamples 1000]

A synthetic 0/1 leaderboard (errors correlated through a shared per-item difficulty, accuracies
spread from about 20% to 90%): times [`pairs_lens`][holdout.audit.pairs_lens.pairs_lens] (every pair's
exact McNemar test and Newcombe interval, Holm, tied-with-best, the simultaneous rank sets with
``--resamples`` bootstrap resamples, tie groups) and writing ``pairs.csv`` and ``ranks.csv`` with the
rank figure, in this process. Prints the memory bound said before the work
([`pairs_memory_bytes`][holdout.stats.paired.pairs_memory_bytes]), the peak resident memory, wall and CPU
seconds of each step, the machine's CPU and its load. Target: <= 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from holdout.audit.pairs_lens import pairs_lens, write_pairs  # noqa: E402
from holdout.stats.paired import pairs_memory_bytes  # noqa: E402


def synthetic_leaderboard(k: int, n: int, seed: int = 0) -> np.ndarray:
    """K x n 0/1 correctness: P(model right on item) = (1 - difficulty) ** (1 / skill)."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(1.2, 1.2, size=n)
    skill = rng.uniform(0.3, 3.0, size=k)
    return (rng.random((k, n)) < (1 - difficulty[None, :]) ** (1 / skill[:, None])).astype(np.uint8)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=2000)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--resamples", type=int, default=1000)
    args = ap.parse_args()
    k, n = args.models, args.n
    print(f"{_cpu_name()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} before the run")
    print(f"memory bound said before the work: {pairs_memory_bytes(k, n) / 2**30:.2f} GiB")
    x = synthetic_leaderboard(k, n)
    names = [f"model_{i:04d}" for i in range(k)]
    t0, c0 = time.perf_counter(), _cpu()
    lens = pairs_lens(x, names, resamples=args.resamples)
    t1, c1 = time.perf_counter(), _cpu()
    with tempfile.TemporaryDirectory() as tmp:
        write_pairs(lens, Path(tmp), "synthetic")
    t2, c2 = time.perf_counter(), _cpu()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"K = {k:,} x n = {n:,}: {len(lens.pairs):,} pairs, {lens.ranks['tied_with_best'].sum()} tied with the best")
    print(f"pairs_lens: {t1 - t0:.1f} s wall, {c1 - c0:.1f} CPU-s")
    print(f"write pairs.csv, ranks.csv, rank figure: {t2 - t1:.1f} s wall, {c2 - c1:.1f} CPU-s")
    print(f"total: {t2 - t0:.1f} s wall, {c2 - c0:.1f} CPU-s; peak resident memory {peak:.2f} GiB")
    print(f"load average {os.getloadavg()[0]:.2f} after the run")


if __name__ == "__main__":
    main()
