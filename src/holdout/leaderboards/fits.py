"""Accuracy tables: intervals from sizes, the linear and the probit fit, effective robustness.

A table of accuracies of K models on an original and a new test set (no per-item predictions)
is enough for Recht et al.'s (2019) question: the gap per model, the line of new on original
accuracy (linear scale, Recht et al. 2018 Eq. 3) and its probit-scale counterpart ("accuracy on
the line", Miller et al. 2021; the probit axes of Recht et al. 2019 Figure 1), each with standard
errors and the pointwise band, and each model's distance to the probit line (effective
robustness, Taori et al. 2020) with an interval and a Holm-corrected test. That test is a heuristic:
it asks whether a model lies off a *straight* probit line by more than test-set sampling noise, so
[`lack_of_fit`][holdout.leaderboards.fits.lack_of_fit] says how well one straight line describes
the models (where it does not, the per-model verdicts mostly measure lack of fit). Taori et al.'s
own baseline is a line fitted to models trained on ImageNet alone: ``baseline`` fits the line to a
subset and places every model against it.

Accuracies here are fractions in [0, 1]; the tables
([`accuracy_table_audit`][holdout.leaderboards.fits.accuracy_table_audit]) are in percent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from holdout.stats import LinearFit, fit_band, linear_fit
from holdout.stats import holm as holm_log
from holdout.stats.paired import mcnemar_log_pvalue

__all__ = [
    "AccuracyTableAudit",
    "EffectiveRobustness",
    "LackOfFit",
    "lack_of_fit",
    "accuracy_table_audit",
    "clopper_pearson_many",
    "cluster_bootstrap_slope_se",
    "effective_robustness",
    "holm",
    "paired_drop_test",
    "probit",
    "probit_fit",
]


def clopper_pearson_many(k: npt.ArrayLike, n: npt.ArrayLike, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized exact Clopper-Pearson 1 - alpha intervals of k / n (Recht et al. 2018, Sec. 3.2).

    The Beta quantiles B(alpha/2; k, n - k + 1) and B(1 - alpha/2; k + 1, n - k), with 0 / 1 at
    k = 0 / k = n: the same numbers as [`clopper_pearson`][holdout.stats.clopper_pearson], one
    array call instead of one call per model. ``scipy.special.betaincinv`` is the quantile function
    behind ``scipy.stats.beta.ppf``, without importing ``scipy.stats`` (0.4 s of a command's start).
    """
    from scipy import special

    k = np.asarray(k, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), k.shape)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if np.any(~np.isfinite(k)) or np.any(k < 0) or np.any(k > n) or np.any(n <= 0):
        raise ValueError("clopper_pearson_many needs 0 <= k <= n and n > 0")
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, special.betaincinv(k, n - k + 1, alpha / 2), 0.0)
        high = np.where(k < n, special.betaincinv(k + 1, n - k, 1 - alpha / 2), 1.0)
    return low, high


def probit(p: npt.ArrayLike, n: npt.ArrayLike) -> np.ndarray:
    """Phi^-1(p) with p clipped to [1/(2n), 1 - 1/(2n)], so 0 % and 100 % stay finite."""
    from scipy import stats

    p = np.asarray(p, dtype=float)
    half = 0.5 / np.asarray(n, dtype=float)
    return stats.norm.ppf(np.clip(p, half, 1 - half))


def probit_fit(original: npt.ArrayLike, new: npt.ArrayLike, n_original: int, n_new: int) -> LinearFit:
    """Least squares of Phi^-1(new) on Phi^-1(original) (Miller et al. 2021, Sec. 2): slope,
    intercept and standard errors on the probit scale ([`linear_fit`][holdout.stats.linear_fit])."""
    return linear_fit(probit(original, n_original), probit(new, n_new))


def holm(p_values: npt.ArrayLike) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values: reject H_i at level a when adjusted p_i <= a.

    [`holdout.stats.holm`][holdout.stats.holm] (log space) on plain p-values.
    """
    p = np.asarray(p_values, dtype=float)
    with np.errstate(divide="ignore"):
        return np.exp(holm_log(np.log(p)))


@dataclass(frozen=True)
class EffectiveRobustness:
    """Per model: distance to the probit line, new accuracy minus Phi(fitted probit) (fractions),
    its 1 - alpha interval, the z statistic on the probit scale, p-values (raw, Holm) and the
    verdict ``significant`` (Holm-adjusted p <= alpha)."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    z: np.ndarray
    p: np.ndarray
    p_holm: np.ndarray
    significant: np.ndarray


