"""Figure of the ImageNetV2 study: Recht et al. (2019) Figure 1 / Recht et al. (2018) Figure 2 style."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from holdout.cifar10_1.plots import plot_new_vs_original

__all__ = ["plot_imagenetv2_top1"]


def plot_imagenetv2_top1(table: pd.DataFrame, lines: pd.DataFrame, level: float = 0.95) -> Figure:
    """New (MatchedFrequency) vs original (ImageNet validation) top-1 of every testbed model, with
    interval bars, the line over all models and its band, the convolutional models' line, y = x."""
    points = table.rename(
        columns=lambda c: c.replace("_top1", "") if c.endswith(("top1_accuracy", "top1_ci_low", "top1_ci_high")) else c
    )
    first, *others = list(dict.fromkeys(lines["models"]))
    band = lines[lines["models"] == first]
    fig = plot_new_vs_original(
        points,
        band,
        title="ImageNet: ImageNetV2 MatchedFrequency vs validation",
        xlabel="ImageNet validation top-1 accuracy (%)",
        ylabel="ImageNetV2 MatchedFrequency top-1 (%)",
        band_level=level,
        groups=points["group"].map(
            {"convolutional": "convolutional (95% CP)", "non-convolutional": "Fisher vectors (95% CP)"}
        ),
    )
    ax = fig.axes[0]
    ax.lines[1].set_label(f"Linear fit, {first}")
    for name in others:
        part = lines[lines["models"] == name]
        ax.plot(part["x"], part["fit"], color="k", lw=1, ls=":", label=f"Linear fit, {name}")
    ax.legend(loc="upper left", fontsize=7, frameon=False)
    return fig
