"""ImageNet -> ImageNetV2 from the testbed (Recht, Roelofs, Schmidt & Shankar 2019, "Do ImageNet
classifiers generalize to ImageNet?"), the Recht-style part of ``holdout audit`` on 67 models.

Top-1 comes from the predictions format ([`holdout.predictions`][holdout.predictions], column 0 of the testbed's
top-5); top-5 from the testbed's raw (n, 5) top-5 arrays. Intervals are exact Clopper-Pearson
(as in the paper), the line is the least-squares fit of new on original top-1 accuracy in percent
(Recht et al. 2018 Eq. 3, here on ImageNet) with its pointwise band. Percent throughout.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.bounds.study import testable_model_counts
from holdout.predictions import Predictions, align_models
from holdout.runlog import timed
from holdout.similarity.core import pairwise_similarity, summarize_similarity
from holdout.stats import LinearFit, clopper_pearson, delta_rank, fit_band, linear_fit
from holdout.tables import markdown_table

__all__ = [
    "PAPER_TOP1_DROP",
    "accuracies_markdown",
    "accuracy_columns",
    "fit_lines",
    "fit_table",
    "imagenetv2_table",
    "imagenetv2_tables",
    "paper_check",
    "similarity_table",
    "top5_correct",
]

#: Recht et al. (2019), abstract and Sec. 1: "accuracy drops of ... 11% - 14% on ImageNet"
#: (top-1, MatchedFrequency, percentage points).
PAPER_TOP1_DROP = (11.0, 14.0)


def top5_correct(paths: Sequence[str | Path], labels: np.ndarray) -> np.ndarray:
    """Per model, how many of the n points have the true label among the 5 predicted classes.

    ``paths``: one testbed file per model, an integer (n, 5) array (best class first).
    """
    labels = np.asarray(labels)
    counts = np.empty(len(paths), dtype=np.int64)
    for k, path in enumerate(paths):
        top5 = np.load(path, allow_pickle=False)
        if top5.ndim != 2 or top5.shape != (labels.size, 5):
            raise ValueError(f"{path}: expected top-5 predictions of shape ({labels.size}, 5), got {top5.shape}")
        counts[k] = int((top5 == labels[:, None]).any(axis=1).sum())
    return counts


def accuracy_columns(prefix: str, correct: np.ndarray, n: int, alpha: float = 0.05) -> pd.DataFrame:
    """Columns <prefix>_correct, _accuracy, _ci_low, _ci_high (percent, Clopper-Pearson 1 - alpha)."""
    ci = np.array([clopper_pearson(int(k), n, alpha) for k in correct]).reshape(-1, 2)
    return pd.DataFrame(
        {
            f"{prefix}_correct": correct,
            f"{prefix}_accuracy": 100 * (np.asarray(correct) / n),
            f"{prefix}_ci_low": 100 * ci[:, 0],
            f"{prefix}_ci_high": 100 * ci[:, 1],
        }
    )


def imagenetv2_table(
    original: Predictions,
    new: Predictions,
    top5_original: np.ndarray,
    top5_new: np.ndarray,
    non_convolutional: Sequence[str] = (),
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Per model: top-1 and top-5 on both sets with intervals, the gaps, Delta rank (top-1), group.

    ``top5_*`` are [`top5_correct`][holdout.imagenetv2.core.top5_correct] counts in the model order of ``original``;
    ``new`` is
    aligned to it by name. Rows by original top-1 accuracy, best first.
    """
    new = align_models(original, new, new.test_set or "new predictions")
    n_o, n_n = original.num_examples, new.num_examples
    df = pd.concat(
        [
            pd.DataFrame(
                {
                    "model": list(original.model_names),
                    "group": [
                        "non-convolutional" if m in set(non_convolutional) else "convolutional"
                        for m in original.model_names
                    ],
                }
            ),
            accuracy_columns("orig_top1", original.correct_counts(), n_o, alpha),
            accuracy_columns("new_top1", new.correct_counts(), n_n, alpha),
            accuracy_columns("orig_top5", top5_original, n_o, alpha),
            accuracy_columns("new_top5", top5_new, n_n, alpha),
        ],
        axis=1,
    )
    df["gap_top1"] = df["orig_top1_accuracy"] - df["new_top1_accuracy"]
    df["gap_top5"] = df["orig_top5_accuracy"] - df["new_top5_accuracy"]
    df["delta_rank_top1"] = delta_rank(df["orig_top1_correct"] / n_o, df["new_top1_correct"] / n_n)
    df.insert(2, "orig_n", n_o)
    df.insert(3, "new_n", n_n)
    return df.iloc[np.argsort(-df["orig_top1_correct"].to_numpy(), kind="stable")].reset_index(drop=True)


