"""Recht et al. (2018) Table 1, Eq. (3) and Figure 2 for the checkpoints of our own random search:
the CIFAR-10 test set (original) against a CIFAR-10.1 set (new), the same checkpoints in both files.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from holdout.cifar10_1.recht import table1
from holdout.predictions import Predictions
from holdout.runlog import timed
from holdout.search_analysis.checkpoints import final_checkpoints
from holdout.stats import LinearFit, accuracy_table, fit_band, linear_fit

__all__ = ["recht_comparison", "recht_figure2_frames", "search_recht"]


def recht_comparison(
    original: Predictions,
    new: Predictions,
    alpha: float = 0.05,
    checkpoints: str = "final",
    min_accuracy: float = 0.0,
) -> tuple[pd.DataFrame, LinearFit]:
    """Recht et al. (2018) Table 1 and Eq. (3) for our checkpoints: original vs new test set.

    Uses the checkpoints present in both files (``checkpoints="final"``: each model's last one;
    ``"all"``: every one) whose original accuracy is >= ``min_accuracy``; accuracies with
    Clopper-Pearson intervals, gap and Delta Rank ([`holdout.cifar10_1.recht.table1`][holdout.cifar10_1.recht.table1]),
    and the least-squares line of new on original accuracy (percent). Needs 3 checkpoints.
    """
    if checkpoints not in ("final", "all"):
        raise ValueError(f"checkpoints must be 'final' or 'all', got {checkpoints!r}")
    common = [m for m in original.model_names if m in set(new.model_names)]
    if checkpoints == "final":
        common = final_checkpoints(common)
    acc = original.subset(common).accuracies() if common else np.zeros(0)
    names = [m for m, a in zip(common, acc) if a >= min_accuracy]
    if len(names) < 3:
        raise ValueError(
            f"{original.test_set} vs {new.test_set}: {len(names)} checkpoints in both files "
            f"({checkpoints}, accuracy >= {min_accuracy}); the linear fit needs at least 3"
        )
    t1 = table1(accuracy_table(original.subset(names), alpha), accuracy_table(new.subset(names), alpha))
    return t1, linear_fit(t1["orig_accuracy"], t1["new_accuracy"])


_FIGURE2_POINTS = ["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]


def recht_figure2_frames(t1: pd.DataFrame, fit: LinearFit, band_level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points (accuracies with intervals) and the line (fit, ``band_level`` band, y = x on 201
    x from 1 below the lowest interval to 100) of Recht et al. (2018) Figure 2 for
    [`recht_comparison`][holdout.search_analysis.recht.recht_comparison]."""
    x = np.linspace(t1.orig_ci_low.min() - 1, 100, 201)
    y, lo, hi = fit_band(fit, x, band_level)
    return t1[_FIGURE2_POINTS], pd.DataFrame({"x": x, "fit": y, "band_low": lo, "band_high": hi, "y_equals_x": x})


def search_recht(
    original: Predictions, new: Predictions, cfg: Mapping[str, Any], log: logging.Logger | None = None
) -> tuple[pd.DataFrame, LinearFit, pd.DataFrame, pd.DataFrame]:
    """[`recht_comparison`][holdout.search_analysis.recht.recht_comparison] and
    [`recht_figure2_frames`][holdout.search_analysis.recht.recht_figure2_frames] with ``search_analysis.recht``
    (``alpha``, ``checkpoints``, ``min_accuracy``, ``fit_band_level``): (Table 1, fit, points, line)."""
    log = log or logging.getLogger("holdout")
    with timed(log, f"Table 1 and Eq. (3), {new.test_set}"):
        t1, fit = recht_comparison(original, new, cfg["alpha"], cfg["checkpoints"], cfg["min_accuracy"])
    points, line = recht_figure2_frames(t1, fit, cfg["fit_band_level"])
    log.info(
        "%d checkpoints; acc_new = (%.3f +- %.3f) acc_orig + (%.2f +- %.2f)%% (published models: 1.62, -65.51)",
        *(len(t1), fit.slope, fit.slope_se, fit.intercept, fit.intercept_se),
    )
    return t1, fit, points, line
