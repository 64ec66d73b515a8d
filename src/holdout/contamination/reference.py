"""What should this model have scored? The reference-benchmark test of ConStat (Dekoninck et al. 2024).

Across K >= 5 reference models, fit the curve from accuracy on a reference benchmark (x) to accuracy
on the benchmark (y); predict each tested model's benchmark accuracy from its reference accuracy;
delta = benchmark - predicted. A model far above the curve did better on the benchmark than its
peers' performance elsewhere predicts: the signature of contamination (or of a real, benchmark-
specific skill: the test cannot tell them apart).

The uncertainty is a bootstrap (Dekoninck et al. 2024, Sec. 3, Algorithm 1): each replicate redraws
every accuracy (the items, or, from a table alone, Binomial(n, p) / n) and the reference models
(with replacement, at least 5 distinct; all of them when K = 5), refits the curve and records
delta*. ``delta`` is the mean of the delta*, its interval the basic bootstrap interval
2 delta - q*(1 - alpha / 2) .. 2 delta - q*(alpha / 2), and the one-sided p-value (H0: delta <= 0)
is ConStat's: the smallest level j / B at which the basic-bootstrap lower bound is >= 0, about the
fraction of replicates with delta* >= 2 delta (0 means below 1 / B). Holm's step-down over the
models tested, with 1 / B in place of a p-value of 0 (so with many models it needs B >> models /
alpha replicates to flag any).

Two curves ([`fit_curve`][holdout.contamination.reference.fit_curve]):

- ``spline`` (the default: it is ConStat's test, whose false-positive rate Dekoninck et al.
  checked in simulation, and it assumes only a monotone relation): the points of the reference
  models plus the random-guess point (R, B) are sorted on each axis separately (a monotone
  rearrangement: the i-th best reference accuracy is paired with the i-th best benchmark
  accuracy), ties in x dropped, and a cubic smoothing spline fitted with the GCV smoothing
  parameter; it is refitted with that parameter and two nearly weightless anchors (0, 0) and
  (1, 1) (weight 1e-8), and its prediction clipped to [0, 1].
- ``probit``: our line, Phi^-1(y') = a Phi^-1(x') + b by least squares over the reference models on
  chance-normalised accuracies x' = (x - R) / (1 - R), y' = (y - B) / (1 - B) ("accuracy on the
  line", Miller et al. 2021). Two parameters: steadier than the spline with few reference models,
  but wrong where the relation is not probit-linear.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from holdout.contamination.spline import gcv_lambda, smoothing_spline
from holdout.leaderboards.fits import holm

__all__ = [
    "MIN_REFERENCE_MODELS",
    "Draws",
    "ReferenceLens",
    "binomial_draws",
    "bootstrap_p_bound",
    "bootstrap_summary",
    "fit_curve",
    "format_bootstrap_p",
    "item_draws",
    "one_sided_lower",
    "reference_lens",
]

#: a replicate whose curve cannot be fitted is redrawn at most this many times before the lens gives up
MAX_REDRAWS = 1000

#: ConStat refuses fewer reference models (and fits on at least this many distinct points).
MIN_REFERENCE_MODELS = 5
_ANCHOR_WEIGHT = 1e-8
FITS = ("spline", "probit")


@dataclass(frozen=True)
class Draws:
    """Bootstrap replicates of every accuracy, shape (B, K) for the K reference models and (B, M)
    for the M tested models, on the reference benchmark (``x``) and the benchmark (``y``);
    ``kind``: 'item bootstrap' or 'parametric binomial bootstrap'; ``n_x`` / ``n_y``: item counts
    (for the noise of the random-guess point); ``redraw``: one fresh replicate (x_ref, y_ref,
    x_test, y_test rows) from the same law, for a replicate whose curve cannot be fitted."""

    x_ref: np.ndarray
    y_ref: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    kind: str
    n_x: int
    n_y: int
    redraw: Callable[[np.random.Generator], tuple[np.ndarray, ...]] | None = None


def binomial_draws(
    x_ref: npt.ArrayLike,
    y_ref: npt.ArrayLike,
    x_test: npt.ArrayLike,
    y_test: npt.ArrayLike,
    sizes: tuple[npt.ArrayLike, npt.ArrayLike],
    n_bootstrap: int,
    rng: np.random.Generator,
) -> Draws:
    """From a table alone: every accuracy p on n items redrawn as Binomial(n, p) / n, independently
    (the item bootstrap's marginal law; it ignores that models err on the same items). ``sizes``:
    (n of the reference benchmark, n of the benchmark), scalars or one per model (reference models
    first, then tested ones)."""
    x = np.concatenate([np.asarray(x_ref, float), np.asarray(x_test, float)])
    y = np.concatenate([np.asarray(y_ref, float), np.asarray(y_test, float)])
    n_x = np.broadcast_to(np.asarray(sizes[0], float), x.shape)
    n_y = np.broadcast_to(np.asarray(sizes[1], float), y.shape)
    k = np.asarray(x_ref).size

    def draw(size: int, g: np.random.Generator) -> tuple[np.ndarray, ...]:
        bx = g.binomial(n_x.astype(np.int64), np.clip(x, 0, 1), size=(size, x.size)) / n_x
        by = g.binomial(n_y.astype(np.int64), np.clip(y, 0, 1), size=(size, y.size)) / n_y
        return bx[:, :k], by[:, :k], bx[:, k:], by[:, k:]

    kind = "parametric binomial bootstrap"
    again = lambda g: tuple(a[0] for a in draw(1, g))  # noqa: E731
    return Draws(*draw(n_bootstrap, rng), kind, int(np.median(n_x)), int(np.median(n_y)), again)


def _item_means(scores: np.ndarray, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """(B, K) means of K models' per-item scores over B resamples of the items (the same items
    for every model)."""
    n = scores.shape[1]
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_bootstrap).astype(float)
    return counts @ scores.T / n


def item_draws(
    x_scores: npt.ArrayLike, y_scores: npt.ArrayLike, n_reference: int, n_bootstrap: int, rng: np.random.Generator
) -> Draws:
    """From per-item scores (models x items, reference models in the first ``n_reference`` rows):
    ConStat's item bootstrap, the items of each benchmark resampled with replacement, the same
    resample for every model."""
    xs, ys = np.asarray(x_scores, float), np.asarray(y_scores, float)
    if xs.shape[0] != ys.shape[0]:
        raise ValueError("the two score matrices need the same models (rows)")
    k = n_reference

    def draw(size: int, g: np.random.Generator) -> tuple[np.ndarray, ...]:
        bx, by = _item_means(xs, size, g), _item_means(ys, size, g)
        return bx[:, :k], by[:, :k], bx[:, k:], by[:, k:]

    again = lambda g: tuple(a[0] for a in draw(1, g))  # noqa: E731
    return Draws(*draw(n_bootstrap, rng), "item bootstrap", xs.shape[1], ys.shape[1], again)


def _spline_curve(x: np.ndarray, y: np.ndarray, chance: tuple[float, float]) -> Callable[[np.ndarray], np.ndarray]:
    xs = np.sort(np.append(x, chance[0]))
    ys = np.sort(np.append(y, chance[1]))
    keep = np.append(np.diff(xs) != 0, True)  # of tied x, the last (highest-ranked y) stays
    xs, ys = xs[keep], ys[keep]
    if xs.size < MIN_REFERENCE_MODELS:
        raise ValueError(f"{xs.size} distinct reference accuracies; the spline needs {MIN_REFERENCE_MODELS}")
    lam = gcv_lambda(xs, ys)
    low, high = ([0.0] if xs[0] > 0 else []), ([1.0] if xs[-1] < 1 else [])
    w = np.concatenate([[_ANCHOR_WEIGHT] * len(low), np.ones_like(xs), [_ANCHOR_WEIGHT] * len(high)])
    xs, ys = np.concatenate([low, xs, high]), np.concatenate([low, ys, high])
    spline = smoothing_spline(xs, ys, w, lam)
    return lambda t: np.clip(spline(t), 0.0, 1.0)


def _probit_curve(
    x: np.ndarray, y: np.ndarray, chance: tuple[float, float], n: tuple[int, int]
) -> Callable[[np.ndarray], np.ndarray]:
    from scipy.special import ndtr, ndtri

    def z(v: np.ndarray, c: float, size: int) -> np.ndarray:
        half = 0.5 / size
        return ndtri(np.clip((np.asarray(v, float) - c) / (1 - c), half, 1 - half))

    slope, intercept = np.polyfit(z(x, chance[0], n[0]), z(y, chance[1], n[1]), 1)
    return lambda t: chance[1] + (1 - chance[1]) * ndtr(slope * z(t, chance[0], n[0]) + intercept)


def fit_curve(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    fit: str = "spline",
    chance: tuple[float, float] = (0.0, 0.0),
    sizes: tuple[int, int] = (1000, 1000),
) -> Callable[[np.ndarray], np.ndarray]:
    """The curve y = f(x) through the reference models' accuracies (fractions): ConStat's
    ``spline`` or our ``probit`` line (module docstring). ``chance``: random-guess accuracy on
    (reference benchmark, benchmark); ``sizes``: item counts (the probit clip at 1 / (2n))."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if fit == "spline":
        return _spline_curve(x, y, chance)
    if fit == "probit":
        return _probit_curve(x, y, chance, sizes)
    raise ValueError(f"fit must be one of {FITS}, got {fit!r}")