def _subsets(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    conv = table[table["group"] == "convolutional"]
    return {f"all {len(table)} models": table, f"{len(conv)} convolutional models": conv}


def fit_table(table: pd.DataFrame) -> pd.DataFrame:
    """Least-squares line of new on original top-1 (percent) over all models and over the convolutional ones."""
    rows = []
    for name, part in _subsets(table).items():
        fit = linear_fit(part["orig_top1_accuracy"], part["new_top1_accuracy"])
        rows.append({"models": name} | asdict(fit))
    return pd.DataFrame(rows)


def fit_lines(table: pd.DataFrame, fits: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Each fit's line and pointwise ``level`` band on a grid of original accuracies (long format)."""
    x = np.linspace(max(0.0, table["orig_top1_ci_low"].min() - 2), 100, 201)
    parts = []
    for row in fits.to_dict("records"):
        fit = LinearFit(**{k: v for k, v in row.items() if k != "models"})
        y, lo, hi = fit_band(fit, x, level)
        parts.append(pd.DataFrame({"models": row["models"], "x": x, "fit": y, "band_low": lo, "band_high": hi}))
    return pd.concat(parts, ignore_index=True)


def similarity_table(
    sets: dict[str, Predictions], non_convolutional: Sequence[str] = (), eps: float = 0.01, delta: float = 0.05
) -> pd.DataFrame:
    """Mania et al.'s lens on each set, for all models and the convolutional ones: mean accuracy,
    mean similarity vs independent errors, and the testable models under the three bounds."""
    rows = []
    for set_name, preds in sets.items():
        conv = preds.drop(list(non_convolutional))
        for models, p in ((f"all {preds.num_models} models", preds), (f"{conv.num_models} convolutional", conv)):
            if p.num_models < 2:
                raise ValueError(f"{set_name}: {p.num_models} model ({models}), the similarity needs at least 2")
            errors = p.errors()
            s = summarize_similarity(errors, pairwise_similarity(errors))
            union_k, similarity_k, naive_bayes_k = testable_model_counts(
                s.n, 1.0 - s.mean_accuracy, s.mean_similarity, eps, delta
            )
            rows.append(
                {
                    "set": set_name,
                    "models": models,
                    "n": s.n,
                    "mean_accuracy": 100 * s.mean_accuracy,
                    "mean_similarity": 100 * s.mean_similarity,
                    "mean_independent_similarity": 100 * s.mean_independent_similarity,
                    "fraction_pairs_above_independent": s.fraction_above_independent,
                    "eps": eps,
                    "delta": delta,
                    "union_k": union_k,
                    "similarity_k": similarity_k,
                    "naive_bayes_k": naive_bayes_k,
                    "similarity_gain": math.nan if not union_k or similarity_k is None else similarity_k / union_k,
                }
            )
    return pd.DataFrame(rows)


def paper_check(table: pd.DataFrame) -> pd.DataFrame:
    """Our top-1 drops against Recht et al. (2019)'s 11-14% on MatchedFrequency, per model subset."""
    lo, hi = PAPER_TOP1_DROP
    rows = []
    for name, part in _subsets(table).items():
        gap = part["gap_top1"]
        inside = int(((gap >= lo) & (gap <= hi)).sum())
        rows.append(
            {
                "models": name,
                "mean_gap_top1": gap.mean(),
                "min_gap_top1": gap.min(),
                "max_gap_top1": gap.max(),
                "models_in_paper_range": inside,
                "num_models": len(part),
                "mean_in_paper_range": bool(lo <= gap.mean() <= hi),
                "mean_gap_top5": part["gap_top5"].mean(),
                "paper_low": lo,
                "paper_high": hi,
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# Markdown renderings
# ---------------------------------------------------------------------------


def _ci(df: pd.DataFrame, prefix: str) -> list[str]:
    from holdout.tables import format_interval

    cols = [f"{prefix}_accuracy", f"{prefix}_ci_low", f"{prefix}_ci_high"]
    return [format_interval(*r) for r in df[cols].to_numpy()]


def accuracies_markdown(table: pd.DataFrame) -> str:
    """Per-model table in the style of Recht et al. (2019) Table 1 (top-1 and top-5, 95% intervals)."""
    from holdout.tables import markdown_table

    df = pd.DataFrame(
        {
            "model": table["model"],
            "group": table["group"],
            "o1": _ci(table, "orig_top1"),
            "n1": _ci(table, "new_top1"),
            "g1": [f"{g:.1f}" for g in table["gap_top1"]],
            "r": [f"{int(d):+d}" if d else "0" for d in table["delta_rank_top1"]],
            "o5": _ci(table, "orig_top5"),
            "n5": _ci(table, "new_top5"),
            "g5": [f"{g:.1f}" for g in table["gap_top5"]],
        }
    )
    return markdown_table(
        df,
        {
            "model": "Model",
            "group": "Group",
            "o1": "ImageNet top-1",
            "n1": "V2 top-1",
            "g1": "Gap",
            "r": "Δ Rank",
            "o5": "ImageNet top-5",
            "n5": "V2 top-5",
            "g5": "Gap top-5",
        },
        title="ImageNet validation (n = 50,000) vs ImageNetV2 MatchedFrequency (n = 10,000)",
    )


def fits_markdown(fits: pd.DataFrame) -> str:
    """The two least-squares lines, ± one standard error."""
    from holdout.tables import markdown_table

    df = pd.DataFrame(
        {
            "models": fits["models"],
            "slope": [f"{s:.3f} ± {e:.3f}" for s, e in fits[["slope", "slope_se"]].to_numpy()],
            "intercept": [f"{s:.2f} ± {e:.2f}" for s, e in fits[["intercept", "intercept_se"]].to_numpy()],
            "r2": [f"{r:.4f}" for r in fits["r_squared"]],
            "n": fits["n"],
        }
    )
    return markdown_table(
        df,
        {"models": "Models", "slope": "Slope", "intercept": "Intercept (%)", "r2": "R^2", "n": "n"},
        notes=[
            (
                "new top-1 = slope x original top-1 + intercept, both in percent "
                "(ordinary least squares; ± one standard error)."
            )
        ],
    )


def paper_check_markdown(check: pd.DataFrame) -> str:
    """What matches Recht et al. (2019): the 11-14% top-1 drop on MatchedFrequency."""
    from holdout.tables import markdown_table

    df = pd.DataFrame(
        {
            "models": check["models"],
            "mean": [f"{v:.2f}" for v in check["mean_gap_top1"]],
            "range": [f"{a:.2f} to {b:.2f}" for a, b in check[["min_gap_top1", "max_gap_top1"]].to_numpy()],
            "inside": [f"{a} of {b}" for a, b in check[["models_in_paper_range", "num_models"]].to_numpy()],
            "top5": [f"{v:.2f}" for v in check["mean_gap_top5"]],
        }
    )
    lo, hi = PAPER_TOP1_DROP
    return markdown_table(
        df,
        {
            "models": "Models",
            "mean": "Mean top-1 drop",
            "range": "Range",
            "inside": f"Models with a drop in [{lo:g}, {hi:g}]",
            "top5": "Mean top-5 drop",
        },
        title=f"Recht et al. (2019): top-1 drops of {lo:g}% to {hi:g}% on MatchedFrequency",
        notes=["Drops in percentage points (original minus new top-1 accuracy)."],
    )


def imagenetv2_tables(
    original: Predictions,
    new: Predictions,
    top5_original: Sequence[str | Path],
    top5_new: Sequence[str | Path],
    non_convolutional: Sequence[str],
    alpha: float = 0.05,
    eps: float = 0.01,
    delta: float = 0.05,
    log: logging.Logger | None = None,
) -> dict[str, tuple[pd.DataFrame, str]]:
    """Every table of the study with its Markdown, keyed ``accuracies``, ``fit``, ``check``,
    ``similarity``: [`imagenetv2_table`][holdout.imagenetv2.core.imagenetv2_table] (``new`` restricted to ``original``'s
    models, top-5
    from the testbed's arrays), [`fit_table`][holdout.imagenetv2.core.fit_table],
    [`paper_check`][holdout.imagenetv2.core.paper_check] (logged against the
    paper's 11-14 point drop) and [`similarity_table`][holdout.imagenetv2.core.similarity_table] on both sets."""
    log = log or logging.getLogger("holdout")
    with timed(log, "top-5 from the testbed arrays"):
        new = new.subset(list(original.model_names))
        top5_o, top5_n = top5_correct(top5_original, original.labels), top5_correct(top5_new, new.labels)
    with timed(log, "accuracy table, fits, paper check"):
        table = imagenetv2_table(original, new, top5_o, top5_n, non_convolutional, alpha)
        fits, check = fit_table(table), paper_check(table)
    with timed(log, "similarity lens on both sets"):
        sim = similarity_table({original.test_set: original, new.test_set: new}, non_convolutional, eps, delta)
    for row in check.to_dict("records"):
        log.info(
            "%s: mean top-1 drop %.2f (range %.2f to %.2f; paper 11-14)",
            *(row["models"], row["mean_gap_top1"], row["min_gap_top1"], row["max_gap_top1"]),
        )
    return {
        "accuracies": (table, accuracies_markdown(table)),
        "fit": (fits, fits_markdown(fits)),
        "check": (check, paper_check_markdown(check)),
        "similarity": (
            sim,
            markdown_table(sim.round(3), title="Mania et al. lens on ImageNet and ImageNetV2 (percent)"),
        ),
    }
