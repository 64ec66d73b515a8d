"""Timings of holdout.similarity at the size of Mania et al.'s CIFAR-10 random search (Sec. 5.2).

Usage: PYTHONPATH=src python benchmarks/bench_similarity.py [--models 1235] [--n 10000] [--etas 100]

K = 1,235 models x n = 10,000 test points of correlated synthetic 0/1 losses (a shared
per-point difficulty, as in Mania et al. Fig. 4). Prints a table of median wall seconds:
the K x K similarity by float32 matmul and by packbits + popcount (checked identical),
the covering-number upper bounds for ``--etas`` values of eta, and the difficulty
distribution. Targets (issue 3): similarity < 1 s, 100 covering numbers < 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from holdout.runlog import median_time  # noqa: E402
from holdout.similarity.core import (  # noqa: E402
    agreement_counts,
    covering_numbers,
    difficulty_distribution,
    pairwise_similarity,
)


def synthetic_errors(k: int, n: int, seed: int = 0) -> np.ndarray:
    """K x n 0/1 losses: point difficulty d ~ Beta(0.3, 1.5), model skill s; P(wrong) = d^(1/s)-like."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(0.3, 1.5, size=n)
    skill = rng.uniform(0.5, 2.0, size=k)
    prob = difficulty[None, :] ** skill[:, None]
    return rng.random((k, n)) < prob


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=int, default=1235)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--etas", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    errors = synthetic_errors(args.models, args.n)
    rows = []
    t_mm, agree_mm = median_time(lambda: agreement_counts(errors, "matmul"), args.repeats)
    rows.append(("similarity, float32 matmul", t_mm, "< 1 s"))
    t_pb, agree_pb = median_time(lambda: agreement_counts(errors, "packbits"), args.repeats)
    rows.append(("similarity, packbits + bitwise_count", t_pb, "< 1 s"))
    if not np.array_equal(agree_mm, agree_pb):
        raise SystemExit("matmul and packbits counts differ")
    sim = pairwise_similarity(errors)
    err = errors.mean(axis=1)
    etas = np.linspace(0.5, 1.0, args.etas)
    t_cov, cov = median_time(lambda: covering_numbers(sim, err, etas), max(1, args.repeats // 2))
    rows.append((f"covering numbers, {args.etas} etas", t_cov, "< 10 s"))
    t_diff, _ = median_time(lambda: difficulty_distribution(errors), args.repeats)
    rows.append(("difficulty distribution", t_diff, "-"))

    print(
        f"K = {args.models:,} models, n = {args.n:,} points, {os.cpu_count()} CPUs; "
        f"mean similarity {sim[np.triu_indices(args.models, 1)].mean():.3f}, "
        f"N_eta at eta = 0.5 / 0.9 / 1.0: {cov[0]} / {cov[np.argmin(abs(etas - 0.9))]} / {cov[-1]}"
    )
    print(f"{'what':<40} {'median s':>10} {'target':>8}")
    for what, secs, target in rows:
        print(f"{what:<40} {secs:>10.3f} {target:>8}")


if __name__ == "__main__":
    main()
