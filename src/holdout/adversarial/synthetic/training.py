"""Training of the synthetic experiment's linear models (Werpachowski et al. 2019, Appendix A.2):
R independent runs of f(x) = sgn(w.x + b), logistic loss (+ penalty w_1^2 in the dependent case),
RMSProp, batch 100, 50,000 steps. The steps themselves are in
[`holdout.adversarial.synthetic.kernel`][holdout.adversarial.synthetic.kernel] (compiled with numba when installed, else
numpy;
the same bits either way)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from holdout.adversarial.synthetic import kernel

__all__ = ["RMSProp", "TrainSpec", "TrainedModels", "initial_parameters", "penalized_loss", "train_linear_batched"]


@dataclass(frozen=True)
class RMSProp:
    """RMSProp (Tieleman & Hinton 2012) as in TensorFlow 1's ``RMSPropOptimizer``:
    ms <- decay ms + (1 - decay) g^2 (ms starts at ``accumulator_init``),
    theta <- theta - lr g / sqrt(ms + eps) (``epsilon_inside_sqrt``) or
    lr g / (sqrt(ms) + eps) (PyTorch / Keras placement). No momentum, not centred."""

    learning_rate: float = 0.01
    decay: float = 0.9
    epsilon: float = 1e-10
    epsilon_inside_sqrt: bool = True
    accumulator_init: float = 1.0


@dataclass(frozen=True)
class TrainSpec:
    """Training of the linear model (Appendix A.2)."""

    steps: int = 50_000
    batch_size: int = 100
    penalty: float = 0.0  # coefficient of w_1^2 added to the loss
    optimizer: RMSProp = field(default_factory=RMSProp)
    init: str = "glorot_uniform"  # or "zeros"
    reshuffle_each_epoch: bool = False
    dtype: str = "float32"

    def __post_init__(self) -> None:
        if self.steps < 0 or self.batch_size < 1:
            raise ValueError(f"steps must be >= 0 and batch_size >= 1, got {self.steps}, {self.batch_size}")
        if self.init not in ("glorot_uniform", "zeros"):
            raise ValueError(f"init must be 'glorot_uniform' or 'zeros', got {self.init!r}")
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")


@dataclass(frozen=True)
class TrainedModels:
    """R trained linear models: weights (R, D), biases (R,), and on each run's
    training set the final penalized loss and the accuracy."""

    w: np.ndarray
    b: np.ndarray
    train_loss: np.ndarray
    train_accuracy: np.ndarray


def initial_parameters(spec: TrainSpec, dim: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Initial (w, b) of one run: Glorot-uniform w ~ U(-a, a), a = sqrt(6 / (D + 1)), b = 0."""
    if spec.init == "zeros":
        return np.zeros(dim), 0.0
    a = math.sqrt(6.0 / (dim + 1))
    return rng.uniform(-a, a, dim), 0.0


def penalized_loss(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, b: np.ndarray, penalty: float
) -> tuple[np.ndarray, np.ndarray]:
    """Mean logistic loss + penalty w_1^2 and accuracy of each of R models on its
    own data; x (R, n, D), y (R, n), w (R, D), b (R,)."""
    z = np.einsum("rnd,rd->rn", x, w) + b[:, None]
    margin = y * z
    loss = np.logaddexp(0.0, -margin).mean(axis=1) + penalty * w[:, 0] ** 2
    return loss, (margin > 0).mean(axis=1)


def _padded_width(dim: int) -> int:
    """The power of two >= dim: the kernel's pairwise tree sum needs it (extra columns are 0)."""
    return max(2, 1 << max(0, (dim - 1).bit_length()))


