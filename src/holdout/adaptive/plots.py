"""Figure of one test set: overfit vs number of queries k, one panel per attack, a line per mechanism."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = ["overfit_figure"]

_LABELS = {
    "trivial": "trivial (exact)",
    "ladder": "Ladder (step eta)",
    "ladder_free": "Ladder (parameter-free)",
    "thresholdout": "Thresholdout",
    "boosting": "Boosting attack (Blum & Hardt)",
    "ensemble": "Selective ensembling",
    "selection": "Best of k models",
}


def overfit_figure(summary: pd.DataFrame, label: str) -> tuple[Figure, pd.DataFrame]:
    """Mean overfit +- 1 sd over splits per mechanism, with sqrt(k/n) and the Section 4 bound (log-log x).

    Returns the figure and the plotted values (the summary rows, one per attack x mechanism x k).
    """
    names = list(dict.fromkeys(summary["attack"]))
    fig, axes = plt.subplots(1, len(names), figsize=(4.0 * len(names), 3.4), sharey=True, squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        part = summary[summary["attack"] == name]
        for mech, rows in part.groupby("mechanism", sort=False):
            ax.plot(rows["k"], rows["overfit_mean"], marker="o", ms=3, label=_LABELS.get(str(mech), str(mech)))
            ax.fill_between(
                rows["k"],
                rows["overfit_mean"] - rows["overfit_sd"].fillna(0),
                rows["overfit_mean"] + rows["overfit_sd"].fillna(0),
                alpha=0.15,
            )
        ref = part.drop_duplicates("k")
        ax.plot(ref["k"], ref["sqrt_k_over_n"], "k--", lw=1, label="sqrt(k/n)")
        ax.plot(ref["k"], ref["bound"], "k:", lw=1.5, label="Mania et al. Sec. 4 bound")
        ax.axhline(0.0, color="grey", lw=0.5)
        ax.set_xscale("log")
        ax.set_ylim(-0.05, max(0.3, float(part["overfit_max"].max()) * 1.3))
        ax.set_title(_LABELS.get(name, name), fontsize=10)
        ax.set_xlabel("number of queries k")
    axes[0][0].set_ylabel("overfit: attack-half - held-out accuracy")
    axes[0][-1].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"Adaptive overfitting on {label} (n = {int(summary['n_attack'].min())} per half)", fontsize=11)
    fig.tight_layout()
    return fig, summary.copy()
