"""The contamination study's figures: one function per figure, each returning the figure and the
plotted values (saved beside it by [`save_figure`][holdout.plotting.save_figure])."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_aline", "plot_constat_deltas"]

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


def plot_aline(results: dict[str, object]) -> tuple[Figure, pd.DataFrame]:
    """Per shift (column): top, the pairs' agreement and the models' accuracy, new against original
    on probit axes, with the agreement line (Baek et al. 2022, Figure 1); bottom, ALine-S / ALine-D
    estimates against the true new accuracy (percent). ``results``: shift name ->
    [`ALine`][holdout.contamination.aline.ALine] with new labels."""
    from scipy.special import ndtri

    fig = Figure(figsize=(4.2 * len(results), 7.6))
    axes = fig.subplots(2, len(results), squeeze=False)
    rows = []
    for col, (name, r) in enumerate(results.items()):
        top, bottom = axes[0, col], axes[1, col]
        pairs, models = r.pairs, r.models
        top.scatter(
            ndtri(pairs["agreement_original"]), ndtri(pairs["agreement_new"]), s=3, alpha=0.3, label="agreement"
        )
        top.scatter(ndtri(models["accuracy_original"]), ndtri(models["accuracy_new"]), s=12, label="accuracy")
        x = np.linspace(*top.get_xlim(), 2)
        top.plot(x, r.agreement.slope * x + r.agreement.bias, color="k", lw=0.8, label="agreement line")
        top.set_title(name, fontsize=9)
        top.set_xlabel("original (probit)")
        top.set_ylabel("new (probit)")
        for est, marker in (("aline_s", "o"), ("aline_d", "x")):
            bottom.scatter(100 * models["accuracy_new"], 100 * models[est], s=12, marker=marker, label=est)
        lim = [100 * models[["accuracy_new", "aline_s", "aline_d"]].to_numpy().min() - 2, 100]
        bottom.plot(lim, lim, color="0.6", lw=0.8)
        bottom.set_xlabel("true new accuracy (%)")
        bottom.set_ylabel("estimate (%)")
        rows.append(models.assign(shift=name))
    axes[0, 0].legend(fontsize=7)
    axes[1, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig, pd.concat(rows, ignore_index=True)
