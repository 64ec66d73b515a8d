"""The four lenses side by side for the models the workflow trains.

Inputs are the contract files of the search and adversarial studies:

* ``results/search/predictions/cifar10_test.npz`` ([`holdout.predictions`][holdout.predictions]; model names
  ``m<index:03d>@e<epoch:03d>``, one entry per sampled configuration and evaluated epoch);
* ``results/search/configs.csv`` (one row per sampled configuration: the grid of the search);
* ``results/search/predictions/cifar10_1_v6.npz`` (same names; only when the images exist);
* ``results/adversarial_cifar10/pvalues.csv`` (columns model, set, aeg, sample_size, p_value;
  models ``seed<seed:03d>``, set ``train`` or ``test``).

The search's models are taken at their last evaluated epoch (one per configuration). The row
"RvW bound, best of the search" describes the most accurate of them by its index into the G
sampled configurations: ceil(log2 G) bits (Arora & Zhang 2021, Theorem 3.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from holdout.audit.engines.core import (
    AuditError,
    accuracy_lens,
    align_models,
    bounds_lens,
    rvw_lens,
    similarity_lens,
)
from holdout.predictions import Predictions
from holdout.rvw.core import index_bits

__all__ = [
    "PVALUE_COLUMNS",
    "OwnModels",
    "final_epoch_models",
    "own_models",
    "own_models_markdown",
    "parse_search_name",
]

SEARCH_NAME = re.compile(r"^m(\d{3,})@e(\d{3,})$")
PVALUE_COLUMNS = ("model", "set", "aeg", "sample_size", "p_value")


def parse_search_name(name: str) -> tuple[int, int]:
    """``m012@e040`` -> (12, 40); anything else raises [`AuditError`][holdout.audit.engines.own_models.AuditError]."""
    match = SEARCH_NAME.match(name)
    if match is None:
        raise AuditError(f"model name {name!r} is not of the form m<index:03d>@e<epoch:03d>")
    return int(match.group(1)), int(match.group(2))


def final_epoch_models(names: tuple[str, ...] | list[str]) -> list[str]:
    """One name per configuration index: the one with the largest epoch (in index order)."""
    last: dict[int, tuple[int, str]] = {}
    for name in names:
        index, epoch = parse_search_name(name)
        if index not in last or epoch > last[index][0]:
            last[index] = (epoch, name)
    return [last[i][1] for i in sorted(last)]


@dataclass(frozen=True)
class OwnModels:
    """``lenses``: one row per lens (lens, paper, models, value, low, high, detail; percent where
    accuracies); ``models``: per final search model, test accuracy with interval and the v6 gap."""

    lenses: pd.DataFrame
    models: pd.DataFrame


def _row(
    lens: str, paper: str, models: str, value: float, low: float = np.nan, high: float = np.nan, detail: str = ""
) -> dict[str, object]:
    return {"lens": lens, "paper": paper, "models": models, "value": value, "low": low, "high": high, "detail": detail}


def _pvalue_row(pvalues: pd.DataFrame | None, delta: float) -> dict[str, object]:
    lens, paper = "Adversarial test p-value", "Werpachowski et al. (2019)"
    if pvalues is None:
        return _row(lens, paper, "-", np.nan, detail="n/a: the adversarial CIFAR-10 study is not enabled")
    missing = [c for c in PVALUE_COLUMNS if c not in pvalues.columns]
    if missing:
        raise AuditError(f"pvalues.csv: missing columns {missing} (need {', '.join(PVALUE_COLUMNS)})")
    test = pvalues[pvalues["set"] == "test"]["p_value"].to_numpy(dtype=float)
    train = pvalues[pvalues["set"] == "train"]["p_value"].to_numpy(dtype=float)
    if test.size == 0:
        return _row(lens, paper, "-", np.nan, detail="n/a: no rows with set = test in pvalues.csv")
    detail = (
        f"median over {test.size} seeds on the test set; min {test.min():.3g}; {int((test < delta).sum())} "
        f"below delta = {delta:g}"
    )
    if train.size:
        detail += f"; training set (control): median {np.median(train):.3g}"
    return _row(lens, paper, f"{test.size} seeds", float(np.median(test)), float(test.min()), float(test.max()), detail)


def own_models(
    test: Predictions,
    configs: pd.DataFrame,
    *,
    v6: Predictions | None = None,
    pvalues: pd.DataFrame | None = None,
    eps: float = 0.01,
    delta: float = 0.05,
    alpha: float = 0.05,
    C: float = 5000,
) -> OwnModels:
    """The lens table and the per-model table of the search's final models (see module docstring)."""
    final = test.subset(final_epoch_models(test.model_names))
    acc = accuracy_lens(final, alpha)
    best = acc.iloc[0]
    k, grid = final.num_models, len(configs)
    if grid < k:
        raise AuditError(f"configs.csv: {grid} configurations but {k} models in the test predictions")
    rows = [
        _row(
            "Test accuracy (best model)",
            "Recht et al. (2018)",
            f"{k} configurations",
            best["accuracy"],
            best["ci_low"],
            best["ci_high"],
            f"{best['model']}, n = {int(best['n']):,}, {100 * (1 - alpha):.0f}% Clopper-Pearson",
        )
    ]
    models = acc[["model", "accuracy", "ci_low", "ci_high"]].copy()
    if v6 is not None:
        new = align_models(final, v6.subset([m for m in v6.model_names if m in final.model_names]), "cifar10_1_v6.npz")
        v6_acc = accuracy_lens(new, alpha).set_index("model")["accuracy"]
        models["cifar10_1_v6_accuracy"] = models["model"].map(v6_acc)
        models["gap"] = models["accuracy"] - models["cifar10_1_v6_accuracy"]
        rows.append(
            _row(
                "CIFAR-10.1 gap (best model)",
                "Recht et al. (2018)",
                f"{k} configurations",
                float(models["gap"].iloc[0]),
                detail=f"mean gap over the {k} models "
                f"{models['gap'].mean():.2f} points (test minus CIFAR-10.1 v6 accuracy)",
            )
        )
    else:
        rows.append(
            _row(
                "CIFAR-10.1 gap",
                "Recht et al. (2018)",
                "-",
                np.nan,
                detail="n/a: CIFAR-10.1 images absent (no cifar10_1_v6 predictions)",
            )
        )
    rows.append(_similarity_row(final, eps, delta))
    bits = index_bits(grid)
    rvw = rvw_lens(acc, bits, f"index into {grid} configurations", C=C, delta=delta)
    rows.append(
        _row(
            "RvW bound, best of the search",
            "Arora & Zhang (2021)",
            f"best of {grid}",
            100 * rvw.bound,
            detail=f"{rvw.model}: test error {100 * rvw.test_error:.2f}%, "
            f"{bits} bits (ceil(log2 {grid})), C = {C:g}, delta = {delta:g}; population error "
            f"at most {100 * rvw.bound:.2f}%",
        )
    )
    rows.append(_pvalue_row(pvalues, delta))
    return OwnModels(pd.DataFrame(rows), models)


