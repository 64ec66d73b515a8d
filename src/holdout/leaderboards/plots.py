"""Figures of the leaderboards study: one function per figure, each returning the figure.

* [`plot_fits`][holdout.leaderboards.plots.plot_fits]: new vs original accuracy of every model,
  the linear and the probit fit with their bands, y = x (Recht et al. 2019 Figure 1 style).
* [`plot_effective_robustness`][holdout.leaderboards.plots.plot_effective_robustness]: each
  model's distance to the probit line with its interval, Holm-significant models marked.
* [`plot_contamination`][holdout.leaderboards.plots.plot_contamination]: the line of the clean
  models with its band and prediction interval, the later models placed against it.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from holdout.leaderboards.dates import Contamination
from holdout.leaderboards.fits import AccuracyTableAudit

__all__ = ["plot_contamination", "plot_effective_robustness", "plot_fits"]


def plot_fits(audit: AccuracyTableAudit, title: str, xlabel: str, ylabel: str) -> Figure:
    """Points (with intervals when few), linear and probit lines with their bands, y = x."""
    t, b = audit.models, audit.band
    fig, ax = plt.subplots(figsize=(5.5, 5))
    many = len(t) > 200
    ax.errorbar(
        t["orig_accuracy"],
        t["new_accuracy"],
        xerr=None if many else [t["orig_accuracy"] - t["orig_ci_low"], t["orig_ci_high"] - t["orig_accuracy"]],
        yerr=None if many else [t["new_accuracy"] - t["new_ci_low"], t["new_ci_high"] - t["new_accuracy"]],
        fmt="o",
        ms=2 if many else 4,
        alpha=0.5 if many else 0.9,
        color="tab:blue",
        label=f"{len(t):,} models" + ("" if many else f" ({100 * (1 - audit.alpha):.0f}% CP)"),
    )
    lin, pro = audit.linear, audit.probit
    ax.plot(b["x"], b["linear_fit"], color="k", lw=1, label=f"linear fit: {lin.slope:.2f} x {lin.intercept:+.1f}")
    ax.fill_between(b["x"], b["linear_band_low"], b["linear_band_high"], color="k", alpha=0.15, lw=0)
    ax.plot(
        b["x"], b["probit_fit"], color="tab:red", lw=1.2, label=f"probit fit: {pro.slope:.2f} z {pro.intercept:+.2f}"
    )
    ax.fill_between(b["x"], b["probit_band_low"], b["probit_band_high"], color="tab:red", alpha=0.2, lw=0)
    ax.plot([0, 100], [0, 100], color="grey", ls="--", lw=0.8, label="y = x")
    lo = max(0.0, min(t["orig_accuracy"].min(), t["new_accuracy"].min()) - 3)
    ax.set(xlim=(lo, 100), ylim=(lo, 100), xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return fig


def plot_effective_robustness(audit: AccuracyTableAudit, title: str, xlabel: str) -> Figure:
    """Effective robustness (percentage points) against original accuracy, intervals, Holm marks."""
    t = audit.models
    sig = t["er_significant"].to_numpy(bool)
    fig, ax = plt.subplots(figsize=(5.6, 4))
    for mask, color, label in ((~sig, "tab:grey", "not significant"), (sig, "tab:red", "significant (Holm)")):
        part = t[mask]
        ax.errorbar(
            part["orig_accuracy"],
            part["effective_robustness"],
            yerr=[part["effective_robustness"] - part["er_ci_low"], part["er_ci_high"] - part["effective_robustness"]],
            fmt="o",
            ms=2,
            lw=0.5,
            alpha=0.6,
            color=color,
            label=f"{label}: {int(mask.sum()):,}",
        )
    ax.axhline(0, color="k", lw=0.8)
    ax.set(xlabel=xlabel, ylabel="effective robustness (pp, to the probit fit)", title=title)
    ax.legend(loc="best", fontsize=8, frameon=False)
    return fig


def plot_contamination(result: Contamination, title: str) -> Figure:
    """New vs original accuracy: the clean models' line, band and prediction interval; later
    models placed against it, those significantly below it in red (one-sided, Holm; consistent
    with contamination), models with a cut-off inside the original period grey (excluded)."""
    t, b = result.models, result.band
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot(b["x"], b["fit"], color="k", lw=1, label=f"line of {result.fit.n} clean models")
    ax.fill_between(b["x"], b["band_low"], b["band_high"], color="k", alpha=0.2, lw=0, label="band of the line")
    ax.fill_between(b["x"], b["pred_low"], b["pred_high"], color="k", alpha=0.07, lw=0, label="prediction interval")
    groups = (
        (t["role"] == "line", "tab:blue", "cut-off before the first item"),
        (t["role"] == "excluded", "tab:grey", "cut-off inside the original period (excluded)"),
        ((t["role"] == "placed") & ~t["below_line"], "tab:orange", "later, on the line"),
        (t["below_line"].astype(bool), "tab:red", "later, significantly below (heuristic)"),
    )
    for mask, color, label in groups:
        part = t[np.asarray(mask, bool)]
        if part.empty:
            continue
        ax.errorbar(
            part["orig_accuracy"],
            part["new_accuracy"],
            xerr=[part["orig_accuracy"] - part["orig_ci_low"], part["orig_ci_high"] - part["orig_accuracy"]],
            yerr=[part["new_accuracy"] - part["new_ci_low"], part["new_ci_high"] - part["new_accuracy"]],
            fmt="o",
            ms=3.5,
            lw=0.6,
            color=color,
            label=f"{label} ({len(part)})",
        )
    ax.plot([0, 100], [0, 100], color="grey", ls="--", lw=0.8, label="y = x")
    top = float(np.nanmax(t[["orig_ci_high", "new_ci_high"]].to_numpy())) + 3
    ax.set(
        xlim=(0, top),
        ylim=(0, top),
        xlabel=f"accuracy on the {result.n_original} items before {result.split} (%)",
        ylabel=f"accuracy on the {result.n_new} items from {result.split} on (%)",
        title=title,
    )
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return fig
