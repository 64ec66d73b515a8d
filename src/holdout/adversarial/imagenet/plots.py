"""Figure 5 of Werpachowski et al. (2019): the ImageNet study's plots.

Every plotted value comes from the table of
[`holdout.adversarial.per_image.figure5_table`][holdout.adversarial.per_image.figure5_table] (saved as CSV beside the
figure).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

__all__ = ["plot_figure5"]

_STYLE = {
    "strongest": dict(color="tab:blue", marker="o"),
    "nearest": dict(color="tab:orange", marker="s"),
    "random": dict(color="tab:green", marker="^"),
    "random2": dict(color="tab:red", marker="v"),
}
_SPLIT_TITLE = {"train": "training-set sample", "val": "validation set"}


def plot_figure5(table: pd.DataFrame, model: str) -> plt.Figure:
    """One row per split (training sample first, as in the paper; then validation):
    left, the p-value of the pairwise test (7) against the sample size for each AEG;
    right, R_S and R_g with 97.5% intervals (clipped to [0, 1]) for the ``strongest`` AEG."""
    splits = [s for s in ("train", "val") if s in set(table["split"])]
    if not splits:
        raise ValueError("figure 5 table has no 'train' or 'val' rows")
    fig, axes = plt.subplots(len(splits), 2, figsize=(10, 3.6 * len(splits)), squeeze=False)
    for row, split in zip(axes, splits):
        t = table[table["split"] == split]
        ax = row[0]
        for attack, g in t.groupby("attack", sort=False):
            g = g.sort_values("sample_size")
            ax.plot(g["sample_size"], g["p_value"], label=attack, **_STYLE.get(attack, {}))
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("sample size")
        ax.set_ylabel("p-value")
        ax.set_title(f"{model}, {_SPLIT_TITLE[split]}: p-values")
        ax.legend(frameon=False)
        ax = row[1]
        s = t[t["attack"] == "strongest"].sort_values("sample_size")
        if len(s):
            for est, colour, name in (("R_S", "tab:gray", r"$\hat R_S(f)$"), ("R_g", "tab:blue", r"$\hat R_g(f)$")):
                ax.plot(s["sample_size"], s[est], color=colour, marker="o", label=name)
                # the band is clipped to [0, 1] (a risk); the CSV keeps the raw interval
                lo, hi = s[f"{est}_lo"].clip(0.0, 1.0), s[f"{est}_hi"].clip(0.0, 1.0)
                ax.fill_between(s["sample_size"], lo, hi, color=colour, alpha=0.2)
            ax.legend(frameon=False)
        ax.set_xscale("log")
        ax.set_xlabel("sample size")
        ax.set_ylabel("risk estimate")
        ax.set_title("strongest AEG, 97.5% intervals")
    fig.tight_layout()
    return fig