def _similarity_row(final: Predictions, eps: float, delta: float) -> dict[str, object]:
    lens, paper = "Similarity-bound gain", "Mania et al. (2019)"
    if final.num_models < 2:
        return _row(lens, paper, "1 model", np.nan, detail="n/a: similarity needs at least 2 models")
    s = similarity_lens(final, [1.0], "cifar10_test.npz").summary
    t = bounds_lens(s.n, s.mean_accuracy, s.mean_similarity, eps, delta, s.num_models)
    context = (
        f"eps = {eps:g}, delta = {delta:g}, n = {s.n:,}, mean accuracy {100 * s.mean_accuracy:.1f}%, "
        f"mean similarity {100 * s.mean_similarity:.1f}%"
    )
    if t.similarity_k is None:
        return _row(
            lens,
            paper,
            f"{s.num_models} configurations",
            np.nan,
            detail=f"n/a: the models agree less than independent errors would; k_UB = {t.union_k:,} at {context}",
        )
    return _row(
        lens,
        paper,
        f"{s.num_models} configurations",
        t.similarity_gain,
        detail=f"k_SB = {t.similarity_k:,} vs k_UB = {t.union_k:,} at {context}",
    )


def own_models_markdown(result: OwnModels) -> str:
    """The lens table as Markdown (values formatted per lens)."""
    from holdout.tables import markdown_table

    def fmt(row: pd.Series) -> str:
        if pd.isna(row["value"]):
            return "n/a"
        if row["lens"].startswith("Similarity"):
            return f"{row['value']:.3g}x"
        if row["lens"].startswith("Adversarial"):
            return f"{row['value']:.3g}"
        if not pd.isna(row["low"]):
            return f"{row['value']:.2f}% [{row['low']:.2f}, {row['high']:.2f}]"
        return f"{row['value']:.2f}%"

    df = result.lenses.assign(shown=result.lenses.apply(fmt, axis=1))
    return markdown_table(
        df,
        {"lens": "Lens", "paper": "Paper", "models": "Models", "shown": "Value", "detail": "Detail"},
        title="The four lenses on our own trained models",
    )
