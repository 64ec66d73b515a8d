"""The contamination study's figures: one function per figure, each returning the figure and the
plotted values (saved beside it by [`save_figure`][holdout.plotting.save_figure])."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_aline", "plot_constat_deltas", "plot_gsm1k", "plot_matharena", "plot_mmlu_cf", "plot_reference_lens"]

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


def plot_gsm1k(per_model: pd.DataFrame, spearman_r: float) -> tuple[Figure, pd.DataFrame]:
    """GSM8K - GSM1k gap (points, with its conservative interval) against the log-likelihood of
    GSM8K, one point per model, Holm-significant gaps filled (Zhang et al. 2024, their Figure 5)."""
    fig = Figure(figsize=(6, 4.2))
    ax = fig.subplots()
    sig = per_model["significant"].to_numpy()
    gap, low, high = (100 * per_model[c].to_numpy() for c in ("gap", "gap_low", "gap_high"))
    ax.errorbar(per_model["loglik"], gap, yerr=[gap - low, high - gap], fmt="none", ecolor="0.75", lw=0.8)
    ax.scatter(per_model["loglik"][sig], gap[sig], s=18, color="tab:red", label="gap significant (Holm)")
    ax.scatter(per_model["loglik"][~sig], gap[~sig], s=18, facecolors="none", edgecolors="tab:blue", label="not")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xlabel("character-normalised log-likelihood of GSM8K")
    ax.set_ylabel("GSM8K - GSM1k accuracy (points)")
    ax.set_title(f"{len(per_model)} models, Spearman r = {spearman_r:.3f}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig, per_model[["model", "loglik", "gap", "gap_low", "gap_high", "significant"]].copy()


def plot_mmlu_cf(gaps: pd.DataFrame) -> tuple[Figure, pd.DataFrame]:
    """MMLU-CF test - validation gap per model (points) with its 95 % interval, sorted."""
    g = gaps.sort_values("gap").reset_index(drop=True)
    fig = Figure(figsize=(6, 7))
    ax = fig.subplots()
    y = np.arange(len(g))
    ax.errorbar(g["gap"], y, xerr=[g["gap"] - g["gap_low"], g["gap_high"] - g["gap"]], fmt="o", ms=3, lw=0.8)
    ax.axvline(0, color="0.5", lw=0.8)
    ax.set_yticks(y, g["model"], fontsize=6)
    ax.set_xlabel("MMLU-CF test - validation (points)")
    fig.tight_layout()
    return fig, g[["model", "group", "gap", "gap_low", "gap_high", "p_value", "p_holm"]]


def plot_reference_lens(
    models: pd.DataFrame, curve: pd.DataFrame, xlabel: str, ylabel: str
) -> tuple[Figure, pd.DataFrame]:
    """Benchmark against reference-benchmark accuracy (percent) with the fitted curve and its
    pointwise bootstrap band; models whose delta interval lies above 0 in red."""
    fig = Figure(figsize=(6, 4.5))
    ax = fig.subplots()
    ax.fill_between(100 * curve["x"], 100 * curve["band_low"], 100 * curve["band_high"], color="0.85", label="band")
    ax.plot(100 * curve["x"], 100 * curve["fit"], color="k", lw=1, label="fit")
    above = (models["delta_low"] > 0).to_numpy()
    ax.scatter(
        100 * models["reference"][~above], 100 * models["benchmark"][~above], s=12, color="tab:blue", label="models"
    )
    ax.scatter(100 * models["reference"][above], 100 * models["benchmark"][above], s=16, color="tab:red", label="above")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    fig.tight_layout()
    data = models[["model", "reference", "benchmark", "predicted", "delta", "delta_low", "delta_high"]].assign(
        above=above
    )
    return fig, data


def plot_matharena(table: pd.DataFrame) -> tuple[Figure, pd.DataFrame]:
    """Per competition (by date): the dated models released before it (it is unseen for them) and
    on or after it."""
    fig = Figure(figsize=(7, 4.5))
    ax = fig.subplots()
    x = np.arange(len(table))
    ax.bar(x, table["models_released_before"], color="tab:green", label="released before")
    ax.bar(
        x,
        table["models_released_on_or_after"],
        bottom=table["models_released_before"],
        color="tab:orange",
        label="released on or after",
    )
    ax.set_xticks(
        x, [f"{c} ({d})" for c, d in zip(table["competition"], table["date"], strict=True)], rotation=90, fontsize=6
    )
    ax.set_ylabel("dated models")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig, table.copy()
