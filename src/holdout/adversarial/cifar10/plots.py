"""Figures of the adversarial overfitting test on the workflow's own CIFAR-10 models.

Werpachowski et al. (2019) Figure 5 for one model on the training subset and on the
test set, with the N-model test beside it, and the per-model p-value against the
error (Sec. 3.3 (i)). Each function returns the figure and the table of every plotted
value; the workflow hands both to [`holdout.plotting.save_figure`][holdout.plotting.save_figure].
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["plot_figure1", "plot_figure2", "plot_figure5", "plot_pvalue_vs_error"]

_STYLE = {
    "strongest": {"color": "tab:blue", "marker": "o"},
    "nearest": {"color": "tab:orange", "marker": "s"},
    "random": {"color": "tab:green", "marker": "^"},
    "random2": {"color": "tab:red", "marker": "v"},
}
#: the title line and CSV label of our Figure 2: an analogue on CIFAR-10, not the paper's ImageNet figure
FIGURE2_LABEL = "Analogue of Werpachowski et al. Fig. 2 on CIFAR-10 (the paper's: ImageNet, VGG16)"

_SET_TITLE = {"train": "training subset", "test": "test set"}


def _sets(table: pd.DataFrame) -> list[str]:
    sets = [s for s in ("train", "test") if s in set(table["set"])]
    if not sets:
        raise ValueError("the p-value table has no 'train' or 'test' rows")
    return sets


def plot_figure5(pvalues: pd.DataFrame, n_model: pd.DataFrame, model: str) -> tuple[Figure, pd.DataFrame]:
    """Figure 5 of Werpachowski et al. for ``model``, one row per set (training subset, test set).

    Left: the p-value of the pairwise test (7) against the sample size for each AEG (solid),
    and of the N-model test over all models (dashed). Right: R_S and R_g with 97.5% intervals
    (Sec. 3.1; bands clipped to [0, 1], the CSV keeps the raw bounds) for ``strongest``.
    """
    sets = _sets(pvalues)
    one = pvalues[pvalues["model"] == model]
    if one.empty:
        raise ValueError(f"no p-values for model {model!r}")
    fig, axes = plt.subplots(len(sets), 2, figsize=(10, 3.6 * len(sets)), squeeze=False)
    data = []
    for row, split in zip(axes, sets):
        t = one[one["set"] == split]
        nm = n_model[n_model["set"] == split] if len(n_model) else n_model
        ax = row[0]
        for aeg, g in t.groupby("aeg", sort=False):
            g = g.sort_values("sample_size")
            ax.plot(g["sample_size"], g["p_value"], label=aeg, **_STYLE.get(aeg, {}))
            data.append(g.assign(curve="pairwise"))
        for aeg, g in nm.groupby("aeg", sort=False) if len(nm) else []:
            g = g.sort_values("sample_size")
            n = int(g["n_models"].iloc[0])
            ax.plot(
                g["sample_size"],
                g["p_value"],
                ls="--",
                label=f"{aeg}, {n}-model test",
                color=_STYLE.get(aeg, {}).get("color"),
            )
            data.append(g.assign(curve="n_model", model=f"all {n} models"))
        ax.axhline(0.05, color="k", lw=0.6, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("sample size")
        ax.set_ylabel("p-value")
        ax.set_title(f"{model}, {_SET_TITLE[split]}: p-values")
        ax.legend(frameon=False, fontsize=7)
        ax = row[1]
        s = t[t["aeg"] == "strongest"].sort_values("sample_size")
        for est, colour, name in (("R_S", "tab:gray", r"$\hat R_S(f)$"), ("R_g", "tab:blue", r"$\hat R_g(f)$")):
            if len(s):
                ax.plot(s["sample_size"], s[est], color=colour, marker="o", label=name)
                ax.fill_between(
                    s["sample_size"],
                    s[f"{est}_lo"].clip(0.0, 1.0),
                    s[f"{est}_hi"].clip(0.0, 1.0),
                    color=colour,
                    alpha=0.2,
                )
        if len(s):
            ax.legend(frameon=False)
        ax.set_xscale("log")
        ax.set_xlabel("sample size")
        ax.set_ylabel("risk estimate")
        ax.set_title("strongest AEG, 97.5% intervals")
    fig.tight_layout()
    return fig, pd.concat(data, ignore_index=True)


def plot_pvalue_vs_error(pvalues: pd.DataFrame, alpha: float = 0.05) -> tuple[Figure, pd.DataFrame]:
    """Per model, the p-value of the pairwise test on the whole sample against the model's
    error on that sample (Sec. 3.3 (i)), one panel per set, one marker per AEG. The p-value
    axis is log10 (the p-values on the training subset can underflow; the natural log
    ``log_p_value`` stays finite), the dotted line is ``alpha``."""
    sets = _sets(pvalues)
    full = pvalues[pvalues["sample_size"] == pvalues.groupby(["model", "set"])["sample_size"].transform("max")]
    full = full.assign(log10_p_value=full["log_p_value"] / math.log(10.0))
    fig, axes = plt.subplots(1, len(sets), figsize=(5.2 * len(sets), 3.8), squeeze=False)
    for ax, split in zip(axes[0], sets):
        t = full[full["set"] == split]
        for aeg, g in t.groupby("aeg", sort=False):
            ax.scatter(g["R_S"], g["log10_p_value"], label=aeg, s=18, alpha=0.8, **_STYLE.get(aeg, {}))
        ax.axhline(np.log10(alpha), color="k", lw=0.6, ls=":", label=f"p = {alpha:g}")
        ax.set_xlabel(f"error on the {_SET_TITLE[split]} " + r"($\hat R_S$)")
        ax.set_ylabel(r"$\log_{10}$ p-value")
        ax.set_title(f"{_SET_TITLE[split]}: m = {int(t['sample_size'].max())}, {t['model'].nunique()} models")
        ax.legend(frameon=False, fontsize=7)
    fig.tight_layout()
    cols = ["model", "set", "aeg", "sample_size", "R_S", "p_value", "log_p_value", "log10_p_value"]
    return fig, full[cols].reset_index(drop=True)


def plot_figure1(table: pd.DataFrame) -> tuple[Figure, pd.DataFrame]:
    """Werpachowski et al. Figure 1: CIFAR-10 test accuracy of the published models by year of
    publication (``table`` from
    [`holdout.adversarial.cifar10.figures.figure1_table`][holdout.adversarial.cifar10.figures.figure1_table])."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.scatter(table["year"], table["accuracy"], s=22, color="tab:blue", alpha=0.8)
    ax.set_xlabel("year")
    ax.set_ylabel("CIFAR-10 test accuracy (%)")
    lo, hi = int(table["year"].min()), int(table["year"].max())
    ax.set_xlim(min(lo, 2010) - 0.5, hi + 0.5)
    ax.set_xticks(range(min(lo, 2010), hi + 1, 2 if hi - lo > 6 else 1))
    ax.grid(alpha=0.3)
    ax.set_title(f"Accuracy on the CIFAR-10 test set by year ({len(table)} models)", fontsize=10)
    fig.tight_layout()
    return fig, table[["model", "year", "accuracy", "n"]].copy()


