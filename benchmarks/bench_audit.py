"""End-to-end time of ``holdout audit`` at K = 100 models x n = 50,000 test points (issue 17 §1).

Usage: PYTHONPATH=src python benchmarks/bench_audit.py [--models 100] [--n 50000] [--repeats 3]

Writes synthetic predictions (ImageNet-sized: 1,000 classes, errors correlated through a shared
per-point difficulty, mean accuracy about 75%) as .npy and as our .npz, plus a newer test set of
n / 5 points, then times the whole command in a fresh process (interpreter start, imports,
reading, every lens, every figure, report.html) as ``python -m holdout.audit``. Prints median wall
seconds of each variant and the CPU seconds (user + system) the command used: on a shared
machine the wall time is inflated by the other jobs, the CPU time much less. Target: under 10 s
on the 2-core machine. ``--csv`` also times reading
the same predictions from CSV (text parsing dominates there).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from holdout.predictions import Predictions, save_predictions  # noqa: E402
from holdout.runlog import median_time  # noqa: E402


def synthetic_predictions(k: int, n: int, classes: int = 1000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """K x n predicted classes and n labels: P(model wrong on point) = difficulty ** skill."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n)
    difficulty = rng.beta(0.5, 1.5, size=n)
    skill = rng.uniform(0.6, 1.6, size=k)
    wrong = rng.random((k, n)) < difficulty[None, :] ** skill[:, None]
    other = (labels[None, :] + rng.integers(1, classes, size=(k, n))) % classes
    return np.where(wrong, other, labels[None, :]), labels


def write_inputs(folder: Path, k: int, n: int, csv: bool) -> dict[str, Path]:
    preds, labels = synthetic_predictions(k, n)
    new_preds, new_labels = synthetic_predictions(k, n // 5, seed=1)
    names = [f"model_{i:03d}" for i in range(k)]
    paths = {
        "npy": folder / "preds.npy",
        "labels": folder / "labels.npy",
        "npz": folder / "preds.npz",
        "new": folder / "new.npz",
    }
    np.save(paths["npy"], preds.astype(np.int16))
    np.save(paths["labels"], labels)
    save_predictions(paths["npz"], Predictions.create(preds, labels, names, num_classes=1000, test_set="bench"))
    save_predictions(
        paths["new"], Predictions.create(new_preds, new_labels, names, num_classes=1000, test_set="bench_new")
    )
    if csv:
        paths["csv"] = folder / "preds.csv"
        np.savetxt(paths["csv"], preds.T, fmt="%d", delimiter=",", header=",".join(names), comments="")
    return paths


def audit_command(paths: dict[str, Path], fmt: str, out: Path, new: bool) -> list[str]:
    cmd = [sys.executable, "-m", "holdout.audit", str(paths[fmt]), "--out", str(out), "--search-size", "1000"]
    if fmt != "npz":
        cmd += ["--labels", str(paths["labels"]), "--num-classes", "1000"]
    if new:
        cmd += ["--new-predictions", str(paths["new"])]
    return cmd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--csv", action="store_true", help="also time CSV input")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), MPLBACKEND="Agg")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_inputs(folder, args.models, args.n, args.csv)
        variants = [
            ("npy + labels.npy", "npy", False),
            ("npz", "npz", False),
            ("npz + new test set (n/5)", "npz", True),
        ]
        if args.csv:
            variants.append(("csv + labels.npy", "csv", False))
        print(
            f"holdout audit, K = {args.models} x n = {args.n:,}, {os.cpu_count()} CPUs, load average "
            f"{os.getloadavg()[0]:.1f}, median of {args.repeats} (target < 10 s)"
        )
        for label, fmt, new in variants:
            cmd = audit_command(paths, fmt, folder / f"out_{fmt}_{new}", new)

            def run(cmd: list[str] = cmd) -> float:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(cmd, check=True, env=env, capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

            seconds, cpu = median_time(run, args.repeats)
            print(f"  {label:<28} {seconds:6.2f} s wall, {cpu:6.2f} s CPU (last run)")


if __name__ == "__main__":
    main()
