"""The attack of the synthetic experiment and its exact density h_g (Werpachowski et al. 2019,
Sec. 4 and Appendix A.1), and the pairwise and N-model tests over an eps grid (Sec. 3, A.3).

All densities are handled in log space and reduced to per-example scalars
(||x||^2, x_1, w.x/||w||, w.x + b): the attack moves x along one direction, so
everything the density needs is a function of those scalars.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from holdout.adversarial.stats import bernstein_p_value
from holdout.adversarial.synthetic.mixture import Mixture

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AttackEvaluation", "attack", "evaluate_attack", "evaluate_grid", "n_model_p_values", "pairwise_p_values"]


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
