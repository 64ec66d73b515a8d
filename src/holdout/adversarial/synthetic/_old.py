"""The synthetic experiment of Werpachowski et al. (2019), Sec. 4 and Appendix A.

Data (A.1): X = R^D (D = 500), an equal mixture of two isotropic Gaussians with
means (+-mu, 0, ..., 0) (mu = 1) and coordinate standard deviation sigma = sqrt(D),
each truncated in the first coordinate so that rho_+(x) = 0 for x_1 <= margin and
rho_-(x) = 0 for x_1 >= -margin (margin = 0.025); the true label is f*(x) = sgn(x_1).

Model (A.1-A.2): f(x) = sgn(w.x + b) trained with the logistic loss
c((w, b), x, y) = ln(1 + exp(-y (w.x + b))) by RMSProp (learning rate 0.01, batch 100,
50,000 steps); the dependent case adds ``penalty * w_1^2`` to the loss.

Attack (Sec. 4, A.1): x' = x - eps y w / ||w||_2; g(x) = x' when x is correctly
classified and f*(x') = f*(x), else g(x) = x. For a point x' the density is

    h_g(x') = rho(x') / (rho(x') + rho(x) (1 - L(f, x)) 1{f*(x) = f*(x')}),

with x = x' + eps f*(x') w / ||w|| the exact (unique) preimage.

Choices the paper leaves open (also in the README):

- **RMSProp variant**: TensorFlow 1's ``tf.train.RMSPropOptimizer`` defaults, the
  optimizer of the paper's time and place: ms <- decay ms + (1 - decay) g^2 with
  decay 0.9, accumulator ms started at **1**, update lr g / sqrt(ms + eps) with
  eps = 1e-10 **inside** the square root, no momentum, not centred.
- **Initialisation**: Glorot-uniform weights (the Keras/TF ``Dense`` default),
  zero bias.
- **Batches**: each run puts its training set in its own random order once and
  then cycles through contiguous batches (random order, no reshuffling; the
  optional per-epoch reshuffle costs ~4x the time).
- **Dependent case**: the first ``dependent_train_fraction`` of the fixed test
  set *replaces* each run's own training points (``dependent_mode: replace``,
  the default: it reproduces the paper's final penalized loss 0.25 with 100%
  training accuracy and R(f) ~ 1/2) or *joins* them (``join``: 1,000 points at
  the separability limit, 90-100% training accuracy).
- **Range U = 2**: the attack is not density-preserving, so a successful
  adversarial point can have h_g > 1/2 and U = 3/2 does not hold.

All densities are handled in log space and reduced to per-example scalars
(||x||^2, x_1, w.x/||w||, w.x + b): the attack moves x along one direction, so
everything the density needs is a function of those scalars.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from scipy import special
from scipy import stats as sps

from holdout.adversarial.stats import bernstein_p_value

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AttackEvaluation",
    "Mixture",
    "RMSProp",
    "TrainSpec",
    "TrainedModels",
    "attack",
    "dependent_transition",
    "evaluate_attack",
    "evaluate_grid",
    "log_density",
    "log_density_from_stats",
    "make_training_sets",
    "n_model_p_values",
    "pairwise_p_values",
    "sample_mixture",
    "train_linear_batched",
    "true_risk",
]


# ---------------------------------------------------------------------------
# data distribution (A.1)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Mixture:
    """Equal mixture of two truncated isotropic Gaussians N_trunc(+-mu e_1, std^2 I) in R^dim,
    rho_+ = 0 for x_1 <= margin and rho_- = 0 for x_1 >= -margin (Appendix A.1)."""

    dim: int = 500
    mean: float = 1.0
    std: float = math.sqrt(500.0)
    margin: float = 0.025

    def __post_init__(self) -> None:
        if self.dim < 2:
            raise ValueError(f"adversarial.synthetic.dim must be >= 2, got {self.dim}")
        if not self.std > 0:
            raise ValueError(f"adversarial.synthetic.std must be positive, got {self.std}")
        if self.margin < 0:
            raise ValueError(f"adversarial.synthetic.margin must be >= 0, got {self.margin}")

    @property
    def log_mass(self) -> float:
        """ln Z, Z = P(N(mu, std^2) > margin): the truncation constant of each component."""
        return float(special.log_ndtr((self.mean - self.margin) / self.std))

    @property
    def log_const(self) -> float:
        """ln of the constant factor of rho on its support: ln(1/2) - ln Z - (D/2) ln(2 pi std^2)."""
        return -math.log(2.0) - self.log_mass - 0.5 * self.dim * math.log(2.0 * math.pi * self.std**2)


def sample_mixture(spec: Mixture, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw n points: labels y = +-1 with probability 1/2, x_1 = y t with t ~ N(mu, std^2)
    truncated to t > margin, the other coordinates N(0, std^2). Returns (x (n, D), y (n,))."""
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    a = (spec.margin - spec.mean) / spec.std
    t = sps.truncnorm.rvs(a, np.inf, loc=spec.mean, scale=spec.std, size=n, random_state=rng)
    x = rng.standard_normal((n, spec.dim)) * spec.std
    x[:, 0] = y * t
    return x, y


