"""Robustness checks of a split by date (contamination): is the drop below the line a property of the
cut-off, or of the models and items?

Each check reruns [`contamination`][holdout.leaderboards.dates.contamination] on a variant and
reports the placed models' count significantly below the line and their mean residual:

- ``line``: the line fitted to a named subset of the clean models (for example those whose
  vendor-documented cut-off precedes the first item, when the leaderboard's own dates are markers).
- ``placebo``: a split inside one period, where no cut-off falls. Only the items on one side of the
  real split are used, and the later models are placed as if their cut-off were the placebo date. A
  drop there is a drift of those models (or items) that no contamination explains.
- ``items``: the items of one group only (a platform, a difficulty).
- ``family``: the placed models of one family, read off the main split (several fine-tunes of one
  base model are not independent confirmations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from holdout.leaderboards.correctness import CorrectnessMatrix
from holdout.leaderboards.dates import Contamination, contamination

__all__ = ["check_row", "contamination_checks", "placebo_split"]


def check_row(check: str, result: Contamination, models: Sequence[str] | None = None) -> dict[str, object]:
    """One row: the line's size and slope, and the placed models' (or ``models``') count below the line
    and residuals (points)."""
    t = result.models
    placed = t[t["role"] == "placed"]
    if models is not None:
        placed = placed[placed["model"].isin(list(models))]
    return {
        "check": check,
        "items_original": result.n_original,
        "items_new": result.n_new,
        "line_models": result.fit.n,
        "line_slope": result.fit.slope,
        "line_r_squared": result.fit.r_squared,
        "placed_models": len(placed),
        "below_line": int(placed["below_line"].sum()),
        "mean_residual": float(placed["residual"].mean()),
        "min_residual": float(placed["residual"].min()),
        "max_residual": float(placed["residual"].max()),
    }


def placebo_split(
    c: CorrectnessMatrix,
    item_dates: np.ndarray,
    model_dates: np.ndarray,
    split: np.datetime64,
    placebo: np.datetime64,
    alpha: float = 0.05,
) -> Contamination:
    """The split at ``placebo`` using only the items on its side of the real ``split``, the models
    with a cut-off on or after ``split`` placed as if their cut-off were ``placebo``."""
    items, dates = np.asarray(item_dates), np.asarray(model_dates)
    keep = items < split if placebo < split else items >= split
    moved = np.where(dates >= split, np.datetime64(placebo, "D"), dates)
    sub = CorrectnessMatrix(c.model_names, c.values[:, keep], c.samples)
    return contamination(sub, items[keep], moved, placebo, alpha)


def contamination_checks(
    c: CorrectnessMatrix,
    item_dates: np.ndarray,
    model_dates: np.ndarray,
    split: np.datetime64,
    *,
    alpha: float = 0.05,
    line_models: Sequence[str] = (),
    placebos: Sequence[str] = (),
    item_groups: Mapping[str, np.ndarray] | None = None,
    families: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """The main split and every check of the module docstring, one row each."""
    split = np.datetime64(split, "D")
    main = contamination(c, item_dates, model_dates, split, alpha)
    rows = [check_row("main split", main)]
    if line_models:
        rows.append(
            check_row(
                "line: documented cut-offs", contamination(c, item_dates, model_dates, split, alpha, 0.95, line_models)
            )
        )
    for day in placebos:
        rows.append(
            check_row(
                f"placebo split {day}", placebo_split(c, item_dates, model_dates, split, np.datetime64(day, "D"), alpha)
            )
        )
    for name, mask in (item_groups or {}).items():
        sub = CorrectnessMatrix(c.model_names, c.values[:, mask], c.samples)
        rows.append(
            check_row(f"items: {name}", contamination(sub, np.asarray(item_dates)[mask], model_dates, split, alpha))
        )
    for name, members in (families or {}).items():
        rows.append(check_row(f"family: {name}", main, members))
    return pd.DataFrame(rows)
