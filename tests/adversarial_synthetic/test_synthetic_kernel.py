"""The RMSProp kernel of the synthetic experiment (Werpachowski et al. 2019, Appendix A.2):
the compiled (numba) kernel and the numpy reference give the same bits, for any thread count;
the fixed-order exponential is exp to float64 accuracy."""

from __future__ import annotations

import numpy as np
import pytest

from holdout.adversarial import synthetic as syn
from holdout.adversarial.synthetic import kernel

needs_numba = pytest.mark.skipif(not kernel.HAVE_NUMBA, reason="numba not installed (the 'fast' extra)")

SPECS = {
    "paper": dict(),
    "penalty+reshuffle": dict(penalty=50.0, reshuffle_each_epoch=True),
    "float64, eps outside sqrt": dict(
        dtype="float64",
        init="zeros",
        optimizer=syn.RMSProp(epsilon=1e-8, epsilon_inside_sqrt=False, accumulator_init=0.0, decay=0.99),
    ),
}


def _data(dim: int, n_runs: int = 5, n: int = 40) -> tuple[np.ndarray, np.ndarray, list[int]]:
    seeds = list(range(30, 30 + n_runs))
    mix = syn.Mixture(dim=dim, std=float(np.sqrt(dim)))
    x, y = syn.make_training_sets(mix, "independent", n_runs, n, seeds, np.empty((0, dim)), np.empty(0))
    return x, y, seeds


def test_exp_f64_against_numpy():
    t = np.concatenate([np.linspace(-200, 200, 20_001), [-1e-300, 0.0, 1e-12, 0.5 * np.log(2.0)]])
    np.testing.assert_allclose(kernel.exp_f64(t), np.exp(t), rtol=1e-11, atol=0)
    np.testing.assert_allclose(kernel.exp_f64(np.array([1e4, -1e4])), np.exp([200.0, -200.0]), rtol=1e-11)  # clamped


@needs_numba
@pytest.mark.parametrize("name", list(SPECS))
@pytest.mark.parametrize("dim", [7, 64])
def test_numba_kernel_equals_numpy_reference_bitwise(name, dim):
    x, y, seeds = _data(dim)
    spec = syn.TrainSpec(steps=150, batch_size=10, **SPECS[name])
    fast = syn.train_linear_batched(x, y, spec, seeds, backend="numba")
    ref = syn.train_linear_batched(x, y, spec, seeds, backend="numpy")
    assert np.array_equal(fast.w, ref.w) and np.array_equal(fast.b, ref.b)
    assert np.array_equal(fast.train_loss, ref.train_loss)


@needs_numba
def test_result_independent_of_threads_and_batching_of_runs():
    """One thread per run: 1 or 2 threads, all runs together or a run alone, the same bits."""
    x, y, seeds = _data(32, n_runs=4)
    spec = syn.TrainSpec(steps=200, batch_size=10)
    one = syn.train_linear_batched(x, y, spec, seeds, threads=1)
    two = syn.train_linear_batched(x, y, spec, seeds, threads=2)
    alone = syn.train_linear_batched(x[1:2], y[1:2], spec, seeds[1:2], threads=1)
    assert np.array_equal(one.w, two.w) and np.array_equal(one.b, two.b)
    assert np.array_equal(alone.w[0], one.w[1]) and alone.b[0] == one.b[1]


def test_numpy_backend_and_progress():
    """The numpy reference runs without numba, reports progress, and checks its arguments."""
    x, y, seeds = _data(8, n_runs=2, n=20)
    seen: list[tuple[int, float]] = []
    out = syn.train_linear_batched(
        x,
        y,
        syn.TrainSpec(steps=30, batch_size=10),
        seeds,
        backend="numpy",
        progress=lambda s, v: seen.append((s, v)),
        progress_every=10,
    )
    assert [s for s, _ in seen] == [10, 20, 30] and all(v > 0 for _, v in seen)
    assert out.w.shape == (2, 8) and out.w.dtype == np.float64
    with pytest.raises(ValueError, match="backend"):
        syn.train_linear_batched(x, y, syn.TrainSpec(steps=1, batch_size=10), seeds, backend="torch")


def test_progress_reports_do_not_change_the_reshuffled_epochs():
    """Kernel calls split at progress reports (every 7 steps) and at epoch ends (every 4 steps):
    the same model as one uninterrupted training, with each epoch's fresh order."""
    x, y, seeds = _data(8, n_runs=2, n=40)
    spec = syn.TrainSpec(steps=30, batch_size=10, reshuffle_each_epoch=True)
    whole = syn.train_linear_batched(x, y, spec, seeds, backend="numpy")
    split = syn.train_linear_batched(x, y, spec, seeds, backend="numpy", progress=lambda s, v: None, progress_every=7)
    assert np.array_equal(whole.w, split.w) and np.array_equal(whole.b, split.b)
    fixed = syn.train_linear_batched(x, y, syn.TrainSpec(steps=30, batch_size=10), seeds, backend="numpy")
    assert not np.array_equal(whole.w, fixed.w)  # the reshuffle does take place
