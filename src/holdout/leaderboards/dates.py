"""Fresh items by date: Recht et al.'s new-test-set setting made from time (contamination).

Items released before a split date form the "original" test set, items released on or after it
the "new" one. Models whose training cut-off precedes the *first* item have seen none of them;
their (original, new) accuracies define the line of new on original accuracy (Recht et al. 2018
Eq. 3, with its band). Every model whose cut-off falls on or after the split is placed against that
line: a model that trained on the original items scores higher there than its skill predicts, so
it lies below the line. Models whose cut-off falls inside the original period (after the first
item, before the split) may have trained on part of the original items: they are neither on the
line nor placed (``excluded``), so they cannot lower the line and hide contamination.

The verdict ``below_line`` is a one-sided test against the line's prediction interval
t_{N-2} s sqrt(1 + 1/N + (x - x_bar)^2 / Sxx), Holm-corrected over the placed models: a heuristic
test (the scatter of the line's own models is the reference). A model below the line is
*consistent with* contamination; a drift specific to a model family or item type can do the same.
``detectable_drop`` says how far below the line's prediction a model must lie, at the line's mean
accuracy, to be flagged by the first Holm step (the test's reach with these sizes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessError, CorrectnessMatrix, accuracy_intervals
from holdout.leaderboards.fits import holm
from holdout.stats import LinearFit, fit_band, linear_fit

__all__ = ["Contamination", "contamination", "parse_date", "read_dates"]


def parse_date(text: object, what: str) -> np.datetime64:
    """A calendar day (``YYYY-MM-DD``) as numpy datetime64[D]; one clear line otherwise."""
    try:
        return np.datetime64(pd.Timestamp(str(text)).date(), "D")
    except (ValueError, TypeError):
        raise CorrectnessError(f"{what}: {text!r} is not a date (use YYYY-MM-DD)") from None


def read_dates(path: str | Path, names: tuple[str, ...] | list[str], what: str) -> np.ndarray:
    """Dates of ``names`` (items or models) from a two-column CSV (name, YYYY-MM-DD), in order."""
    path = Path(path)
    if not path.is_file():
        raise CorrectnessError(f"{path}: {what} dates file not found")
    df = pd.read_csv(path, dtype=str)
    if df.shape[1] != 2:
        raise CorrectnessError(f"{path}: expected two columns ({what}, date), got {df.shape[1]}")
    key, date = df.columns
    if df[key].duplicated().any():
        raise CorrectnessError(f"{path}: duplicate {what} {df[key][df[key].duplicated()].iloc[0]!r}")
    table = dict(zip(df[key], df[date]))
    missing = [n for n in names if n not in table]
    if missing:
        raise CorrectnessError(f"{path}: no date for {what} {missing[0]!r} ({len(missing)} missing)")
    return np.array([parse_date(table[n], f"{path} ({what} {n})") for n in names], dtype="datetime64[D]")


@dataclass(frozen=True)
class Contamination:
    """The split, the line of the clean models, and every model's place against it.

    ``models``: model, cutoff, role ('line', 'placed' or 'excluded'), orig_/new_ accuracy and
    interval (percent), predicted (line at orig), pred_low/pred_high (prediction interval),
    residual, p (one-sided, below), p_holm, below_line. ``band``: x, fit, band_low, band_high,
    pred_low, pred_high. ``detectable_drop``: points below the prediction, at the line's mean
    accuracy, that the first Holm step needs.
    """

    split: np.datetime64
    n_original: int
    n_new: int
    fit: LinearFit
    models: pd.DataFrame
    band: pd.DataFrame
    alpha: float
    detectable_drop: float


def _side(c: CorrectnessMatrix, mask: np.ndarray, prefix: str, alpha: float) -> pd.DataFrame:
    sub = CorrectnessMatrix(c.model_names, c.values[:, mask], c.samples)
    acc = accuracy_intervals(sub, alpha)[["accuracy", "ci_low", "ci_high"]]
    return acc.add_prefix(f"{prefix}_")


def _prediction(fit: LinearFit, x: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from scipy import stats

    y = fit.slope * x + fit.intercept
    scale = fit.residual_std * np.sqrt(1 + 1 / fit.n + (x - fit.x_mean) ** 2 / fit.sxx)
    half = stats.t.ppf((1 + level) / 2, fit.n - 2) * scale
    return y, scale, half


def contamination(
    c: CorrectnessMatrix,
    item_dates: np.ndarray,
    model_dates: np.ndarray,
    split: np.datetime64,
    alpha: float = 0.05,
    band_level: float = 0.95,
    line_models: Sequence[str] | None = None,
) -> Contamination:
    """Split the items at ``split``, fit the line on the models with a cut-off before the first item
    (>= 3 needed; only those among ``line_models`` when given), place the models with a cut-off on
    or after the split with a one-sided Holm-corrected test, exclude the rest (module docstring)."""
    from scipy import stats

    split = np.datetime64(split, "D")
    old = np.asarray(item_dates) < split
    if old.all() or not old.any():
        raise CorrectnessError(f"--split {split}: needs items both before and on/after it ({old.sum()} before)")
    t = pd.concat([_side(c, old, "orig", alpha), _side(c, ~old, "new", alpha)], axis=1)
    t.insert(0, "model", list(c.model_names))
    t.insert(1, "cutoff", np.asarray(model_dates).astype(str))
    first = np.asarray(item_dates).min()
    line = np.asarray(model_dates) < first
    placed = np.asarray(model_dates) >= split
    if line_models is not None:
        line &= np.isin(np.asarray(c.model_names), list(line_models))
    t.insert(2, "role", np.where(line, "line", np.where(placed, "placed", "excluded")))
    if line.sum() < 3:
        raise CorrectnessError(
            f"--split {split}: {line.sum()} model(s) with a cut-off before the first item ({first}); the line needs 3"
        )
    fit = linear_fit(t["orig_accuracy"][line], t["new_accuracy"][line])
    x = t["orig_accuracy"].to_numpy()
    y, scale, half = _prediction(fit, x, band_level)
    t["predicted"], t["pred_low"], t["pred_high"] = y, y - half, y + half
    t["residual"] = t["new_accuracy"] - y
    p = stats.t.cdf(t["residual"] / scale, fit.n - 2)
    t["p"] = np.where(placed, p, np.nan)
    t["p_holm"] = np.nan
    if placed.any():
        t.loc[placed, "p_holm"] = holm(p[placed])
    t["below_line"] = placed & (t["p_holm"] <= alpha)
    reach = stats.t.ppf(1 - alpha / max(int(placed.sum()), 1), fit.n - 2) * fit.residual_std * np.sqrt(1 + 1 / fit.n)
    grid = np.linspace(max(0.0, x.min() - 2), min(100.0, x.max() + 2), 101)
    fy, lo, hi = fit_band(fit, grid, band_level)
    _, _, ph = _prediction(fit, grid, band_level)
    band = pd.DataFrame(
        {"x": grid, "fit": fy, "band_low": lo, "band_high": hi, "pred_low": fy - ph, "pred_high": fy + ph}
    )
    return Contamination(split, int(old.sum()), int((~old).sum()), fit, t, band, alpha, float(reach))
