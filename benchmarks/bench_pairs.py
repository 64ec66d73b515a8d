"""Time of the paired lens at K = 2,000 models x n = 20,000 items (2 million pairs).

Usage: PYTHONPATH=src python benchmarks/bench_pairs.py [--models 2000] [--n 20000] [--resamples 1000] [--docs]
       PYTHONPATH=src python benchmarks/bench_pairs.py --leaderboards

A synthetic 0/1 leaderboard (errors correlated through a shared per-item difficulty, accuracies
spread from about 20% to 90%): times [`pairs_lens`][holdout.audit.engines.pairs_lens.pairs_lens] (every pair's
exact McNemar test and Newcombe interval, Holm, tied-with-best, the simultaneous rank sets with
``--resamples`` bootstrap resamples, tie groups) and writing ``pairs.csv`` (every pair: ``--all-pairs``)
and ``ranks.csv`` with the rank figure, in this process. Prints the memory bound said before the work
([`pairs_memory_bytes`][holdout.stats.paired.pairs_memory_bytes]), the peak resident memory, wall and CPU
seconds of each step, the machine's CPU and its load. Target: <= 30 s on 2 cores. ``--docs`` writes
them to ``docs/measurements/pairs.json``.

``--leaderboards`` runs only the paired lens on LiveCodeBench (45 x 400 pass@1) and SWE-bench Verified
(134 x 500 resolved) from the data mirror (``HOLDOUT_SHARED_DATA``, default ``../shared/data``) and
writes their numbers (tie sets, rank intervals) to ``docs/measurements/pairs_leaderboards.json``, which
the pages show.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from bench_workflow import cpu_name  # noqa: E402

from holdout.audit.engines.pairs_lens import pairs_lens, write_pairs  # noqa: E402
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


def _leaderboard(values: np.ndarray, names: list[str], resamples: int) -> dict[str, object]:
    """The paired lens's headline numbers of one leaderboard (seed 0), and how many models' 95%
    intervals overlap the best's (the screen the paired test replaces)."""
    from holdout.leaderboards.correctness import accuracy_intervals, check_correctness

    lens = pairs_lens(values, names, resamples=resamples)
    r = lens.ranks
    acc = accuracy_intervals(check_correctness(values, names, "leaderboard")).sort_values("correct", ascending=False)
    top = "; ".join(
        f"{m} {a:.1f}% rank {lo}-{hi}"
        for m, a, lo, hi in r[["model", "accuracy", "rank_low", "rank_high"]].head(5).to_numpy()
    )
    groups = r.groupby("tie_group")["model"].count()
    return {
        "models": len(r),
        "items": lens.n,
        "test": lens.test,
        "best": str(r["model"].iloc[0]),
        "top_models": [str(m) for m in r.loc[r["top"], "model"]],
        "tied_with_best": int(r["tied_with_best"].sum()) - 1,
        "tie_set": int(r["tied_with_best"].sum()),
        "interval_overlap": int((acc["ci_high"] >= acc["ci_low"].iloc[0]).sum()) - 1,
        "tied_names": [str(m) for m in r.loc[r["tied_with_best"], "model"]][1:],
        "holm_vs_best_tied": int((r["p_holm_vs_best"] > lens.alpha).sum()) - 1,
        "top5": top,
        "top_group_size": int(groups.iloc[0]),
        "tie_groups": int(groups.size),
        "pairs": len(lens.pairs),
        "pairs_significant_holm": int((lens.pairs["p_holm"] <= lens.alpha).sum()),
        "rank_critical_value": round(lens.critical_value, 3),
    }


def _mirror_leaderboards(resamples: int) -> dict[str, dict[str, object]]:
    import pandas as pd

    from holdout.leaderboards.sources import livecodebench

    data = Path(os.environ.get("HOLDOUT_SHARED_DATA", REPO.parent / "shared" / "data"))
    lcb = livecodebench(data / "livecodebench/src/mocks/performances_generation.json").correctness
    swe = pd.read_csv(data / "anchors/swebench/swebench_verified_resolved_matrix.csv", index_col=0)
    return {
        "livecodebench": _leaderboard(lcb.values, list(lcb.model_names), resamples),
        "swebench_verified": _leaderboard(swe.to_numpy(dtype=float), [str(m) for m in swe.index], resamples),
    }


