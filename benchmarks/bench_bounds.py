"""Timings of holdout.bounds at the ImageNet setting and of the whole bounds study.

Usage: PYTHONPATH=src python benchmarks/bench_bounds.py [--no-study] [--cores 2]

Prints a small table (median of repeats, wall seconds). The study is run with the
repository's Snakefile in a temporary working directory (--cores 2) with the default config
except ``bounds.setting_from: config``: the paper's ImageNet setting (Mania et al. Sec. 5.1,
config/config.yaml), so that it needs no input data and runs offline. (The default,
``measured``, reads the setting from the similarity stage, which needs the ImageNet testbed.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from holdout import bounds as B  # noqa: E402
from holdout.runlog import median_time  # noqa: E402

IMAGENET = dict(n=50_000, error=0.244, eps=0.01, delta=0.05)


STUDY_TARGETS = ("results/bounds/figure1b.pdf", "results/bounds/figure2.pdf", "results/bounds/table1.md")


def study_command(workdir: str, cores: int) -> list[str]:
    """The snakemake command line of the whole-study timing: the bounds stage's outputs, with the
    paper's setting from config (offline: no similarity stage, no data)."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        workdir,
        "--cores",
        str(cores),
        "--nolock",
        *STUDY_TARGETS,
        "--config",
        "bounds={setting_from: config}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-study", action="store_true", help="skip the whole-study run")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()

    rows = []
    cases = [
        ("union_bound_k (ImageNet)", lambda: B.union_bound_k(**IMAGENET), 20, "< 10 ms"),
        (
            "pair_tail_probability (n=50,000)",
            lambda: B.pair_tail_probability(
                n=50_000, error_1=0.244, error_2=0.244, similarity=0.85, alpha_1=0.01, alpha_2=0.005
            ),
            10,
            "ms",
        ),
        (
            "similarity_bound_k literal (n=50,000)",
            lambda: B.similarity_bound_k(similarity=0.85, **IMAGENET),
            3,
            "< 5 s",
        ),
        (
            "similarity_bound_k partition (n=50,000)",
            lambda: B.similarity_bound_k(similarity=0.85, form="partition", **IMAGENET),
            3,
            "< 5 s",
        ),
        ("naive_bayes_bound_k (ImageNet)", lambda: B.naive_bayes_bound_k(similarity=0.85, **IMAGENET), 5, "< 0.1 s"),
    ]
    for name, fn, repeats, target in cases:
        seconds, result = median_time(fn, repeats)
        rows.append((name, seconds, target, result))

    if not args.no_study:
        with tempfile.TemporaryDirectory() as work:
            env = dict(os.environ, PYTHONPATH=str(REPO / "src"), MPLBACKEND="Agg")
            # Only the bounds stage: its final outputs.
            cmd = study_command(work, args.cores)
            start = time.perf_counter()
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if proc.returncode != 0:
                sys.exit(f"bounds study failed:\n{proc.stderr[-3000:]}")
            rows.append((f"whole bounds study (snakemake --cores {args.cores})", seconds, "< 3 min", "9 outputs"))

    print(f"{'what':45s} {'ms':>10s}  {'target':>8s}  result")
    for name, seconds, target, result in rows:
        print(f"{name:45s} {1000 * seconds:10.2f}  {target:>8s}  {result}")


if __name__ == "__main__":
    main()