def _initial_state(
    x: np.ndarray, y: np.ndarray, spec: TrainSpec, rngs: Sequence[np.random.Generator]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's arrays: x zero-padded to P = 2^p columns, -y, theta = (w, zero padding, b)
    with each run's initial w (drawn first from its generator), and the RMSProp accumulators."""
    n_runs, n, dim = x.shape
    width = _padded_width(dim)
    theta = np.zeros((n_runs, width + 1), dtype=spec.dtype)
    for r, rng in enumerate(rngs):
        theta[r, :dim] = initial_parameters(spec, dim, rng)[0]
    xp = np.zeros((n_runs, n, width), dtype=spec.dtype)
    xp[:, :, :dim] = x
    ny = (-y).astype(spec.dtype)  # d mean-loss / dz = (-y / B) sigmoid(-y z)
    ms = np.full((n_runs, width + 1), spec.optimizer.accumulator_init, dtype=spec.dtype)
    return xp, ny, theta, ms


def train_linear_batched(
    x: np.ndarray,
    y: np.ndarray,
    spec: TrainSpec,
    seeds: Sequence[int],
    *,
    threads: int | None = None,
    progress: Callable[[int, float], None] | None = None,
    progress_every: int = 5000,
    backend: str = "auto",
) -> TrainedModels:
    """Train R independent linear classifiers: run r trains on x[r] (n, D), y[r] (n,) in {-1, +1}.

    Run r's initial weights and batch order come from ``np.random.default_rng(seeds[r])``
    (so a run trained alone gives the same model, bit for bit). Each step takes batch k of the
    run's order (fixed once, or redrawn every epoch when ``spec.reshuffle_each_epoch``), computes
    the gradient of mean(ln(1 + exp(-y (w.x + b)))) + penalty w_1^2 and applies the RMSProp update
    of ``spec.optimizer``
    ([`holdout.adversarial.synthetic.kernel.rmsprop_steps`][holdout.adversarial.synthetic.kernel.rmsprop_steps];
    ``backend``
    and ``threads`` choose how, not what: the result is the same). ``progress(step, loss)`` gets
    the mean logistic loss over the training sets every ``progress_every`` steps.
    """
    x = np.asarray(x)
    y = np.asarray(y)
    if x.ndim != 3 or y.shape != x.shape[:2]:
        raise ValueError(f"x must be (R, n, D) and y (R, n), got {x.shape} and {y.shape}")
    n_runs, n, dim = x.shape
    if len(seeds) != n_runs:
        raise ValueError(f"{len(seeds)} seeds for {n_runs} runs")
    bs = spec.batch_size
    if n % bs != 0:
        raise ValueError(f"training set size {n} is not a multiple of batch_size {bs}")
    n_batches = n // bs
    if threads:
        kernel.set_threads(threads)
    rngs = [np.random.default_rng(int(s)) for s in seeds]
    xp, ny, theta, ms = _initial_state(x, y, spec, rngs)
    order = np.stack([rng.permutation(n) for rng in rngs])
    opt = spec.optimizer
    hyper = (bs, opt.learning_rate, opt.decay, opt.epsilon, opt.epsilon_inside_sqrt, spec.penalty)
    width = xp.shape[2]
    step = 0
    while step < spec.steps:
        # one kernel call up to the next epoch end (reshuffle) or progress report
        stop = spec.steps
        if spec.reshuffle_each_epoch:
            stop = min(stop, (step // n_batches + 1) * n_batches)
        if progress is not None:
            stop = min(stop, (step // progress_every + 1) * progress_every)
        if step > 0 and step % n_batches == 0 and spec.reshuffle_each_epoch:
            order = np.stack([rng.permutation(n) for rng in rngs])
        kernel.rmsprop_steps(xp, ny, order, theta, ms, step % n_batches, stop - step, hyper, backend=backend)
        step = stop
        if progress is not None and (step % progress_every == 0 or step == spec.steps):
            w64, b64 = theta[:, :dim].astype(np.float64), theta[:, width].astype(np.float64)
            progress(step, float(penalized_loss(x, y, w64, b64, 0.0)[0].mean()))
    w = theta[:, :dim].astype(np.float64)
    b = theta[:, width].astype(np.float64)
    loss, acc = penalized_loss(x, y, w, b, spec.penalty)
    return TrainedModels(w=w, b=b, train_loss=loss, train_accuracy=acc)