def log_density_from_stats(spec: Mixture, sqnorm: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """ln rho(x) from ||x||^2 and x_1 (-inf in the margin |x_1| <= margin):
    ln rho = ln(1/2) - ln Z - (D/2) ln(2 pi std^2) - (||x||^2 - 2 |x_1| mu + mu^2) / (2 std^2)."""
    sqnorm = np.asarray(sqnorm, dtype=np.float64)
    x1 = np.asarray(x1, dtype=np.float64)
    quad = sqnorm - 2.0 * np.abs(x1) * spec.mean + spec.mean**2
    out = spec.log_const - quad / (2.0 * spec.std**2)
    return np.where(np.abs(x1) > spec.margin, out, -np.inf)


def log_density(spec: Mixture, x: np.ndarray) -> np.ndarray:
    """ln rho(x) for points x of shape (..., D)."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[-1] != spec.dim:
        raise ValueError(f"points have dimension {x.shape[-1]}, the mixture has {spec.dim}")
    return log_density_from_stats(spec, np.einsum("...d,...d->...", x, x), x[..., 0])


def true_risk(spec: Mixture, w: np.ndarray, b: np.ndarray, nodes: int = 256) -> np.ndarray:
    """Expected error R(f) of f(x) = sgn(w.x + b) under the mixture (Sec. 2), per model.

    Given y, y(w.x + b) = w_1 t + y b + N(0, std^2 ||w_{2:}||^2) with t = |x_1| the
    truncated normal, so R(f) = (1/2) sum_y E_t[Phi(-(w_1 t + y b) / (std ||w_{2:}||))];
    the expectation over t is a Gauss-Legendre quadrature in the CDF scale.
    """
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    b = np.atleast_1d(np.asarray(b, dtype=np.float64))
    u, wq = np.polynomial.legendre.leggauss(nodes)
    u = 0.5 * (u + 1.0)
    wq = 0.5 * wq
    a = (spec.margin - spec.mean) / spec.std
    t = sps.truncnorm.ppf(u, a, np.inf, loc=spec.mean, scale=spec.std)  # (nodes,)
    r = spec.std * np.linalg.norm(w[:, 1:], axis=1)  # (R,)
    risk = np.zeros(w.shape[0])
    for y in (1.0, -1.0):
        arg = -(w[:, :1] * t[None, :] + y * b[:, None]) / r[:, None]
        risk += 0.5 * special.ndtr(arg) @ wq
    return risk


# ---------------------------------------------------------------------------
# batched training (A.2)
# ---------------------------------------------------------------------------
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


def train_linear_batched(
    x: np.ndarray,
    y: np.ndarray,
    spec: TrainSpec,
    seeds: Sequence[int],
    *,
    threads: int | None = None,
    progress: Callable[[int, float], None] | None = None,
    progress_every: int = 5000,
) -> TrainedModels:
    """Train R independent linear classifiers at once, as one batched model with
    weights of shape (R, D) (torch, CPU): run r trains on x[r] (n, D), y[r] (n,) in {-1, +1}.

    Run r's initial weights and batch order come from ``np.random.default_rng(seeds[r])``
    (so a run trained alone gives the same model). Each step takes batch k of the run's
    order (order fixed once, or redrawn every epoch when ``spec.reshuffle_each_epoch``),
    computes the gradient of mean(ln(1 + exp(-y (w.x + b)))) + penalty w_1^2 and applies
    the RMSProp update of ``spec.optimizer`` to w and b.
    """
    import torch

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
        torch.set_num_threads(int(threads))
    torch.set_flush_denormal(True)
    dtype = getattr(torch, spec.dtype)
    rngs = [np.random.default_rng(int(s)) for s in seeds]
    w0 = np.empty((n_runs, dim))
    for r, rng in enumerate(rngs):
        w0[r], _ = initial_parameters(spec, dim, rng)
    orders = np.stack([rng.permutation(n) for rng in rngs])

    # features with a constant 1 appended (column dim), so that theta = (w, b) is one tensor
    # (b has its own accumulator entry: the same update as a separate bias), zero-padded to a
    # multiple of 16 columns (aligned rows make torch.bmm several times faster); the padding
    # columns are never updated and stay 0
    width = dim + 1
    padded = -(-width // 16) * 16

    def arrange(order: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        xo = np.zeros((n_runs, n, padded), dtype=spec.dtype)
        xo[:, :, :dim] = np.take_along_axis(x, order[:, :, None], axis=1)
        xo[:, :, dim] = 1.0
        # -y: d mean-loss / dz = (-y / B) sigmoid(-y z)
        nyo = -np.take_along_axis(y, order, axis=1).astype(spec.dtype)
        return torch.from_numpy(xo), torch.from_numpy(nyo)

    xt, nyt = arrange(orders)
    theta_full = torch.zeros(n_runs, padded, dtype=dtype)
    theta_full[:, :dim] = torch.from_numpy(w0.astype(spec.dtype))
    theta = theta_full[:, :width]  # the trained entries (a view)
    opt = spec.optimizer
    ms = torch.full((n_runs, width), opt.accumulator_init, dtype=dtype)
    lr, decay, eps = opt.learning_rate, opt.decay, opt.epsilon
    two_pen = 2.0 * spec.penalty
    inv_bs = 1.0 / bs

    running = 0.0
    for step in range(spec.steps):
        k = step % n_batches
        if k == 0 and step > 0 and spec.reshuffle_each_epoch:
            xt, nyt = arrange(np.stack([rng.permutation(n) for rng in rngs]))
        xb = xt[:, k * bs : (k + 1) * bs]  # (R, B, padded) view
        nyb = nyt[:, k * bs : (k + 1) * bs]
        z = torch.bmm(theta_full.unsqueeze(1), xb.transpose(1, 2)).squeeze(1)  # w.x + b
        ym = nyb * z  # -y z
        dz = torch.sigmoid(ym).mul_(nyb).mul_(inv_bs)  # d mean-loss / d z
        grad = torch.bmm(dz.unsqueeze(1), xb).squeeze(1)[:, :width]
        if two_pen:
            grad[:, 0].add_(theta[:, 0], alpha=two_pen)
        # RMSProp (spec.optimizer): ms <- decay ms + (1 - decay) g^2; theta -= lr g / sqrt(ms + eps)
        ms.mul_(decay).addcmul_(grad, grad, value=1.0 - decay)
        denom = ms.add(eps).sqrt_() if opt.epsilon_inside_sqrt else ms.sqrt().add_(eps)
        theta.addcdiv_(grad, denom, value=-lr)
        if progress is not None:
            if step % 100 == 0:
                running = float(torch.nn.functional.softplus(ym).mean())
            if (step + 1) % progress_every == 0 or step + 1 == spec.steps:
                progress(step + 1, running)
    w = theta[:, :dim]
    b = theta[:, dim]
    w_np = w.double().numpy()
    b_np = b.double().numpy()
    loss, acc = penalized_loss(x, y, w_np, b_np, spec.penalty)
    return TrainedModels(w=w_np, b=b_np, train_loss=loss, train_accuracy=acc)


def make_training_sets(
    spec: Mixture,
    case: str,
    n_runs: int,
    n_train: int,
    seeds: Sequence[int],
    test_x: np.ndarray,
    test_y: np.ndarray,
    *,
    dependent_train_fraction: float = 0.5,
    dependent_mode: str = "replace",
) -> tuple[np.ndarray, np.ndarray]:
    """Training sets of the R runs, shape (R, n, D) and (R, n).

    ``independent``: run r draws its own n_train points (``default_rng(seeds[r])``).
    ``dependent``: the first ``dependent_train_fraction`` of the fixed test set is
    shared by every run; with ``join`` it is added to the run's own n_train points,
    with ``replace`` it is the whole training set (Appendix A.2).
    """
    if case not in ("independent", "dependent"):
        raise ValueError(f"case must be 'independent' or 'dependent', got {case!r}")
    if dependent_mode not in ("join", "replace"):
        raise ValueError(f"adversarial.synthetic.dependent_mode must be 'join' or 'replace', got {dependent_mode!r}")
    if len(seeds) != n_runs:
        raise ValueError(f"{len(seeds)} seeds for {n_runs} runs")
    own = n_train if (case == "independent" or dependent_mode == "join") else 0
    shared = 0
    if case == "dependent":
        shared = int(round(dependent_train_fraction * len(test_y)))
        if not 0 < shared <= len(test_y):
            raise ValueError(f"dependent_train_fraction {dependent_train_fraction} selects {shared} test points")
    n = own + shared
    x = np.empty((n_runs, n, spec.dim), dtype=np.float64)
    y = np.empty((n_runs, n), dtype=np.float64)
    for r in range(n_runs):  # data only; training is batched
        if shared:
            x[r, :shared], y[r, :shared] = test_x[:shared], test_y[:shared]
        if own:
            # a generator separate from the one for init/order (spawned from the same seed)
            rng = np.random.default_rng([int(seeds[r]), 1])
            x[r, shared:], y[r, shared:] = sample_mixture(spec, own, rng)
    return x, y


# ---------------------------------------------------------------------------
# the attack and its exact density (Sec. 4, A.1)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AttackEvaluation:
    """Per-(model, example) outcome of the attack at one eps; arrays of shape (R, m).

    ``loss`` = L(f, x), ``adv_loss`` = L(f, g(x)), ``density`` = h_g(g(x)) (NaN where
    g(x) is correctly classified: not needed), ``moved`` = g(x) != x,
    ``successful`` = moved and misclassified, ``t`` = T_i of eq. (5).
    """

    loss: np.ndarray
    adv_loss: np.ndarray
    density: np.ndarray
    moved: np.ndarray
    successful: np.ndarray
    t: np.ndarray


def _shift_log_ratio(
    spec: Mixture, sqnorm: np.ndarray, x1: np.ndarray, s: np.ndarray, u1: np.ndarray, d: np.ndarray
) -> np.ndarray:
    """ln rho(x + d u) - ln rho(x) for a unit direction u (s = u.x, u1 = u_1) and shift d,
    in exact difference form: ||x + d u||^2 - ||x||^2 = 2 d s + d^2, x_1 moves by d u_1.
    -inf where x + d u falls in the margin; x itself must lie in the support."""
    x1_new = x1 + d * u1
    dq = 2.0 * d * s + d * d - 2.0 * spec.mean * (np.abs(x1_new) - np.abs(x1))
    return np.where(np.abs(x1_new) > spec.margin, -dq / (2.0 * spec.std**2), -np.inf)


def attack(
    spec: Mixture,
    eps: float,
    y: np.ndarray,
    sqnorm: np.ndarray,
    x1: np.ndarray,
    s: np.ndarray,
    z: np.ndarray,
    u1: np.ndarray,
    wnorm: np.ndarray,
) -> AttackEvaluation:
    """The AEG of Sec. 4 for R models on m test points, from per-example scalars.

    Inputs (broadcast to (R, m)): labels y = f*(x) (m,), ||x||^2 (m,), x_1 (m,),
    s = w.x/||w|| (R, m), z = w.x + b (R, m), u1 = w_1/||w|| (R, 1), ||w|| (R, 1).

    g(x) = x' = x - eps y w/||w|| when L(f, x) = 0 and sgn(x'_1) = y, else x; then
    w.x' + b = z - eps y ||w||, x'_1 = x_1 - eps y u1. Densities at misclassified g(x):

    - successful adversarial point (moved): its preimage is x itself (exact), so
      h_g = rho(x') / (rho(x') + rho(x)) = expit(ln rho(x') - ln rho(x));
    - originally misclassified x (not moved): the only candidate preimage is
      p = x + eps y w/||w||, which maps to x iff L(f, p) = 0 and f*(p) = y; then
      h_g = expit(ln rho(x) - ln rho(p)), else h_g = 1.
    """
    eps = float(eps)
    if not eps >= 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
    ybar = np.broadcast_to(y, z.shape)
    loss = ybar * z <= 0
    x1_adv = x1 - eps * ybar * u1
    moved = (~loss) & (ybar * x1_adv > 0)  # f*(x') = f*(x) = y
    z_adv = z - eps * ybar * wnorm
    adv_loss = np.where(moved, ybar * z_adv <= 0, loss)
    successful = moved & adv_loss
    density = np.full(z.shape, np.nan)
    with np.errstate(invalid="ignore"):
        # successful adversarial examples: preimage x, shift d = -eps y
        lr_adv = _shift_log_ratio(spec, sqnorm, x1, s, u1, -eps * ybar)
        density = np.where(successful, special.expit(lr_adv), density)
        # originally misclassified points: candidate preimage p = x + eps y u
        z_pre = z + eps * ybar * wnorm
        x1_pre = x1 + eps * ybar * u1
        maps_here = (ybar * z_pre > 0) & (ybar * x1_pre > 0)
        lr_pre = _shift_log_ratio(spec, sqnorm, x1, s, u1, eps * ybar)  # ln rho(p) - ln rho(x)
        h_mis = np.where(maps_here, special.expit(-lr_pre), 1.0)
        density = np.where(loss, h_mis, density)
    t = np.where(adv_loss, np.nan_to_num(density), 0.0) - loss
    return AttackEvaluation(loss=loss, adv_loss=adv_loss, density=density, moved=moved, successful=successful, t=t)


def evaluate_attack(
    spec: Mixture, x: np.ndarray, y: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float
) -> AttackEvaluation:
    """Attack R models (w (R, D), b (R,)) on a shared test set x (m, D), y (m,) at ``eps``."""
    x = np.asarray(x, dtype=np.float64)
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    b = np.atleast_1d(np.asarray(b, dtype=np.float64))
    wnorm = np.linalg.norm(w, axis=1)
    if np.any(wnorm == 0):
        raise ValueError("a model has w = 0: the attack direction w/||w|| is undefined")
    u = w / wnorm[:, None]
    return attack(
        spec,
        eps,
        np.asarray(y, dtype=np.float64),
        np.einsum("md,md->m", x, x),
        x[:, 0],
        u @ x.T,
        w @ x.T + b[:, None],
        u[:, :1],
        wnorm[:, None],
    )


def pairwise_p_values(t: np.ndarray, U: float) -> np.ndarray:
    """p-value (7) of the pairwise test for each row of t (R, m) (range U checked)."""
    t = np.atleast_2d(t)
    width = t.max(axis=1) - t.min(axis=1)
    if np.any(width > U * (1 + 1e-12)) or np.any(np.abs(t) > 1 + 1e-12):
        raise ValueError(f"observed T_i span up to {width.max():g}, more than U = {U:g}")
    mean = t.mean(axis=1)
    var = ((t - mean[:, None]) ** 2).mean(axis=1)
    return np.array([bernstein_p_value(t.shape[1], v, mu, U)[0] for v, mu in zip(var, mean)])


def n_model_p_values(t: np.ndarray, n_models: int, U: float) -> np.ndarray:
    """N-model test (Sec. 3.3) over disjoint groups of consecutive runs: runs
    [kN, (k+1)N) average their T_i per example; one p-value per group
    (R // N groups; leftover runs are unused)."""
    t = np.atleast_2d(t)
    groups = t.shape[0] // n_models
    if groups < 1:
        raise ValueError(f"N = {n_models} models per group but only {t.shape[0]} runs")
    tbar = t[: groups * n_models].reshape(groups, n_models, -1).mean(axis=1)
    return pairwise_p_values(tbar, U)


# ---------------------------------------------------------------------------
# the whole eps grid for one case
# ---------------------------------------------------------------------------
def evaluate_grid(
    spec: Mixture,
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    b: np.ndarray,
    eps_values: Sequence[float],
    n_models: Sequence[int],
    U: float = 2.0,
    *,
    progress: Callable[[float], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Attack R models sharing the test set (x, y) at every eps and run the tests.

    Returns two tables:

    - per run and eps: ``test_error`` (R_S), ``adversarial_error`` (R_S', the
      unweighted error on g(S)), ``adversarial_risk`` (R_g, eq. 2), ``statistic``
      (T_{S,g}), ``variance`` (sigma_T^2), ``p_value`` / ``log_p_value`` (pairwise
      test, eq. 7, range U), ``n_misclassified`` / ``density_misclassified``
      (count and mean h_g of originally misclassified points), ``n_successful`` /
      ``density_adversarial`` (same for successful adversarial examples);
    - per eps, N and group: the N-model test (Sec. 3.3) over disjoint groups of
      consecutive runs (``p_value``, ``log_p_value``, ``statistic``).
    """
    import pandas as pd

    from holdout.adversarial.stats import n_model_test, pairwise_test

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    b = np.atleast_1d(np.asarray(b, dtype=np.float64))
    n_runs = w.shape[0]
    for n in n_models:
        if not 1 <= int(n) <= n_runs:
            raise ValueError(f"N = {n} models per group needs 1 <= N <= {n_runs} runs")
    wnorm = np.linalg.norm(w, axis=1)
    if np.any(wnorm == 0):
        raise ValueError("a model has w = 0: the attack direction w/||w|| is undefined")
    u = w / wnorm[:, None]
    sqnorm = np.einsum("md,md->m", x, x)
    x1 = x[:, 0]
    s = u @ x.T
    z = w @ x.T + b[:, None]
    rows: list[dict[str, float]] = []
    group_rows: list[dict[str, float]] = []
    for eps in eps_values:
        ev = attack(spec, float(eps), y, sqnorm, x1, s, z, u[:, :1], wnorm[:, None])
        weighted = np.where(ev.adv_loss, np.nan_to_num(ev.density), 0.0)
        mis = ev.loss
        suc = ev.successful
        n_mis = mis.sum(axis=1)
        n_suc = suc.sum(axis=1)
        dens = np.nan_to_num(ev.density)
        with np.errstate(invalid="ignore", divide="ignore"):
            d_mis = np.where(n_mis > 0, (dens * mis).sum(axis=1) / n_mis, np.nan)
            d_suc = np.where(n_suc > 0, (dens * suc).sum(axis=1) / n_suc, np.nan)
        for r in range(n_runs):
            res = pairwise_test(ev.t[r], U)
            rows.append(
                dict(
                    eps=float(eps),
                    run=r,
                    test_error=float(ev.loss[r].mean()),
                    adversarial_error=float(ev.adv_loss[r].mean()),
                    adversarial_risk=float(weighted[r].mean()),
                    statistic=res.statistic,
                    variance=res.variance,
                    p_value=res.p_value,
                    log_p_value=res.log_p_value,
                    n_misclassified=int(n_mis[r]),
                    density_misclassified=float(d_mis[r]),
                    n_successful=int(n_suc[r]),
                    density_adversarial=float(d_suc[r]),
                )
            )
        for n in n_models:
            n = int(n)
            for g in range(n_runs // n):
                res = n_model_test(ev.t[g * n : (g + 1) * n], U)
                group_rows.append(
                    dict(
                        eps=float(eps),
                        N=n,
                        group=g,
                        p_value=res.p_value,
                        log_p_value=res.log_p_value,
                        statistic=res.statistic,
                    )
                )
        if progress is not None:
            progress(float(eps))
    return pd.DataFrame(rows), pd.DataFrame(group_rows)


# ---------------------------------------------------------------------------
# configuration helpers (the ``adversarial.synthetic`` config section)
# ---------------------------------------------------------------------------
CASES = ("independent", "dependent")


def mixture_from_config(cfg: dict) -> Mixture:
    """The data distribution from the ``adversarial.synthetic`` config section."""
    return Mixture(dim=int(cfg["dim"]), mean=float(cfg["mean"]), std=float(cfg["std"]), margin=float(cfg["margin"]))


def train_spec_from_config(cfg: dict, case: str) -> TrainSpec:
    """Training settings of ``case`` from the ``adversarial.synthetic`` config section."""
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    r = cfg.get("rmsprop", {})
    opt = RMSProp(
        learning_rate=float(cfg["learning_rate"]),
        decay=float(r.get("decay", 0.9)),
        epsilon=float(r.get("epsilon", 1e-10)),
        epsilon_inside_sqrt=bool(r.get("epsilon_inside_sqrt", True)),
        accumulator_init=float(r.get("accumulator_init", 1.0)),
    )
    return TrainSpec(
        steps=int(cfg["steps"]),
        batch_size=int(cfg["batch_size"]),
        penalty=float(cfg["penalty_dependent"]) if case == "dependent" else 0.0,
        optimizer=opt,
        init=str(cfg.get("init", "glorot_uniform")),
        reshuffle_each_epoch=bool(cfg.get("reshuffle_each_epoch", False)),
        dtype=str(cfg.get("dtype", "float32")),
    )


def case_seeds(seed: int, case: str, n_runs: int) -> tuple[int, list[int]]:
    """Seed of the case's fixed test set and one seed per run, all derived from the
    master ``seed`` with ``numpy.random.SeedSequence`` (distinct streams per case)."""
    ss = np.random.SeedSequence([int(seed), CASES.index(case)])
    test_ss, runs_ss = ss.spawn(2)
    test_seed = int(test_ss.generate_state(1, dtype=np.uint32)[0])
    run_seeds = [int(v) for v in runs_ss.generate_state(n_runs, dtype=np.uint32)]
    return test_seed, run_seeds


def eps_grid(cfg: dict) -> np.ndarray:
    """Attack strengths: ``eps_grid.num`` log-spaced values from ``eps_grid.min`` to
    ``eps_grid.max`` plus ``eps_extra``, sorted, duplicates removed (relative 1e-9)."""
    g = cfg.get("eps_grid", {})
    lo, hi, num = float(g.get("min", 0.01)), float(g.get("max", 100.0)), int(g.get("num", 17))
    if not 0 < lo <= hi:
        raise ValueError(f"adversarial.synthetic.eps_grid needs 0 < min <= max, got {lo}, {hi}")
    vals = np.concatenate([np.geomspace(lo, hi, num), np.asarray(cfg.get("eps_extra", []), dtype=float)])
    vals = np.sort(vals)
    keep = np.concatenate([[True], np.diff(vals) > 1e-9 * vals[1:]])
    return vals[keep]


def find_eps(grid: np.ndarray, eps: float, key: str) -> float:
    """The grid value equal to ``eps`` (relative 1e-9); a clear error naming ``key`` otherwise."""
    grid = np.asarray(grid, dtype=float)
    hit = np.flatnonzero(np.abs(grid - eps) <= 1e-9 * abs(eps))
    if hit.size == 0:
        raise ValueError(
            f"adversarial.synthetic.{key}: eps = {eps:g} is not on the eps grid "
            f"({', '.join(f'{v:g}' for v in grid)}); add it to eps_extra"
        )
    return float(grid[hit[0]])


def dependent_transition(groups: pd.DataFrame, alpha: float = 0.05) -> dict[str, float]:
    """Where the dependent case's single runs switch from accepting to rejecting (Appendix A.3):
    ``first_rejecting_eps``, the smallest eps whose mean single-run (N = 1) p-value is below
    ``alpha``; ``last_accepting_eps``, the largest smaller eps whose mean p-value is >= 0.5
    (NaN when there is none). ``groups`` is the N-model table of :func:`evaluate_grid` with a
    ``case`` column."""
    d = groups[(groups["case"] == "dependent") & (groups["N"] == 1)]
    mean = d.groupby("eps")["p_value"].mean().sort_index()
    rejecting = mean.index[mean < alpha]
    first = float(rejecting.min()) if len(rejecting) else math.nan
    accepting = mean[(mean >= 0.5) & (mean.index < first if len(rejecting) else True)]
    last = float(accepting.index.max()) if len(accepting) else math.nan
    return {"first_rejecting_eps": first, "last_accepting_eps": last}


def check_plot_eps(cfg: dict) -> None:
    """Fail early (naming the key) when a histogram or Figure 8 eps is not on the grid,
    or a Figure 8 N is not among ``n_models``."""
    grid = eps_grid(cfg)
    for case in CASES:
        for e in cfg.get("histogram_eps", {}).get(case, []):
            find_eps(grid, float(e), f"histogram_eps.{case}")
    f8 = cfg.get("figure8", {})
    find_eps(grid, float(f8.get("eps_independent", 10.0)), "figure8.eps_independent")
    for e in f8.get("eps_dependent", []):
        find_eps(grid, float(e), "figure8.eps_dependent")
    missing = sorted(set(int(n) for n in f8.get("n_models", [])) - set(int(n) for n in cfg["n_models"]))
    if missing:
        raise ValueError(f"adversarial.synthetic.figure8.n_models {missing} are not in adversarial.synthetic.n_models")
    too_big = [int(n) for n in cfg["n_models"] if int(n) > int(cfg["repetitions"])]
    if too_big:
        raise ValueError(
            f"adversarial.synthetic.n_models {too_big} exceed repetitions = {cfg['repetitions']} "
            "(each N-model test needs N runs)"
        )
