"""Figures of the bounds study (Mania et al. 2019, Figures 1b and 2).

One function per figure; each takes the table the study wrote (the CSV beside the figure)
and returns a matplotlib Figure, so every plotted value is in that CSV.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = ["figure1b", "figure2"]

_COLORS = {"union": "#7f7f7f", "sb": "#1f77b4", "nbb": "#d62728"}


def figure1b(table: pd.DataFrame) -> Figure:
    """Mania et al. Fig. 1b: number of testable models under each bound, log scale.

    ``table`` is `holdout.bounds_study.figure1b_table` (one row per bound).
    """
    fig, ax = plt.subplots(figsize=(4.8, 3.8))
    names = ["Union bound", "Similarity\nbound", "Naive Bayes\nbound"]
    values = [float(v) for v in table["testable_models"]]
    colors = [_COLORS["union"], _COLORS["sb"], _COLORS["nbb"]][: len(values)]
    bars = ax.bar(names[: len(values)], values, color=colors, width=0.6)
    ax.set_yscale("log")
    ax.set_ylim(min(values) / 5, max(values) * 20)
    for bar, value in zip(bars, values):
        ax.annotate(
            f"{value:,.0f}" if value < 1e7 else f"{value:.2e}",
            (bar.get_x() + bar.get_width() / 2, value),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=9,
        )
    r = table.iloc[0]
    ax.set_ylabel("Number of testable models")
    ax.set_title(
        f"n = {int(r['n']):,}, accuracy {100 * float(r['mean_accuracy']):.1f}%, "
        f"η = {float(r['similarity']):.3g}\nε = {float(r['eps']):g}, δ = {float(r['delta']):g}",
        fontsize=9,
    )
    ax.grid(axis="y", which="major", alpha=0.3)
    fig.tight_layout()
    return fig


def figure2(by_similarity: pd.DataFrame, by_eps: pd.DataFrame) -> Figure:
    """Mania et al. Fig. 2: gain over the union bound vs similarity (left) and vs eps (right).

    Each table is `holdout.bounds_study.gain_grid` over one parameter.
    """
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.6))
    panels = [
        (axes[0], by_similarity, "similarity", "Similarity η", f"ε = {by_similarity['eps'].iloc[0]:g}"),
        (axes[1], by_eps, "eps", "ε", f"η = {by_eps['similarity'].iloc[0]:g}"),
    ]
    # The setting's own point: eta of the right panel, eps of the left one.
    marks = {"similarity": float(by_eps["similarity"].iloc[0]), "eps": float(by_similarity["eps"].iloc[0])}
    for ax, df, col, xlabel, fixed in panels:
        df = df.sort_values(col)
        if df[col].min() <= marks[col] <= df[col].max():
            ax.axvline(marks[col], color="black", lw=0.8, ls=":")
        ax.plot(df[col], df["similarity_gain"], "o-", ms=3.5, color=_COLORS["sb"], label="Similarity bound")
        ax.plot(df[col], df["naive_bayes_gain"], "s-", ms=3.5, color=_COLORS["nbb"], label="Naive Bayes bound")
        ax.axhline(1.0, color=_COLORS["union"], lw=1, ls="--", label="Union bound")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("Multiplicative gain in testable models")
        ax.set_title(f"{fixed}, δ = {df['delta'].iloc[0]:g}, n = {int(df['n'].iloc[0]):,}", fontsize=9)
        ax.grid(which="major", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