def plot_figure2(
    original: np.ndarray, translated: np.ndarray, example: dict, classes: list[str]
) -> tuple[Figure, pd.DataFrame]:
    """An analogue of Werpachowski et al. Figure 2 on CIFAR-10, not the paper's figure (an ImageNet
    image, VGG16, a (5, 5) translation, "scale, weighing machine" -> "toaster"): the original
    window of a 32 x 32 CIFAR-10 test image (left, with a seeds model's prediction) and its
    adversarial translation (right, with the vector v = (dx, dy) and the prediction), shown pixel
    by pixel. ``original`` and ``translated``: uint8 H x W x 3 windows; ``example`` from
    [`holdout.adversarial.cifar10.figures.figure2_example`][holdout.adversarial.cifar10.figures.figure2_example]. The
    title and the CSV's
    ``figure`` column say that it is an analogue."""
    fig, axes = plt.subplots(1, 2, figsize=(5.6, 3.2))
    dx, dy = int(example["v_col"]), int(example["v_row"])
    titles = [
        f"original\npredicted: {classes[example['pred_original']]}",
        f"translated by (dx, dy) = ({dx}, {dy})\npredicted: {classes[example['pred_translated']]}",
    ]
    for ax, img, title in zip(axes, (original, translated), titles):
        ax.imshow(img, interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(
        f"{FIGURE2_LABEL}\n{example['model']}, CIFAR-10 test image {example['index']} "
        f"(true class: {classes[example['label']]})",
        fontsize=9,
    )
    fig.tight_layout()
    data = pd.DataFrame(
        [
            {
                "figure": FIGURE2_LABEL,
                "model": example["model"],
                "index": int(example["index"]),
                "label": classes[example["label"]],
                "dx": dx,
                "dy": dy,
                "pred_original": classes[example["pred_original"]],
                "pred_translated": classes[example["pred_translated"]],
                "excess_logit": example["excess_logit"],
            }
        ]
    )
    return fig, data
