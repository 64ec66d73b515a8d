"""Figure of one test set: overfit vs number of queries k, one panel per attack, a line per mechanism."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from holdout.plotting import plain_log_axis  # noqa: E402

__all__ = ["overfit_figure", "y_top"]

_LABELS = {
    "trivial": "trivial (exact), on A",
    "ladder": "Ladder (step eta), on A",
    "ladder_free": "Ladder (parameter-free), on A",
    "thresholdout": "Thresholdout, on its holdout S_h",
    "trivial_half": "trivial over S_h alone, on S_h",
    "boosting": "Boosting attack, real predictions",
    "boosting_random": "Boosting attack, Blum & Hardt's setting",
    "ensemble": "Selective ensembling",
    "selection": "Best of k models",
}


def _panel(ax, part: pd.DataFrame) -> None:
    """One attack: a line per mechanism (overfit where its guarantee would live), Thresholdout's exposed
    half S_t faint, and the two Sec. 4 bounds at n = |A|."""
    for mech, rows in part.groupby("mechanism", sort=False):
        ax.plot(rows["k"], rows["overfit_mean"], marker="o", ms=3, label=_LABELS.get(str(mech), str(mech)))
        sd = rows["overfit_sd"].fillna(0)
        ax.fill_between(rows["k"], rows["overfit_mean"] - sd, rows["overfit_mean"] + sd, alpha=0.15)
        if mech == "thresholdout":
            ax.plot(
                rows["k"], rows["overfit_train_mean"], color="grey", lw=0.8, label="Thresholdout on S_t (exposed half)"
            )
    ref = part[part["guarded_on"] == "A"].drop_duplicates("k")
    ax.plot(ref["k"], ref["sqrt_k_over_n"], "k--", lw=1, label="sqrt(k/n), n = |A|")
    ax.plot(ref["k"], ref["bound_theorem"], "k:", lw=1.8, label="Sec. 4 bound, alpha = 0 (theorem)")
    ax.plot(ref["k"], ref["bound_if_covering"], "-.", color="tab:brown", lw=1, label="Sec. 4 bound if covering holds")
    ax.axhline(0.0, color="grey", lw=0.5)
    ax.set_xscale("log")


def y_top(summary: pd.DataFrame) -> float:
    """Top of the y-axis: the largest overfit with room, and the theorem bound up to 1 (beyond it is
    vacuous), so that the bound line shows."""
    return max(1.3 * float(summary["overfit_max"].max()), min(1.05, float(summary["bound_theorem"].max())))


def overfit_figure(summary: pd.DataFrame, label: str, stacked: bool = False) -> tuple[Figure, pd.DataFrame]:
    """Mean overfit +- 1 sd over splits per mechanism, measured where its guarantee would live, with
    sqrt(k/n) and Mania et al.'s Sec. 4 bound (alpha = 0: theorem; alpha > 0: if the covering
    condition holds), log x. One panel per attack side by side, or ``stacked`` one above the other
    (5.4 in wide, 8-pt legend: legible on a page that scales it to a phone's width). Returns the
    figure and the plotted values (the summary rows)."""
    names = list(dict.fromkeys(summary["attack"]))
    legend = 1.3 if stacked else 0.0  # inches below the stacked panels for the legend
    shape = (len(names), 1) if stacked else (1, len(names))
    size = (5.4, 0.6 + 3.0 * len(names) + legend) if stacked else (4.0 * len(names), 3.8)
    fig, axes = plt.subplots(*shape, figsize=size, sharey=True, squeeze=False)
    for ax, name in zip(axes.ravel(), names, strict=True):
        part = summary[summary["attack"] == name]
        _panel(ax, part)
        ax.set_ylim(-0.05, y_top(summary))
        plain_log_axis(ax.xaxis, float(part["k"].min()), float(part["k"].max()))
        ax.set_title(_LABELS.get(name, name), fontsize=10)
        ax.set_xlabel("number of queries k")
    for ax in axes[:, 0]:
        ax.set_ylabel("overfit: A (or S_h) - H" if stacked else "overfit: accuracy on A (or S_h) - on H")
    fig.suptitle(f"Adaptive overfitting on {label} (n = {int(summary['n_attack'].min())} per half)", fontsize=11)
    if stacked:
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, legend / size[1], 1, 1))
    else:
        axes[0][-1].legend(fontsize=6, loc="upper left")
        fig.tight_layout()
    return fig, summary.copy()
