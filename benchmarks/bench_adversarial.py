"""Timing of the synthetic experiment of Werpachowski et al. (Appendix A) on this CPU.

Prints the time per batched RMSProp step for R runs (n = 500, D = 500, batch 100, float32)
and the extrapolated time of the paper's 50,000 steps, and the time to attack 100 models
on the 10,000-point test set at one eps (pairwise + N-model tests included).

    PYTHONPATH=src python benchmarks/bench_adversarial.py [--threads 2] [--steps 300]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from holdout.adversarial import synthetic as syn


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=300)
    args = ap.parse_args()
    spec = syn.Mixture()
    rng = np.random.default_rng(0)
    print(f"{'runs R':>7} {'ms/step':>9} {'50k steps (s)':>14}")
    for n_runs in (1, 10, 100):
        seeds = list(range(n_runs))
        x, y = syn.make_training_sets(spec, "independent", n_runs, 500, seeds, np.empty((0, 500)), np.empty(0))
        ts = syn.TrainSpec(steps=args.steps)
        syn.train_linear_batched(x, y, syn.TrainSpec(steps=20), seeds, threads=args.threads)  # warm-up
        t0 = time.perf_counter()
        syn.train_linear_batched(x, y, ts, seeds, threads=args.threads)
        dt = (time.perf_counter() - t0) / args.steps
        print(f"{n_runs:>7} {dt * 1e3:>9.3f} {dt * 50_000:>14.1f}")
    xt, yt = syn.sample_mixture(spec, 10_000, rng)
    w = rng.standard_normal((100, 500))
    b = np.zeros(100)
    t0 = time.perf_counter()
    syn.evaluate_grid(spec, xt, yt, w, b, [10.0], [1, 2, 10, 25, 100], 2.0)
    print(f"evaluation, 100 models x 10,000 points, one eps: {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
