"""Data of the synthetic experiment (Werpachowski et al. 2019, Appendix A.1): the truncated
Gaussian mixture, its log density, the exact risk R(f) of a linear classifier, and the
training sets of the independent and dependent cases (Appendix A.2)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

__all__ = ["Mixture", "log_density", "log_density_from_stats", "make_training_sets", "sample_mixture", "true_risk"]


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
