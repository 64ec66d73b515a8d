"""Figures of ``holdout audit``: one function per figure, each returning the figure.

The similarity figures (Mania et al. Fig. 1a, Fig. 4, covering numbers) are those of
[`holdout.similarity.plots`][holdout.similarity.plots]; here are the accuracy chart, the new-vs-original figure in the
style of Recht et al. Figure 2 (any test-set pair) and the testable-models chart.

Sizing rules (every figure is shown at 150 CSS px per inch on the page and scaled down to a phone's
width): at most ``WIDTH`` inches wide, no text below 8 pt; the accuracy chart has one row of
``ROW_HEIGHT`` inches per model up to ``MAX_ROWS`` models, beyond which it draws the best and the
worst ``MAX_ROWS // 2`` and says on the figure that the rest are in ``accuracy.csv``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from holdout.cifar10_1.plots import plot_new_vs_original
from holdout.plotting import figure_text, plain_log_axis

if TYPE_CHECKING:
    from holdout.audit.engines.core import BoundsLens

__all__ = [
    "MAX_ROWS",
    "plot_accuracies",
    "plot_new_vs_original",
    "plot_testable_models",
    "short_label",
    "short_labels",
]

POINTS = "tab:blue"
LINE = "tab:red"

#: the widest figure, in inches (5.6 in at 150 CSS px per inch: 840 px, three quarters of the page's column;
#: on a 390 px phone scaled to about 360 px, its 8-pt text about 7 px)
WIDTH = 5.6
#: the width of a figure drawn with constrained layout (which fills it to its edges): the saved tight
#: box adds savefig.pad_inches (0.1 in) on each side, so the PNG stays within WIDTH
LAYOUT_WIDTH = WIDTH - 0.2
#: the accuracy chart: inches per model row, most rows drawn, longest model label (characters)
ROW_HEIGHT = 0.19
MAX_ROWS = 60
LABEL_CHARS = 38


def short_label(name: str, limit: int = LABEL_CHARS, tail: int | None = None) -> str:
    """A model name of at most ``limit`` characters, shortened in the middle keeping its last ``tail``
    characters (default a third of ``limit``: names that share a prefix keep their distinct ends), as
    matplotlib draws it: a ``$`` drawn as written, control characters escaped
    ([`figure_text`][holdout.plotting.figure_text])."""
    name = str(name)
    if len(name) > limit:
        tail = limit // 3 if tail is None else tail
        name = name[: limit - tail - 1] + "…" + name[-tail:]
    return figure_text(name)


def short_labels(names: Sequence[object], limit: int = LABEL_CHARS) -> list[str]:
    """Labels of at most ``limit`` characters for ``names``, distinct wherever the names are: a name
    that fits is kept; a longer one first drops its organisation (``org/`` up to the last slash), then
    is cut in the middle keeping as much of its end as tells it apart from the others (longer tails
    until no two labels coincide), the organisation kept where dropping it makes two names alike; as a
    last resort a number (#1, #2) tells the rest apart."""
    names = [str(n) for n in names]
    labels = {i: figure_text(n) for i, n in enumerate(names) if len(n) <= limit}
    taken = set(labels.values())
    left = [i for i in range(len(names)) if i not in labels]
    own = {i: names[i].rsplit("/", 1)[-1] or names[i] for i in left}
    tails = range(limit // 3, limit - 1)
    tries = [{i: short_label(own[i], limit, t) for i in left} for t in tails]
    tries += [{i: short_label(names[i], limit, t) for i in left} for t in tails]
    for cand in tries:
        part = {i: cand[i] for i in left}
        values = [*part.values(), *labels.values()]
        for i, lab in part.items():
            if values.count(lab) == 1 and lab not in taken:
                labels[i] = lab
        left = [i for i in left if i not in labels]
        if not left:
            break
    for k, i in enumerate(left):
        mark = f" #{k + 1}"
        labels[i] = short_label(names[i], limit - len(mark)) + mark
    return [labels[i] for i in range(len(names))]


def _rows(acc: pd.DataFrame, max_rows: int) -> tuple[pd.DataFrame, np.ndarray, int]:
    """The rows drawn (best first), their y positions (top = best) and how many are left out: all
    models up to ``max_rows``, else the best and the worst ``max_rows // 2`` with a gap between."""
    k = len(acc)
    if k <= max_rows:
        return acc, np.arange(k - 1, -1, -1, dtype=float), 0
    half = max_rows // 2
    y = np.r_[np.arange(2 * half + 2, half + 2, -1), np.arange(half - 1, -1, -1)].astype(float)
    return pd.concat([acc.head(half), acc.tail(half)]), y, k - 2 * half


def plot_accuracies(
    acc: pd.DataFrame, title: str, max_rows: int = MAX_ROWS, level: float = 0.95, csv: str = "accuracy.csv"
) -> Figure:
    """Accuracy of each model with its Clopper-Pearson interval, best at the top: one row per model
    up to ``max_rows``, then the best and the worst ``max_rows // 2``, the rest said on the figure."""
    shown, y, left_out = _rows(acc, max_rows)
    height = 1.5 + ROW_HEIGHT * (len(shown) + (3 if left_out else 0))
    fig, ax = plt.subplots(figsize=(LAYOUT_WIDTH, height), layout="constrained")
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
    ax.set_yticks(y, short_labels(shown["model"]), fontsize=8)
    ax.set_ylim(-0.8, y.max() + 0.8)
    if left_out:
        gap = (y[max_rows // 2 - 1] + y[max_rows // 2]) / 2
        ax.axhline(gap, color="gray", lw=0.8, ls=":")
        ax.text(
            0.5,
            gap,
            f"{left_out:,} models between these rows not drawn\n(all {len(acc):,} in {csv})",
            transform=blended_transform_factory(ax.transAxes, ax.transData),  # centred in the plot area
            ha="center",
            va="center",
            fontsize=8,
            color="0.3",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )
    ax.set_xlabel(f"Test accuracy (%)\n{100 * level:g}% Clopper-Pearson interval")
    more = f" (best and worst {max_rows // 2} of {len(acc):,})" if left_out else ""
    fig.suptitle("\n".join(textwrap.wrap(title + more, 60)), fontsize=10)  # centred on the figure, not the axes
    ax.grid(alpha=0.3, axis="x")
    return fig


def _count_text(value: int | None) -> str:
    if value is None:
        return "does not apply"
    return f"{value:,}" if value < 1_000_000 else f"{float(value):.3g}"


def plot_testable_models(tm: BoundsLens, models_used: int, title: str) -> Figure:
    """Testable models under the union, similarity and naive-Bayes bounds (log scale) against the K
    used; a bound supporting 0 models or not applying is a stub at the bottom with its value written."""
    names = ["union (2)", "similarity (3)+(8)", "naive Bayes (A1)"]
    raw = [tm.union_k, tm.similarity_k, tm.naive_bayes_k]
    values = np.array([float(v or 0) for v in raw])
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.bar(names, np.maximum(values, 0.6), color=[POINTS, "tab:green", "tab:purple"])
    for i, v in enumerate(raw):
        ax.text(i, max(values[i] * 1.3, 0.7), _count_text(v), ha="center", va="bottom", fontsize=9)
    ax.axhline(models_used, color=LINE, ls="--", lw=1.2, label=f"models evaluated K = {models_used:,}")
    ax.set_yscale("log")
    top = max(values.max(), models_used) * 30
    ax.set_ylim(0.6, top)
    plain_log_axis(ax.yaxis, 0.6, top)
    ax.set_ylabel(f"Testable models at eps = {tm.eps:g},\ndelta = {tm.delta:g}")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, axis="y", which="major")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig
