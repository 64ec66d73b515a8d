"""Recht et al. (2018), "Do CIFAR-10 classifiers generalize to CIFAR-10?": Tables 1, 4, 5, Fig. 2.

All accuracies are computed from the published per-image predictions (the predictions
format of [`holdout.predictions`][holdout.predictions]); intervals are exact Clopper-Pearson intervals
(Sec. 3.2 and 5.1 of the paper: "Clopper-Pearson at confidence level 95%"), the line of
Figure 2 / Eq. (3) is an ordinary least-squares fit of new on original accuracy (percent).

Conventions: accuracies, gaps and errors in the returned tables are in percent; the
``correct`` and ``n`` columns hold the counts they come from.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from holdout.stats import LinearFit, accuracy_table, clopper_pearson, delta_rank, fit_band, linear_fit
from holdout.tables import format_interval, markdown_table

__all__ = [
    "LinearFit",
    "accuracy_table",
    "clopper_pearson",
    "delta_rank",
    "fit_band",
    "format_interval",
    "linear_fit",
    "linear_fit_markdown",
    "figure2_data",
    "new_accuracies",
    "new_accuracies_markdown",
    "table1",
    "table1_markdown",
    "table4",
    "table4_markdown",
    "table5",
    "table5_markdown",
]


def _by_model(df: pd.DataFrame, prefix: str) -> pd.DataFrame:
    return df.set_index("model").add_prefix(prefix)


def table1(original: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Recht et al. Table 1: original and new accuracy with intervals, gap, Delta Rank.

    Inputs are [`accuracy_table`][holdout.cifar10_1.recht.accuracy_table] outputs with the same models. Rows are sorted
    by
    original accuracy (correct count), descending; ties keep the input order (the
    paper's order when the input follows ``data.cifar10_1_models``).
    """
    if set(original["model"]) != set(new["model"]):
        raise ValueError("table1: the original and new tables must hold the same models")
    df = _by_model(original, "orig_").join(_by_model(new, "new_")).loc[list(original["model"])]
    df["gap"] = df["orig_accuracy"] - df["new_accuracy"]
    df["delta_rank"] = delta_rank(df["orig_correct"] / df["orig_n"], df["new_correct"] / df["new_n"])
    order = np.argsort(-df["orig_correct"].to_numpy(), kind="stable")
    return df.iloc[order].reset_index()


def table4(t1: pd.DataFrame) -> pd.DataFrame:
    """Recht et al. Table 4 (Appendix C): errors (100 - accuracy) with intervals, error ratio."""
    out = pd.DataFrame({"model": t1["model"]})
    for side in ("orig", "new"):
        out[f"{side}_error"] = 100 - t1[f"{side}_accuracy"]
        out[f"{side}_error_ci_low"] = 100 - t1[f"{side}_ci_high"]
        out[f"{side}_error_ci_high"] = 100 - t1[f"{side}_ci_low"]
    out["error_ratio"] = out["new_error"] / out["orig_error"]
    return out


def table5(
    v4: pd.DataFrame, v6: pd.DataFrame, original: pd.DataFrame | None = None, alpha: float = 0.05
) -> pd.DataFrame:
    """Recht et al. Table 5 (Appendix D): class-balanced v6 vs original, Delta Acc = v6 - v4.

    Intervals of v6 are computed correctly, on the v6 counts out of n = 2,000. The columns
    ``paper_style_ci_low/high`` recompute them the way the paper's printed intervals appear
    to have been made (the v6 count with the v4 size, n = 2,021), for comparison only.
    Original columns and the gap are NaN when ``original`` is None (CIFAR-10 labels absent).
    """
    if set(v4["model"]) != set(v6["model"]):
        raise ValueError("table5: the v4 and v6 tables must hold the same models")
    df = _by_model(v6, "v6_").join(_by_model(v4, "v4_")).loc[list(v6["model"])]
    n4 = int(df["v4_n"].iloc[0]) if len(df) else 0
    paper_style = [clopper_pearson(int(k), n4, alpha) for k in df["v6_correct"]]
    df["paper_style_ci_low"] = [100 * lo for lo, _ in paper_style]
    df["paper_style_ci_high"] = [100 * hi for _, hi in paper_style]
    df["delta_acc"] = df["v6_accuracy"] - df["v4_accuracy"]
    if original is not None:
        df = df.join(_by_model(original, "orig_"))
        df["gap"] = df["orig_accuracy"] - df["v6_accuracy"]
        order = np.argsort(-df["orig_correct"].to_numpy(), kind="stable")
        df = df.iloc[order]
    else:
        for col in ("orig_correct", "orig_n", "orig_accuracy", "orig_ci_low", "orig_ci_high", "gap"):
            df[col] = np.nan
    cols = [
        "orig_correct",
        "orig_n",
        "orig_accuracy",
        "orig_ci_low",
        "orig_ci_high",
        "v6_correct",
        "v6_n",
        "v6_accuracy",
        "v6_ci_low",
        "v6_ci_high",
        "gap",
        "v4_correct",
        "v4_n",
        "v4_accuracy",
        "delta_acc",
        "paper_style_ci_low",
        "paper_style_ci_high",
    ]
    return df[cols].reset_index()


# ---------------------------------------------------------------------------
# Markdown renderings in the paper's style
# ---------------------------------------------------------------------------

TABLE5_NOTE = (
    "Note: the v6 intervals here are Clopper-Pearson on the v6 counts out of n = 2,000. "
    "The intervals printed in the paper's Table 5 (e.g. 93.1 [90.9, 93.3]) lie almost entirely "
    "below their own point estimates; they are reproduced exactly by using the v6 count with "
    "the v4 size n = 2,021 (columns paper_style_ci_low/high of the CSV), which we take to be an "
    "error in the paper. The accuracies and Delta Acc match the paper."
)


def _signed(v: float) -> str:
    return f"+{int(v)}" if v > 0 else str(int(v))


def table1_markdown(t1: pd.DataFrame) -> str:
    """Table 1 as printed in the paper: accuracy [95% CI] (percent), gap, Delta Rank."""
    df = pd.DataFrame(
        {
            "model": t1["model"],
            "orig": [format_interval(*r) for r in t1[["orig_accuracy", "orig_ci_low", "orig_ci_high"]].to_numpy()],
            "new": [format_interval(*r) for r in t1[["new_accuracy", "new_ci_low", "new_ci_high"]].to_numpy()],
            "gap": [f"{g:.1f}" for g in t1["gap"]],
            "rank": [_signed(d) for d in t1["delta_rank"]],
        }
    )
    return markdown_table(
        df, {"model": "Model", "orig": "Original Accuracy", "new": "New Accuracy (v4)", "gap": "Gap", "rank": "Δ Rank"}
    )


def table4_markdown(t4: pd.DataFrame) -> str:
    """Table 4: error [95% CI] (percent, interval as [low, high]) and error ratio."""
    df = pd.DataFrame(
        {
            "model": t4["model"],
            "orig": [
                format_interval(*r) for r in t4[["orig_error", "orig_error_ci_low", "orig_error_ci_high"]].to_numpy()
            ],
            "new": [format_interval(*r) for r in t4[["new_error", "new_error_ci_low", "new_error_ci_high"]].to_numpy()],
            "ratio": [f"{r:.1f}" for r in t4["error_ratio"]],
        }
    )
    return markdown_table(
        df, {"model": "Model", "orig": "Original Error", "new": "New Error (v4)", "ratio": "Error Ratio"}
    ) + (
        "\nIntervals are written [low, high]; the paper prints them as 100 minus the accuracy "
        "interval, i.e. [high, low].\n"
    )


def table5_markdown(t5: pd.DataFrame) -> str:
    """Table 5: original and class-balanced (v6) accuracy, gap, Delta Acc (= v6 - v4)."""
    df = pd.DataFrame(
        {
            "model": t5["model"],
            "orig": [format_interval(*r) for r in t5[["orig_accuracy", "orig_ci_low", "orig_ci_high"]].to_numpy()],
            "new": [format_interval(*r) for r in t5[["v6_accuracy", "v6_ci_low", "v6_ci_high"]].to_numpy()],
            "gap": ["n/a" if pd.isna(g) else f"{g:.1f}" for g in t5["gap"]],
            "delta": [f"{d:.3f}" for d in t5["delta_acc"]],
        }
    )
    text = markdown_table(
        df,
        {
            "model": "Model",
            "orig": "Original Accuracy",
            "new": "New Accuracy (v6)",
            "gap": "Gap",
            "delta": "Δ Acc. (v6 - v4)",
        },
    )
    if t5["orig_accuracy"].isna().all():
        text += (
            "\nOriginal accuracies and gaps are n/a: the CIFAR-10 archive (original test labels) "
            "was not available to this run.\n"
        )
    return text + "\n" + TABLE5_NOTE + "\n"


def new_accuracies_markdown(df: pd.DataFrame) -> str:
    """Accuracies on v4 and v6 with intervals (columns of
    [`new_accuracies`][holdout.cifar10_1.recht.new_accuracies])."""
    out = pd.DataFrame(
        {
            "model": df["model"],
            "v4": [format_interval(*r) for r in df[["v4_accuracy", "v4_ci_low", "v4_ci_high"]].to_numpy()],
            "v6": [format_interval(*r) for r in df[["v6_accuracy", "v6_ci_low", "v6_ci_high"]].to_numpy()],
        }
    )
    return markdown_table(out, {"model": "Model", "v4": "CIFAR-10.1 v4 (n = 2,021)", "v6": "CIFAR-10.1 v6 (n = 2,000)"})


def new_accuracies(v4: pd.DataFrame, v6: pd.DataFrame) -> pd.DataFrame:
    """v4 and v6 [`accuracy_table`][holdout.cifar10_1.recht.accuracy_table] side by side (models in v4's order)."""
    return _by_model(v4, "v4_").join(_by_model(v6, "v6_")).loc[list(v4["model"])].reset_index()


def linear_fit_markdown(fit: LinearFit) -> str:
    """Eq. (3) with our numbers and the paper's beside."""
    rows = pd.DataFrame(
        [
            [
                "this run",
                f"{fit.slope:.2f} ± {fit.slope_se:.2f}",
                f"{fit.intercept:.2f} ± {fit.intercept_se:.2f}",
                f"{fit.r_squared:.3f}",
                str(fit.n),
            ],
            ["Recht et al. (2018), Eq. (3)", "1.62 ± 0.04", "-65.51 ± 3.16", "", "30"],
        ],
        columns=["who", "slope", "intercept", "r2", "models"],
    )
    table = markdown_table(
        rows, {"who": "", "slope": "slope", "intercept": "intercept (%)", "r2": "R^2", "models": "models"}
    )
    return table + (
        f"\nacc_new = {fit.slope:.2f} acc_orig {'-' if fit.intercept < 0 else '+'} {abs(fit.intercept):.2f}% "
        "(ordinary least squares of the v4 accuracy on the original accuracy, both in percent; ± one "
        "standard error).\n"
    )


def figure2_data(t1: pd.DataFrame, level: float) -> tuple[LinearFit, pd.DataFrame, pd.DataFrame]:
    """Eq. (3) and the values of Figure 2 from [`table1`][holdout.cifar10_1.recht.table1]: the fit, the points
    (accuracies with
    intervals) and the line (fit, ``level`` confidence band and y = x on 201 points up to 100%)."""
    fit = linear_fit(t1.orig_accuracy, t1.new_accuracy)
    points = t1[["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]]
    x = np.linspace(t1.orig_ci_low.min() - 1, 100, 201)
    y, lo, hi = fit_band(fit, x, level)
    line = pd.DataFrame({"x": x, "fit": y, "band_low": lo, "band_high": hi, "y_equals_x": x})
    return fit, points, line
