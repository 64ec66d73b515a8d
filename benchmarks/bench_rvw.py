"""Timing of holdout.rvw: rvw_bound (scalar and vectorised) and description_length.

Run from the repository root:  PYTHONPATH=src python benchmarks/bench_rvw.py
Prints one line per case: median wall time per call over repeated runs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from holdout.rvw.core import EnglishRubric, description_length, rvw_bound

REPO = Path(__file__).resolve().parents[1]


def per_call(fn: Callable[[], object], calls: int, repeats: int = 7) -> float:
    """Median over ``repeats`` of the mean wall time of ``calls`` calls (seconds)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def main() -> None:
    table1 = [(0.0449, 426), (0.0449, 729), (0.0529, 362), (0.0529, 741)]
    bits = np.arange(0, 5001, dtype=float)
    cases = [
        ("rvw_bound, one scalar (Table 1 row)", lambda: rvw_bound(0.0449, 426, 50_000), 2000),
        (
            "rvw_bound, Tables 1+2 (8 scalar calls)",
            lambda: [
                rvw_bound(p, k, 50_000)
                for p, k in table1 + [(0.0449, 556), (0.0449, 1032), (0.0529, 454), (0.0529, 980)]
            ],
            200,
        ),
        ("rvw_bound, vectorised over 5001 bit counts", lambda: rvw_bound(0.05, bits, 50_000), 200),
        ("description_length, batch_norm.yaml", lambda: description_length(REPO / "config/rvw/batch_norm.yaml"), 100),
        (
            "description_length, resnet152_english_appendix_c1.yaml (Option 2)",
            lambda: description_length(REPO / "config/rvw/resnet152_english_appendix_c1.yaml", EnglishRubric("word")),
            100,
        ),
    ]
    print(f"{'case':<70} {'per call':>12}")
    for name, fn, calls in cases:
        t = per_call(fn, calls)
        print(f"{name:<70} {t * 1e6:>9.1f} us")


if __name__ == "__main__":
    main()
