"""Figures of the CIFAR-10.1 study (Recht et al. 2018)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = ["figure2", "plot_figure2", "plot_new_vs_original"]

POINTS = "tab:blue"
LINE = "tab:red"

FIGURE2_TITLE = "CIFAR-10: new test set (v4) vs original test set"


def plot_figure2(points: pd.DataFrame, line: pd.DataFrame, *, band_level: float = 0.95) -> Figure:
    """Recht et al. Figure 2 of the 30 published models ([`figure2`][holdout.cifar10_1.plots.figure2] with the paper's
    title)."""
    return figure2(points, line, band_level=band_level)


def figure2(
    points: pd.DataFrame,
    line: pd.DataFrame,
    *,
    band_level: float = 0.95,
    title: str = FIGURE2_TITLE,
    new_label: str = "New test accuracy (%)",
) -> Figure:
    """Recht et al. Figure 2: new vs original test accuracy of a set of models.

    ``points``: columns ``orig_accuracy, orig_ci_low, orig_ci_high, new_accuracy,
    new_ci_low, new_ci_high`` (percent). ``line``: columns ``x, fit, band_low, band_high``
    (the least-squares line and its confidence band).
    """
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    lo = min(points["orig_ci_low"].min(), points["new_ci_low"].min()) - 1
    hi = max(points["orig_ci_high"].max(), points["new_ci_high"].max()) + 1
    ax.plot([lo, 100], [lo, 100], ls="--", color="0.35", lw=1, label="y = x")
    ax.fill_between(
        line["x"],
        line["band_low"],
        line["band_high"],
        color="tab:red",
        alpha=0.2,
        lw=0,
        label=f"{100 * band_level:.0f}% confidence band",
    )
    ax.plot(line["x"], line["fit"], color="tab:red", lw=1.5, label="Linear fit")
    ax.errorbar(
        points["orig_accuracy"],
        points["new_accuracy"],
        xerr=[points["orig_accuracy"] - points["orig_ci_low"], points["orig_ci_high"] - points["orig_accuracy"]],
        yerr=[points["new_accuracy"] - points["new_ci_low"], points["new_ci_high"] - points["new_accuracy"]],
        fmt="o",
        ms=3.5,
        color="tab:blue",
        ecolor="tab:blue",
        elinewidth=0.8,
        capsize=0,
        label="Model accuracy (95% Clopper-Pearson)",
    )
    ax.set_xlim(points["orig_ci_low"].min() - 1, 100)
    ax.set_ylim(points["new_ci_low"].min() - 2, min(hi, 100))
    ax.set_xlabel("Original test accuracy (%)")
    ax.set_ylabel(new_label)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def plot_new_vs_original(
    points: pd.DataFrame,
    band: pd.DataFrame | None,
    *,
    title: str,
    xlabel: str = "Original test accuracy (%)",
    ylabel: str = "New test accuracy (%)",
    band_level: float = 0.95,
    groups: pd.Series | None = None,
) -> Figure:
    """Recht et al. Figure 2 for any pair of test sets: new vs original accuracy with interval bars,
    the least-squares line and its band, and y = x.

    ``points``: columns orig_accuracy, orig_ci_low, orig_ci_high, new_accuracy, new_ci_low,
    new_ci_high (percent). ``band``: x, fit, band_low, band_high, or None (no line). ``groups``:
    optional label per point (e.g. convolutional / Fisher vectors), one colour each.
    """
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    lo_x = max(0.0, points["orig_ci_low"].min() - 2)
    lo_y = max(0.0, points["new_ci_low"].min() - 2)
    ax.plot([lo_x, 100], [lo_x, 100], ls="--", color="0.35", lw=1, label="y = x")
    if band is not None:
        ax.fill_between(
            band["x"],
            band["band_low"],
            band["band_high"],
            color=LINE,
            alpha=0.2,
            lw=0,
            label=f"{100 * band_level:.0f}% confidence band",
        )
        ax.plot(band["x"], band["fit"], color=LINE, lw=1.5, label="Linear fit")
    labels = (
        pd.Series(["Model accuracy (95% Clopper-Pearson)"] * len(points), index=points.index)
        if groups is None
        else groups
    )
    for i, (name, part) in enumerate(points.groupby(labels.to_numpy(), sort=False)):
        colour = POINTS if i == 0 else f"C{i + 1}"
        ax.errorbar(
            part["orig_accuracy"],
            part["new_accuracy"],
            xerr=[part["orig_accuracy"] - part["orig_ci_low"], part["orig_ci_high"] - part["orig_accuracy"]],
            yerr=[part["new_accuracy"] - part["new_ci_low"], part["new_ci_high"] - part["new_accuracy"]],
            fmt="o",
            ms=3.5,
            color=colour,
            ecolor=colour,
            elinewidth=0.8,
            capsize=0,
            label=name,
        )
    hi = max(points["orig_ci_high"].max(), points["new_ci_high"].max())
    ax.set_xlim(lo_x, min(100, points["orig_ci_high"].max() + 2))
    ax.set_ylim(lo_y, min(100, hi + 2))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