def _probit_variance(p: np.ndarray, n: int) -> np.ndarray:
    """Delta-method variance of Phi^-1(p_hat): p(1 - p) / (n phi(Phi^-1(p))^2)."""
    from scipy import stats

    q = np.clip(p, 0.5 / n, 1 - 0.5 / n)
    return q * (1 - q) / (n * stats.norm.pdf(stats.norm.ppf(q)) ** 2)


def effective_robustness(
    fit: LinearFit, original: np.ndarray, new: np.ndarray, n_original: int, n_new: int, alpha: float = 0.05
) -> EffectiveRobustness:
    """Distance of every model to the probit fit ``fit``, with an interval and a Holm test.

    On the probit scale r = Phi^-1(new) - (a Phi^-1(orig) + b); its variance adds the binomial
    noise of both accuracies (delta method, the original one times a^2) and the fit's
    mean-response variance s^2 (1/K + (x - x_bar)^2 / Sxx). The interval r +- z_{1-alpha/2} sd is
    mapped to accuracy by r -> Phi(fitted + r) - Phi(fitted), which is monotone, so the interval
    contains the distance. H_0: the model lies on the line (r = 0), two-sided.
    """
    from scipy import stats

    x = probit(original, n_original)
    fitted = fit.slope * x + fit.intercept
    r = probit(new, n_new) - fitted
    var_fit = fit.residual_std**2 * (1 / fit.n + (x - fit.x_mean) ** 2 / fit.sxx)
    var = _probit_variance(np.asarray(new, float), n_new) + fit.slope**2 * _probit_variance(
        np.asarray(original, float), n_original
    )
    sd = np.sqrt(var + var_fit)
    half = stats.norm.ppf(1 - alpha / 2) * sd
    base = stats.norm.cdf(fitted)
    z = r / sd
    p = 2 * stats.norm.sf(np.abs(z))
    p_holm = holm(p)
    value = np.asarray(new, float) - base
    # at 0% or 100% the probit is taken at 0.5/n from the bound: the interval is widened to hold the value
    return EffectiveRobustness(
        value=value,
        low=np.minimum(stats.norm.cdf(fitted + r - half) - base, value),
        high=np.maximum(stats.norm.cdf(fitted + r + half) - base, value),
        z=z,
        p=p,
        p_holm=p_holm,
        significant=p_holm <= alpha,
    )