@dataclass(frozen=True)
class ReferenceLens:
    """``models``: one row per tested model: ``model``, ``reference``, ``benchmark`` (observed),
    ``predicted`` (benchmark - delta), ``delta``, ``delta_low``, ``delta_high`` (two-sided 1 - alpha),
    ``delta_lower`` (the one-sided 1 - alpha lower bound: >= 0 exactly when p_value <= alpha),
    ``p_value`` (one-sided, unadjusted; 0 means below 1 / B), ``p_holm``, ``significant``
    (p_holm <= alpha); ``curve``: x and the fitted curve on the observed accuracies with its
    pointwise bootstrap band; the settings; ``redrawn``: how many
    replicates were redrawn because their curve could not be fitted (ConStat does the same)."""

    models: pd.DataFrame
    curve: pd.DataFrame
    fit: str
    bootstrap: str
    n_bootstrap: int
    n_reference: int
    alpha: float
    redrawn: int = 0


def bootstrap_summary(deltas: npt.ArrayLike, alpha: float = 0.05) -> tuple[np.ndarray, ...]:
    """Per column of replicates delta* (B, M): the mean, the basic bootstrap 1 - alpha interval
    2 mean - q*(1 - alpha / 2) .. 2 mean - q*(alpha / 2), and ConStat's one-sided p-value of
    H0: delta <= 0, the smallest j / B with 2 mean - q*(1 - j / B) >= 0 (q* linear-interpolated
    quantiles): about the fraction of replicates with delta* >= 2 mean."""
    d = np.asarray(deltas, dtype=float)
    b = d.shape[0]
    mean = d.mean(axis=0)
    q_low, q_high = np.quantile(d, [alpha / 2, 1 - alpha / 2], axis=0)
    levels = 1 - np.arange(b) / b
    reached = 2 * mean - np.quantile(d, levels, axis=0) >= 0  # (B, M), monotone in j
    p = np.where(reached.any(axis=0), np.argmax(reached, axis=0) / b, 1.0)
    return mean, 2 * mean - q_high, 2 * mean - q_low, p


