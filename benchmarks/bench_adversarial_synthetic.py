"""Timing of the synthetic experiment of Werpachowski et al. (Appendix A) on this CPU, in CPU-seconds.

Trains R = 100 runs (n = 500, D = 500, batch 100, float32, RMSProp) for ``--steps`` steps with the
compiled kernel (numba) and the numpy reference, checks that both give the same bits, and prints the
CPU-seconds per step and extrapolated to one case at the paper's 50,000 steps; then the time to
attack 100 models on the 10,000-point test set at one eps (pairwise + N-model tests included).

    PYTHONPATH=src python benchmarks/bench_adversarial_synthetic.py [--threads 1] [--steps 2000] [--reference-steps 100]

On an AVX2-only machine, or to emulate one on an AVX-512 machine with 2 cores:

    NUMBA_CPU_NAME=haswell NUMBA_CACHE_DIR=/tmp/numba-haswell taskset -c 0,1 \\
        python benchmarks/bench_adversarial_synthetic.py
"""

from __future__ import annotations

import argparse
import resource

import numpy as np

from holdout.adversarial import synthetic as syn
from holdout.adversarial.synthetic import kernel

PAPER_STEPS = 50_000


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def time_training(x, y, seeds, steps: int, backend: str, threads: int) -> tuple[float, syn.TrainedModels]:
    """CPU-seconds per step of ``train_linear_batched`` (after a warm-up that compiles the kernel)."""
    syn.train_linear_batched(x[:1], y[:1], syn.TrainSpec(steps=5), seeds[:1], backend=backend, threads=threads)
    c0 = cpu_seconds()
    out = syn.train_linear_batched(x, y, syn.TrainSpec(steps=steps), seeds, backend=backend, threads=threads)
    return (cpu_seconds() - c0) / steps, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="kernel threads (the rule's train_threads)")
    ap.add_argument("--steps", type=int, default=2000, help="steps timed with the numba kernel")
    ap.add_argument("--reference-steps", type=int, default=100, help="steps timed with the numpy reference")
    ap.add_argument("--runs", type=int, default=100)
    args = ap.parse_args()
    spec = syn.Mixture()
    seeds = list(range(args.runs))
    x, y = syn.make_training_sets(spec, "independent", args.runs, 500, seeds, np.empty((0, 500)), np.empty(0))
    print(f"{args.runs} runs x (n = 500, D = 500), batch 100, float32; {kernel.training_backend()}")
    print(f"{'backend':>8} {'steps':>6} {'CPU-ms/step':>12} {'CPU-s per case (50k steps)':>27}")
    backends = [("numba", args.steps)] if kernel.HAVE_NUMBA else []
    backends.append(("numpy", args.reference_steps))
    results = {}
    for backend, steps in backends:
        per_step, results[backend] = time_training(x, y, seeds, steps, backend, args.threads)
        print(f"{backend:>8} {steps:>6} {per_step * 1e3:>12.3f} {per_step * PAPER_STEPS:>27.1f}")
    if "numba" in results:
        short = syn.TrainSpec(steps=args.reference_steps)
        same = syn.train_linear_batched(x, y, short, seeds, backend="numba", threads=args.threads)
        ok = np.array_equal(same.w, results["numpy"].w) and np.array_equal(same.b, results["numpy"].b)
        print(f"numba == numpy reference after {args.reference_steps} steps, bit for bit: {ok}")
    xt, yt = syn.sample_mixture(spec, 10_000, np.random.default_rng(0))
    w = np.random.default_rng(1).standard_normal((100, 500))
    c0 = cpu_seconds()
    syn.evaluate_grid(spec, xt, yt, w, np.zeros(100), [10.0], [1, 2, 10, 25, 100], 2.0)
    print(f"evaluation, 100 models x 10,000 points, one eps: {cpu_seconds() - c0:.2f} CPU-s")


if __name__ == "__main__":
    main()