_SHARED = "; other work shared the machine, so the CPU seconds are the comparable number"


def _write_leaderboards(resamples: int) -> None:
    """The mirror's leaderboards through the paired lens into docs/measurements/pairs_leaderboards.json
    (their own record: the numbers do not depend on the machine's load, the timing does)."""
    load = os.getloadavg()[0]
    record = {
        "what": f"the paired lens (pairs_lens, {resamples} rank resamples, seed 0) on LiveCodeBench (45 x 400 "
        "pass@1) and SWE-bench Verified (134 x 500) from the data mirror",
        "command": "PYTHONPATH=src python benchmarks/bench_pairs.py --leaderboards",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count()},
        "load": f"load average {load:.1f} at start",
        **_mirror_leaderboards(resamples),
    }
    out = REPO / "docs" / "measurements" / "pairs_leaderboards.json"
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out.relative_to(REPO)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=2000)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--docs", action="store_true", help="write the timing to docs/measurements/pairs.json")
    ap.add_argument(
        "--leaderboards",
        action="store_true",
        help="only the mirror's leaderboards (no timing): write docs/measurements/pairs_leaderboards.json",
    )
    args = ap.parse_args()
    if args.leaderboards:
        _write_leaderboards(args.resamples)
        return
    k, n = args.models, args.n
    load_before = os.getloadavg()[0]
    print(f"{cpu_name()}, {os.cpu_count()} CPUs, load average {load_before:.2f} before the run")
    print(f"memory bound said before the work: {pairs_memory_bytes(k, n) / 2**30:.2f} GiB")
    x = synthetic_leaderboard(k, n)
    names = [f"model_{i:04d}" for i in range(k)]
    t0, c0 = time.perf_counter(), _cpu()
    lens = pairs_lens(x, names, resamples=args.resamples)
    t1, c1 = time.perf_counter(), _cpu()
    with tempfile.TemporaryDirectory() as tmp:
        write_pairs(lens, Path(tmp), "synthetic", all_pairs=True)  # every pair, as the docs say
    t2, c2 = time.perf_counter(), _cpu()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"K = {k:,} x n = {n:,}: {len(lens.pairs):,} pairs, {lens.ranks['tied_with_best'].sum()} tied with the best")
    print(f"pairs_lens: {t1 - t0:.1f} s wall, {c1 - c0:.1f} CPU-s")
    print(f"write pairs.csv, ranks.csv, rank figure: {t2 - t1:.1f} s wall, {c2 - c1:.1f} CPU-s")
    print(f"total: {t2 - t0:.1f} s wall, {c2 - c0:.1f} CPU-s; peak resident memory {peak:.2f} GiB")
    load_after = os.getloadavg()[0]
    print(f"load average {load_after:.2f} after the run")
    if not args.docs:
        return
    record = {
        "what": f"the paired lens (pairs_lens) on a synthetic 0/1 leaderboard of K = {k:,} x n = {n:,} "
        f"({len(lens.pairs):,} pairs, {args.resamples} rank resamples), then pairs.csv, ranks.csv and the rank "
        "figure",
        "command": "PYTHONPATH=src python benchmarks/bench_pairs.py --docs",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count()},
        "load": f"load average {load_before:.1f} at start, {load_after:.1f} at the end" + _SHARED * (load_before > 2.5),
        "models": k,
        "items": n,
        "memory_bound_gib": round(pairs_memory_bytes(k, n) / 2**30, 2),
        "peak_memory_gib": round(peak, 2),
        "pairs_lens": {"wall_s": round(t1 - t0, 1), "cpu_s": round(c1 - c0, 1)},
        "write": {"wall_s": round(t2 - t1, 1), "cpu_s": round(c2 - c1, 1)},
        "total": {"wall_s": round(t2 - t0, 1), "cpu_s": round(c2 - c0, 1)},
    }
    out = REPO / "docs" / "measurements" / "pairs.json"
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