def one_sided_lower(deltas: npt.ArrayLike, alpha: float = 0.05) -> np.ndarray:
    """Per column of replicates delta* (B, M): the one-sided 1 - alpha basic-bootstrap lower bound
    2 mean - q*(1 - alpha) (ConStat's ``min_delta``). It is >= 0 exactly when ConStat's one-sided
    p-value (see [`bootstrap_summary`][holdout.contamination.reference.bootstrap_summary]) is at
    most alpha, so bound and test agree; the two-sided interval does not (a model can be flagged while
    its two-sided interval holds 0). Per model, unadjusted."""
    d = np.asarray(deltas, dtype=float)
    return 2 * d.mean(axis=0) - np.quantile(d, 1 - alpha, axis=0)


def bootstrap_p_bound(p: npt.ArrayLike, resamples: int) -> np.ndarray:
    """A bootstrap p-value of 0 only says p < 1 / B: the value to carry on (Holm, a table) is 1 / B,
    never less; other p-values unchanged."""
    return np.maximum(np.asarray(p, dtype=float), 1.0 / int(resamples))


def format_bootstrap_p(p: float, resamples: int) -> str:
    """A bootstrap p-value as text: "< 1/B" (as a number, e.g. "< 0.001" at B = 1000) for 0, else 3
    significant digits."""
    return f"< {1.0 / int(resamples):.3g}" if p <= 0 else f"{p:.3g}"


def _model_sample(k: int, rng: np.random.Generator) -> np.ndarray:
    """Reference models resampled with replacement, at least 5 distinct (all of them when K = 5)."""
    if k == MIN_REFERENCE_MODELS:
        return np.arange(k)
    while True:
        idx = rng.integers(0, k, k)
        if np.unique(idx).size >= MIN_REFERENCE_MODELS:
            return idx