def paired_drop_test(
    original: npt.ArrayLike, new: npt.ArrayLike, n: int, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact McNemar test, per model, of the original against the new grading of the same items.

    For a new set that is the original graded more strictly (EvalPlus: the same problems and
    samples, more tests) every item passing the new tests passes the original ones, so the
    discordant items are b = k_orig - k_new passing only the original tests and c = 0 the other way
    (in general the fewest consistent with the margins: b = max(k_o - k_n, 0), c = max(k_n - k_o, 0)).
    Exact two-sided McNemar ([`mcnemar_log_pvalue`][holdout.stats.paired.mcnemar_log_pvalue]), Holm-corrected
    over the models. Returns (b, Holm-adjusted p, significant at ``alpha``). Two independent
    binomials, as the effective-robustness test assumes, overstate the noise of such a paired difference.
    """
    k_o = np.rint(np.asarray(original, float) * n)
    k_n = np.rint(np.asarray(new, float) * n)
    b, c = np.maximum(k_o - k_n, 0), np.maximum(k_n - k_o, 0)
    p_holm = np.exp(holm_log(mcnemar_log_pvalue(b, c)))
    return b.astype(int), p_holm, p_holm <= alpha


def cluster_bootstrap_slope_se(
    x: npt.ArrayLike, y: npt.ArrayLike, clusters: npt.ArrayLike, reps: int = 1000, seed: int = 0
) -> float:
    """Standard error of the least-squares slope of y on x when rows come in clusters (the same
    weights at several image sizes, fine-tunes of one backbone): the sd of the slope over ``reps``
    resamples of whole clusters with replacement (the cluster bootstrap; Cameron, Gelbach & Miller
    2008). Each resample is a weighted fit, the weight of a row the times its cluster was drawn."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    _, index = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    n_clusters = int(index.max()) + 1
    counts = np.random.default_rng(seed).multinomial(n_clusters, np.full(n_clusters, 1 / n_clusters), size=reps)
    w = counts[:, index].astype(float)  # reps x rows
    sw, sx, sy = w.sum(axis=1), w @ x, w @ y
    slopes = (w @ (x * y) - sx * sy / sw) / (w @ (x * x) - sx**2 / sw)
    return float(np.std(slopes, ddof=1))


@dataclass(frozen=True)
class LackOfFit:
    """How well one straight probit line describes the models (the effective-robustness test assumes it does).

    ``r_squared``: of the probit fit. ``variance_ratio``: the fit's residual variance s^2 over the
    median binomial variance of a residual (delta method, both accuracies:
    Var Phi^-1(new) + slope^2 Var Phi^-1(orig)); about 1 when the models lie on the line up to
    test-set sampling noise. ``quadratic_f`` / ``quadratic_p``: the F test (1 and K - 3 degrees of
    freedom) of adding (Phi^-1(orig) - mean)^2 to the line: a curved relation.
    """

    r_squared: float
    variance_ratio: float
    quadratic_f: float
    quadratic_p: float


def lack_of_fit(fit: LinearFit, original: npt.ArrayLike, new: npt.ArrayLike, n_original: int, n_new: int) -> LackOfFit:
    """R^2, residual / binomial variance ratio and the quadratic-term F test of the probit fit ``fit``
    of ``new`` on ``original`` (the models it was fitted to; fractions)."""
    from scipy import stats

    orig, nw = np.asarray(original, float), np.asarray(new, float)
    x, y = probit(orig, n_original), probit(nw, n_new)
    binomial = _probit_variance(nw, n_new) + fit.slope**2 * _probit_variance(orig, n_original)
    design = np.column_stack([np.ones_like(x), x, (x - x.mean()) ** 2])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    rss_line, rss_curve = fit.residual_std**2 * (fit.n - 2), float(np.sum((y - design @ coef) ** 2))
    df = fit.n - 3
    f = (rss_line - rss_curve) / (rss_curve / df) if df > 0 and rss_curve > 0 else float("nan")
    p = float(stats.f.sf(f, 1, df)) if np.isfinite(f) else float("nan")
    return LackOfFit(fit.r_squared, float(fit.residual_std**2 / np.median(binomial)), float(f), p)


@dataclass(frozen=True)
class AccuracyTableAudit:
    """Recht et al.'s lens on an accuracy table. ``models``: one row per model (percent);
    ``linear``/``probit``: the fits; ``band``: x, the linear line and band, the probit line and
    band mapped back to accuracy (percent); ``lack_of_fit``: of the probit line. With a
    ``baseline`` subset: ``baseline`` is the probit line of those models alone (Taori et al.'s
    baseline) and ``baseline_lack_of_fit`` its check; ``models`` then has ``in_baseline`` and the
    effective robustness against it (``er_baseline*``)."""

    models: pd.DataFrame
    linear: LinearFit
    probit: LinearFit
    band: pd.DataFrame
    n_original: int
    n_new: int
    alpha: float
    band_level: float
    lack_of_fit: LackOfFit
    baseline: LinearFit | None = None
    baseline_lack_of_fit: LackOfFit | None = None
    paired: bool = False
    probit_slope_cluster_se: float | None = None


def _fit_lines(linear: LinearFit, pfit: LinearFit, low: float, n_new: int, level: float) -> pd.DataFrame:
    from scipy import stats

    x = np.linspace(max(low, 0.001), 0.999, 200)
    y, lo, hi = fit_band(linear, 100 * x, level)
    py, plo, phi = fit_band(pfit, stats.norm.ppf(x), level)
    cdf = stats.norm.cdf
    return pd.DataFrame(
        {
            "x": 100 * x,
            "linear_fit": y,
            "linear_band_low": lo,
            "linear_band_high": hi,
            "probit_fit": 100 * cdf(py),
            "probit_band_low": 100 * cdf(plo),
            "probit_band_high": 100 * cdf(phi),
        }
    )


def accuracy_table_audit(
    models: npt.ArrayLike,
    original: npt.ArrayLike,
    new: npt.ArrayLike,
    n_original: int,
    n_new: int,
    alpha: float = 0.05,
    band_level: float = 0.95,
    baseline: npt.ArrayLike | None = None,
    paired: bool = False,
    clusters: npt.ArrayLike | None = None,
) -> AccuracyTableAudit:
    """Intervals from the sizes, the gap, both fits with bands, effective robustness (fractions in),
    the probit line's lack of fit, and, given a ``baseline`` mask, the line of those models alone
    with every model's effective robustness against it. ``paired``: the new set is the original
    graded more strictly (same items and samples): each model's drop gets the paired test of
    [`paired_drop_test`][holdout.leaderboards.fits.paired_drop_test] (``drop_*`` columns).
    ``clusters`` (one label per model): the probit slope's cluster-bootstrap standard error
    ([`cluster_bootstrap_slope_se`][holdout.leaderboards.fits.cluster_bootstrap_slope_se]).

    Correct counts are round(accuracy * n) (a published accuracy is a count over n).
    """
    orig, nw = np.asarray(original, float), np.asarray(new, float)
    k_o, k_n = np.rint(orig * n_original), np.rint(nw * n_new)
    lo_o, hi_o = clopper_pearson_many(k_o, n_original, alpha)
    lo_n, hi_n = clopper_pearson_many(k_n, n_new, alpha)
    linear = linear_fit(100 * orig, 100 * nw)
    pfit = probit_fit(orig, nw, n_original, n_new)
    er = effective_robustness(pfit, orig, nw, n_original, n_new, alpha)
    table = pd.DataFrame(
        {
            "model": list(models),
            "orig_accuracy": 100 * orig,
            "orig_ci_low": 100 * lo_o,
            "orig_ci_high": 100 * hi_o,
            "new_accuracy": 100 * nw,
            "new_ci_low": 100 * lo_n,
            "new_ci_high": 100 * hi_n,
            "gap": 100 * (orig - nw),
            "linear_residual": 100 * nw - (linear.slope * 100 * orig + linear.intercept),
            "effective_robustness": 100 * er.value,
            "er_ci_low": 100 * er.low,
            "er_ci_high": 100 * er.high,
            "er_z": er.z,
            "er_p": er.p,
            "er_p_holm": er.p_holm,
            "er_significant": er.significant,
        }
    )
    band = _fit_lines(linear, pfit, float(orig.min()) - 0.02, n_new, band_level)
    lof = lack_of_fit(pfit, orig, nw, n_original, n_new)
    base_fit = base_lof = None
    if baseline is not None:
        mask = np.asarray(baseline, bool)
        base_fit = probit_fit(orig[mask], nw[mask], n_original, n_new)
        base_lof = lack_of_fit(base_fit, orig[mask], nw[mask], n_original, n_new)
        base_er = effective_robustness(base_fit, orig, nw, n_original, n_new, alpha)
        table["in_baseline"] = mask
        table["er_baseline"], table["er_baseline_p_holm"] = 100 * base_er.value, base_er.p_holm
        table["er_baseline_significant"] = base_er.significant
    if paired:
        if n_original != n_new:
            raise ValueError(f"a paired pair grades the same items: n_original {n_original} != n_new {n_new}")
        table["drop_items"], table["drop_p_holm"], table["drop_significant"] = paired_drop_test(orig, nw, n_new, alpha)
    cluster_se = None
    if clusters is not None:
        cluster_se = cluster_bootstrap_slope_se(probit(orig, n_original), probit(nw, n_new), clusters)
    return AccuracyTableAudit(
        table,
        linear,
        pfit,
        band,
        int(n_original),
        int(n_new),
        alpha,
        band_level,
        lof,
        base_fit,
        base_lof,
        paired,
        cluster_se,
    )
