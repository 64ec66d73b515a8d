"""Figures of ``holdout audit``: one function per figure, each returning the figure.

The similarity figures (Mania et al. Fig. 1a, Fig. 4, covering numbers) are those of
[`holdout.similarity.plots`][holdout.similarity.plots]; here are the accuracy chart, the new-vs-original figure in the
style of Recht et al. Figure 2 (any test-set pair) and the testable-models chart.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from holdout.audit.core import BoundsLens
from holdout.cifar10_1.plots import plot_new_vs_original

__all__ = ["plot_accuracies", "plot_new_vs_original", "plot_testable_models"]

POINTS = "tab:blue"
LINE = "tab:red"


def plot_accuracies(acc: pd.DataFrame, title: str, max_models: int = 40) -> Figure:
    """Accuracy of each model with its Clopper-Pearson interval, best first (at most ``max_models``)."""
    shown = acc.head(max_models).iloc[::-1]
    y = np.arange(len(shown))
    fig, ax = plt.subplots(figsize=(5.6, 1.2 + 0.22 * len(shown)))
    ax.errorbar(
        shown["accuracy"],
        y,
        xerr=[shown["accuracy"] - shown["ci_low"], shown["ci_high"] - shown["accuracy"]],
        fmt="o",
        ms=3.5,
        color=POINTS,
        elinewidth=1,
        capsize=2,
    )
    ax.set_yticks(y, shown["model"], fontsize=7 if len(shown) > 20 else 8)
    ax.set_xlabel("Test accuracy (%), 95% Clopper-Pearson interval")
    more = f" (best {max_models} of {len(acc)})" if len(acc) > max_models else ""
    ax.set_title(title + more)
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig


def plot_testable_models(tm: BoundsLens, models_used: int, title: str) -> Figure:
    """Testable models under the union, similarity and naive-Bayes bounds (log scale) and the K used
    (a bound that does not apply is drawn as 0)."""
    names = ["union (2)", "similarity (3)+(8)", "naive Bayes (A1)"]
    values = np.array([tm.union_k, tm.similarity_k or 0, tm.naive_bayes_k or 0], dtype=float)
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    ax.bar(names, np.maximum(values, 0.5), color=[POINTS, "tab:green", "tab:purple"])
    for i, v in enumerate(values):
        ax.text(i, max(v, 0.5) * 1.3, f"{v:.3g}" if v >= 1e6 else f"{int(v):,}", ha="center", fontsize=8)
    ax.axhline(models_used, color=LINE, ls="--", lw=1.2, label=f"models evaluated K = {models_used}")
    ax.set_yscale("log")
    ax.set_ylim(0.5, max(values.max(), models_used) * 20)
    ax.set_ylabel(f"Testable models at eps = {tm.eps:g}, delta = {tm.delta:g}")
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y", which="both")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig
