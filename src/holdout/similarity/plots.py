"""Figures of the model similarity study (Mania et al. 2019, Fig. 1a, Fig. 4, covering numbers).

One function per figure; each takes the values it plots (the same values that
the workflow writes to the CSV beside the figure) and returns the figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from holdout.plotting import integer_ticks, plain_log_axis  # noqa: E402

__all__ = [
    "plot_covering_numbers",
    "plot_difficulty",
    "plot_pair_similarities",
    "plot_similarity_scatter",
    "set_figures",
]

EMPIRICAL = "#1f77b4"
INDEPENDENT = "#ff7f0e"


#: above this many pairs the scatter points are drawn as an image inside the PDF (K > ~200 models)
RASTER_PAIRS = 20_000


def plot_pair_similarities(similarity: np.ndarray, independent: np.ndarray, title: str, num_models: int) -> Figure:
    """Mania et al. Fig. 1a: empirical vs independent-errors similarity of every model pair.

    ``similarity`` and ``independent`` are the values of the K(K-1)/2 pairs
    (same order); pairs are shown sorted by empirical similarity.
    """
    s = np.asarray(similarity, dtype=float)
    b = np.asarray(independent, dtype=float)
    order = np.argsort(s, kind="stable")
    x = np.arange(1, s.size + 1)
    fig, ax = plt.subplots(figsize=(5.2, 3.9))
    size = 6 if s.size < 3000 else 2
    labels = {
        EMPIRICAL: (s[order], f"Empirical (mean {s.mean():.3f})", 3),
        INDEPENDENT: (b[order], f"Independent errors (mean {b.mean():.3f})", 2),
    }
    for color, (values, label, z) in labels.items():
        if s.size > RASTER_PAIRS:  # millions of vector markers made the PDF take minutes: pixels in an image
            ax.plot(x, values, ",", color=color, zorder=z, rasterized=True)
            ax.scatter([], [], s=size, color=color, label=label)
        else:
            ax.scatter(x, values, s=size, color=color, label=label, zorder=z)
    ax.axhline(s.mean(), color=EMPIRICAL, ls="--", lw=1)
    ax.axhline(b.mean(), color=INDEPENDENT, ls="--", lw=1)
    ax.set_xlabel(f"Model pairs ({s.size:,} pairs of {num_models} models), sorted by empirical similarity")
    ax.set_ylabel(r"Similarity $P(q_i(z) = q_j(z))$")
    ax.set_title(title)
    lo = min(s.min(), b.min())
    ax.set_ylim(max(0.0, np.floor(lo * 20) / 20 - 0.02), 1.0)
    ax.set_xlim(0, s.size + 1)
    integer_ticks(ax.xaxis)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", markerscale=3 if size < 6 else 1.5, frameon=True)
    fig.tight_layout()
    return fig


def plot_similarity_scatter(similarity: np.ndarray, independent: np.ndarray, title: str) -> Figure:
    """Each model pair as a point: independent-errors similarity (x) vs empirical similarity (y)."""
    s = np.asarray(similarity, dtype=float)
    b = np.asarray(independent, dtype=float)
    fig, ax = plt.subplots(figsize=(4.6, 4.4))
    ax.scatter(
        b,
        s,
        s=6 if s.size < 3000 else 2,
        color=EMPIRICAL,
        alpha=0.6,
        label="Model pairs",
        rasterized=s.size > RASTER_PAIRS,
    )
    lo = max(0.0, np.floor(min(s.min(), b.min()) * 20) / 20 - 0.02)
    ax.plot([lo, 1], [lo, 1], color="k", lw=1, ls="--", label="$y = x$")
    ax.set_xlim(lo, 1)
    ax.set_ylim(lo, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(r"Independent errors $\mu_i\mu_j + (1-\mu_i)(1-\mu_j)$")
    ax.set_ylabel("Empirical similarity")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def plot_difficulty(
    fraction_at_most: np.ndarray,
    title: str,
    marks: Sequence[int] = (),
    n: int | None = None,
    unit: str = "images",
) -> Figure:
    """Mania et al. Fig. 4: fraction of test points misclassified by at most m of the K models.

    ``fraction_at_most`` has K + 1 entries (m = 0..K); ``marks`` are values of m to annotate;
    ``unit`` names the test points on the y axis ("the 10,000 images").
    """
    f = np.asarray(fraction_at_most, dtype=float)
    k = f.size - 1
    m = np.arange(k + 1)
    fig, ax = plt.subplots(figsize=(5.2, 3.9))
    ax.plot(m, 100 * f, marker="o", ms=3, color=EMPIRICAL, lw=1.2, drawstyle="default")
    for mark in marks:
        if 0 <= mark <= k:
            text = f"{100 * f[mark]:.1f}% at m = {mark}"
            if mark == k - 1 and k > 1:
                text += f"\n({100 * (1 - f[mark]):.1f}% misclassified by all {k})"
            right = mark < 0.6 * k  # text to the right of early marks, to the left of late ones
            low = f[mark] < 0.5  # above low points, below high ones: always inside the axes
            ax.annotate(
                text,
                xy=(mark, 100 * f[mark]),
                xytext=(25 if right else -25, 30 if low else -35),
                textcoords="offset points",
                ha="left" if right else "right",
                va="bottom" if low else "top",
                arrowprops={"arrowstyle": "->", "lw": 0.8},
                fontsize=8,
            )
    ax.set_xlabel(f"Number of models m (of K = {k})")
    what = unit if n is None else f"the {n:,} {unit}"
    ax.set_ylabel(f"% of {what} misclassified\nby at most m models")
    ax.set_xlim(-0.5, k + 0.5)
    integer_ticks(ax.xaxis)
    ax.set_ylim(0, 101)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def plot_covering_numbers(etas: np.ndarray, covering: np.ndarray, num_models: int, title: str) -> Figure:
    """Upper bounds on the similarity covering number N_eta (Definition 1) against eta."""
    etas = np.asarray(etas, dtype=float)
    cov = np.asarray(covering, dtype=float)
    fig, ax = plt.subplots(figsize=(5.2, 3.9))
    ax.step(etas, cov, where="post", color=EMPIRICAL, lw=1.5, label=r"Greedy cover (upper bound on $N_\eta$)")
    ax.axhline(num_models, color="gray", ls="--", lw=1, label=f"Number of models K = {num_models}")
    ax.set_yscale("log")
    ax.set_xlabel(r"Similarity $\eta$")
    ax.set_ylabel(r"Covering number $N_\eta$")
    ax.set_xlim(etas.min(), etas.max())
    ax.set_ylim(0.8, num_models * 1.6)
    plain_log_axis(ax.yaxis, 0.8, num_models * 1.6)
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def set_figures(
    summary: Mapping[str, Any], pairs: pd.DataFrame, cover: pd.DataFrame, difficulty: pd.DataFrame, label: str
) -> dict[str, Figure]:
    """The four figures of one test set, keyed fig1a, scatter, fig4, cover: Fig. 1a, the pair
    scatter, Fig. 4 and the covering numbers, from the tables of
    [`holdout.similarity.study.analyse_set`][holdout.similarity.study.analyse_set] (``pairs``, ``covering``,
    ``difficulty``, ``summary``)."""
    k = int(summary["num_models"])
    return {
        "fig1a": plot_pair_similarities(
            pairs["similarity"], pairs["independent_similarity"], f"{label}: model similarities", k
        ),
        "scatter": plot_similarity_scatter(
            pairs["similarity"], pairs["independent_similarity"], f"{label}: pairs of models"
        ),
        "fig4": plot_difficulty(
            difficulty["fraction_misclassified_by_at_most_m"].to_numpy(),
            f"{label}: difficulty of test points",
            marks=sorted({0, min(6, k), k - 1}),
            n=int(summary["n"]),
        ),
        "cover": plot_covering_numbers(
            cover["eta"].to_numpy(),
            cover["covering_number_upper_bound"].to_numpy(),
            k,
            f"{label}: similarity covering numbers",
        ),
    }