def _replicate(
    rows: tuple[np.ndarray, ...],
    fit: str,
    chance: tuple[float, float],
    sizes: tuple[int, int],
    rng: np.random.Generator,
) -> Callable[[np.ndarray], np.ndarray]:
    """The curve of one replicate (x_ref, y_ref rows first): reference models resampled, the
    random-guess point drawn with its binomial noise; ValueError where the curve cannot be fitted."""
    k = rows[0].size
    sd = np.sqrt(np.multiply(chance, np.subtract(1, chance)) / np.array(sizes))
    idx = _model_sample(k, rng)
    guess = (chance[0] + rng.normal(0, sd[0]), chance[1] + rng.normal(0, sd[1]))
    return fit_curve(rows[0][idx], rows[1][idx], fit, guess, sizes)


def _replicates(
    draws: Draws, fit: str, chance: tuple[float, float], grid: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, int]:
    """delta* (B, M), the curve on ``grid`` (B, len(grid)) of every replicate, and how many were
    redrawn: a replicate whose curve cannot be fitted (fewer than 5 distinct reference accuracies)
    is drawn again from the same law, as ConStat's ``detection.py`` does (``i -= 1; continue``)."""
    b = draws.x_ref.shape[0]
    deltas = np.empty((b, draws.x_test.shape[1]))
    curves = np.empty((b, grid.size))
    sizes = (draws.n_x, draws.n_y)
    redrawn = 0
    for i in range(b):
        rows = (draws.x_ref[i], draws.y_ref[i], draws.x_test[i], draws.y_test[i])
        for attempt in range(MAX_REDRAWS + 1):
            try:
                f = _replicate(rows, fit, chance, sizes, rng)
                break
            except ValueError as exc:
                if attempt == MAX_REDRAWS:
                    raise ValueError(f"{exc} in {MAX_REDRAWS} redraws of one bootstrap replicate") from None
                redrawn += 1
                rows = draws.redraw(rng) if draws.redraw is not None else rows
        deltas[i] = rows[3] - f(rows[2])
        curves[i] = f(grid)
    return deltas, curves, redrawn


def reference_lens(
    models: npt.ArrayLike,
    reference: npt.ArrayLike,
    benchmark: npt.ArrayLike,
    is_reference: npt.ArrayLike,
    draws: Draws,
    fit: str = "spline",
    chance: tuple[float, float] = (0.0, 0.0),
    alpha: float = 0.05,
    seed: int = 0,
    tested: npt.ArrayLike | None = None,
) -> ReferenceLens:
    """ConStat's test of the ``tested`` rows, by default every model not in the reference set
    (fractions in; module docstring).

    ``draws`` are the replicates ([`binomial_draws`][holdout.contamination.reference.binomial_draws]
    or [`item_draws`][holdout.contamination.reference.item_draws]) of the reference rows and of the
    tested rows, each in the table's order. A reference row may be tested too (its own point then
    stays in the curve, as in ConStat's published tables).
    """
    is_ref = np.asarray(is_reference, bool)
    if is_ref.sum() < MIN_REFERENCE_MODELS:
        raise ValueError(f"{int(is_ref.sum())} reference models; ConStat's test needs at least {MIN_REFERENCE_MODELS}")
    if fit not in FITS:
        raise ValueError(f"fit must be one of {FITS}, got {fit!r}")
    x, y = np.asarray(reference, float), np.asarray(benchmark, float)
    grid = np.linspace(max(0.0, x.min() - 0.05), min(1.0, x.max() + 0.05), 101)
    deltas, curves, redrawn = _replicates(draws, fit, chance, grid, np.random.default_rng(seed))
    mean, low, high, p = bootstrap_summary(deltas, alpha)
    # a p-value of 0 only says p < 1 / B: Holm gets 1 / B for it, never more than the bootstrap resolves
    p_holm = holm(bootstrap_p_bound(p, deltas.shape[0])) if p.size else p
    tested = ~is_ref if tested is None else np.asarray(tested, bool)
    table = pd.DataFrame(
        {
            "model": np.asarray(models, dtype=object)[tested],
            "reference": x[tested],
            "benchmark": y[tested],
            "predicted": y[tested] - mean,
            "delta": mean,
            "delta_low": low,
            "delta_high": high,
            "delta_lower": one_sided_lower(deltas, alpha),
            "p_value": p,
            "p_holm": p_holm,
            "significant": p_holm <= alpha,
        }
    )
    observed = fit_curve(x[is_ref], y[is_ref], fit, chance, (draws.n_x, draws.n_y))(grid)
    lo, hi = np.quantile(curves, [alpha / 2, 1 - alpha / 2], axis=0)
    curve = pd.DataFrame({"x": grid, "fit": observed, "band_low": lo, "band_high": hi})
    return ReferenceLens(table, curve, fit, draws.kind, deltas.shape[0], int(is_ref.sum()), alpha, redrawn)
