"""The contamination study's figures: one function per figure, each returning the figure and the
plotted values (saved beside it by [`save_figure`][holdout.plotting.save_figure])."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_constat_deltas"]

_ROLE_COLOURS = {"reference": "tab:blue", "test": "tab:orange", "contaminated": "tab:red"}


def plot_constat_deltas(rows: pd.DataFrame) -> tuple[Figure, pd.DataFrame]:
    """One panel per ConStat table: our delta (table-level bootstrap) against ConStat's, in points,
    by role; hollow markers where the p < 0.05 verdicts differ. ``rows``: ``table``, ``model``,
    ``role``, ``delta``, ``delta_ours``, ``flag_published``, ``flag_ours``."""
    tables = list(dict.fromkeys(rows["table"]))
    cols = min(3, len(tables))
    fig = Figure(figsize=(4.2 * cols, 3.8 * int(np.ceil(len(tables) / cols))))
    axes = fig.subplots(int(np.ceil(len(tables) / cols)), cols, squeeze=False).ravel()
    for ax, name in zip(axes, tables, strict=False):
        t = rows[rows["table"] == name]
        both = 100 * t[["delta", "delta_ours"]].to_numpy()
        lim = [both.min() - 3, both.max() + 3]
        ax.plot(lim, lim, color="0.6", lw=0.8)
        for role, colour in _ROLE_COLOURS.items():
            r = t[t["role"] == role]
            same = r["flag_published"] == r["flag_ours"]
            ax.scatter(100 * r["delta"][same], 100 * r["delta_ours"][same], s=14, color=colour, label=role)
            ax.scatter(
                100 * r["delta"][~same], 100 * r["delta_ours"][~same], s=30, facecolors="none", edgecolors=colour
            )
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("ConStat's delta (points)")
        ax.set_ylabel("ours (points)")
    for ax in axes[len(tables) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    data = rows[["table", "model", "role", "delta", "delta_ours", "flag_published", "flag_ours"]].copy()
    data[["delta", "delta_ours"]] *= 100
    return fig, data
