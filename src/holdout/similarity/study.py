"""The similarity study of one test set and the Mania-Table-1-like table (Mania et al. 2019).

Pure functions from a [`holdout.predictions.Predictions`][holdout.predictions.Predictions] to the tables the workflow
writes (``results/similarity/<set>/*.csv``, ``summary.json``, ``table1.*``); the scripts in
``workflow/scripts/similarity_*.py`` only read inputs, call these and write outputs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from holdout.bounds.study import count_testable_models
from holdout.predictions import Predictions
from holdout.similarity.core import (
    Method,
    covering_numbers,
    difficulty_distribution,
    independent_similarity_matrix,
    pairwise_similarity,
    resolve_subset,
    summarize_similarity,
    upper_pairs,
)
from holdout.tables import fmt_gain, markdown_table

__all__ = [
    "SetAnalysis",
    "analyse_set",
    "drop_excluded",
    "eta_grid",
    "measured_setting",
    "table1_markdown",
    "table1_rows",
    "write_analysis",
]


@dataclass(frozen=True)
class SetAnalysis:
    """The tables of one test set: per model, per pair, covering numbers, difficulty and summary."""

    models: pd.DataFrame
    pairs: pd.DataFrame
    covering: pd.DataFrame
    difficulty: pd.DataFrame
    summary: dict[str, Any]


def drop_excluded(preds: Predictions, exclude: Sequence[str]) -> tuple[Predictions, list[str]]:
    """``preds`` without the models of ``exclude`` that it holds, and the names dropped."""
    excluded = [m for m in exclude if m in preds.model_names]
    return preds.drop(excluded), excluded


def eta_grid(eta_min: float, eta_max: float, eta_num: int) -> np.ndarray:
    """The similarity thresholds eta of the covering numbers (config ``similarity.eta``)."""
    if eta_min > eta_max:
        raise ValueError(f"config similarity.eta: min={eta_min} is above max={eta_max}")
    return np.linspace(eta_min, eta_max, eta_num)


def analyse_set(
    preds: Predictions,
    *,
    test_set: str,
    source: str,
    etas: np.ndarray,
    method: Method = "matmul",
    quantiles: Sequence[float] = (0.05, 0.25, 0.5, 0.75, 0.95),
    excluded: Sequence[str] = (),
) -> SetAnalysis:
    """Similarity (Sec. 2), independent baseline (Sec. 5.1), covering numbers (Def. 1) and
    difficulty (App. C, Fig. 4) of the models of ``preds`` on one test set."""
    if preds.num_models < 2:
        raise ValueError(
            f"{source}: need at least 2 models after excluding similarity.exclude_models, got {preds.num_models}"
        )
    errors = preds.errors()
    error_rates = errors.mean(axis=1)
    sim = pairwise_similarity(errors, method=method)
    indep = independent_similarity_matrix(error_rates)
    summary = summarize_similarity(errors, sim, quantiles=quantiles)
    at_most = difficulty_distribution(errors)
    names = np.array(list(preds.model_names))
    acc = 1.0 - error_rates
    iu, ju = np.triu_indices(len(names), k=1)
    counts = np.bincount(errors.sum(axis=0), minlength=len(names) + 1)
    out = {
        "test_set": test_set,
        "source": source,
        "n": summary.n,
        "num_models": summary.num_models,
        "num_pairs": summary.num_pairs,
        "excluded_models": list(excluded),
        "mean_accuracy": summary.mean_accuracy,
        "mean_similarity": summary.mean_similarity,
        "mean_independent_similarity": summary.mean_independent_similarity,
        "min_similarity": summary.min_similarity,
        "max_similarity": summary.max_similarity,
        "fraction_pairs_above_independent": summary.fraction_above_independent,
        "similarity_quantiles": {str(q): v for q, v in summary.similarity_quantiles.items()},
        "independent_similarity_quantiles": {str(q): v for q, v in summary.independent_quantiles.items()},
        "fraction_correct_by_all": float(at_most[0]),
        "fraction_wrong_by_all": float(1.0 - at_most[-2]),
    }
    return SetAnalysis(
        models=pd.DataFrame({"model": names, "accuracy": acc, "num_errors": errors.sum(axis=1)}),
        pairs=pd.DataFrame(
            {
                "model_i": names[iu],
                "model_j": names[ju],
                "accuracy_i": acc[iu],
                "accuracy_j": acc[ju],
                "similarity": sim[iu, ju],
                "independent_similarity": indep[iu, ju],
            }
        ),
        covering=pd.DataFrame(
            {
                "eta": np.round(etas, 10),
                "covering_number_upper_bound": covering_numbers(sim, error_rates, etas),
                "num_models": len(names),
            }
        ),
        difficulty=pd.DataFrame(
            {
                "m": np.arange(len(names) + 1),
                "num_points_misclassified_by_exactly_m": counts,
                "fraction_misclassified_by_at_most_m": at_most,
            }
        ),
        summary=out,
    )


def write_analysis(analysis: SetAnalysis, outputs: Mapping[str, str | Path]) -> None:
    """Write the tables of [`analyse_set`][holdout.similarity.study.analyse_set] to ``outputs`` (keys models, pairs,
    covering,
    difficulty: CSV; summary: JSON), as ``results/similarity/<set>/`` holds them."""
    analysis.models.to_csv(outputs["models"], index=False)
    analysis.pairs.to_csv(outputs["pairs"], index=False, float_format="%.6f")
    analysis.covering.to_csv(outputs["covering"], index=False)
    analysis.difficulty.to_csv(outputs["difficulty"], index=False)
    with open(outputs["summary"], "w") as fh:
        json.dump(analysis.summary, fh, indent=2)


def measured_setting(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The measured setting that the bounds study reads (``results/similarity/imagenet/setting.json``)
    from the summary of [`analyse_set`][holdout.similarity.study.analyse_set]."""
    setting = {
        key: summary[key]
        for key in ("n", "mean_accuracy", "mean_similarity", "mean_independent_similarity", "num_models")
    }
    setting["source"] = (
        f"measured by the similarity study on {summary['test_set']} ({summary['source']}); "
        f"excluded models: {', '.join(summary['excluded_models']) or 'none'}"
    )
    setting["test_set"] = summary["test_set"]
    return setting


def table1_rows(
    preds: Predictions,
    *,
    test_set: str,
    subsets: Sequence[Mapping[str, Any]],
    eps_values: Sequence[float],
    delta: float,
    n: int | None = None,
) -> pd.DataFrame:
    """Rows of a Mania-Table-1-like table for one test set: all models, then each subset of
    ``subsets`` (see [`resolve_subset`][holdout.similarity.study.resolve_subset]), at every eps; k by the union (2),
    similarity (3)+(8)
    and naive-Bayes (A1) bounds via
    [`holdout.bounds.study.count_testable_models`][holdout.bounds.study.count_testable_models] and the gains.

    ``n`` (default: the test set's size) is the number of test points the bounds assume.
    """
    n = int(n) if n else preds.num_examples
    acc = preds.accuracies()
    specs = [{"name": f"all {preds.num_models} models", "models": list(preds.model_names)}, *subsets]
    rows = []
    for spec in specs:
        names = resolve_subset(preds.model_names, acc, dict(spec))
        if len(names) < 2:
            raise ValueError(f"similarity.table1.subsets: {spec['name']!r} selects fewer than 2 models on {test_set}")
        sub = preds.subset(names)
        errors = sub.errors()
        mean_acc = float(sub.accuracies().mean())
        mean_sim = float(upper_pairs(pairwise_similarity(errors)).mean())
        mean_ind = float(upper_pairs(independent_similarity_matrix(errors.mean(axis=1))).mean())
        for eps in eps_values:
            tm = count_testable_models(n, 1.0 - mean_acc, mean_sim, float(eps), float(delta))
            rows.append(
                {
                    "test_set": test_set,
                    "models": spec["name"],
                    "num_models": len(names),
                    "model_names": " ".join(names),
                    "n": n,
                    "eps": eps,
                    "delta": delta,
                    "mean_accuracy": mean_acc,
                    "mean_similarity": mean_sim,
                    "mean_independent_similarity": mean_ind,
                    "k_union": tm.union_k,
                    "k_similarity": tm.similarity_k,
                    "k_naive_bayes": tm.naive_bayes_k,
                    "gain_similarity": tm.similarity_gain,
                    "gain_naive_bayes": tm.naive_bayes_gain,
                }
            )
    return pd.DataFrame(rows)


def _gain(x: float) -> str:
    return "n/a (k_UB = 0)" if not math.isfinite(x) else fmt_gain(x)


_TABLE1_COLUMNS = {
    "test_set": "Test set",
    "models": "Models",
    "num_models": "K",
    "n": "n",
    "eps": "eps",
    "mean_accuracy": "Mean accuracy",
    "mean_similarity": "Mean similarity",
    "mean_independent_similarity": "Independent",
    "k_union": "k (UB)",
    "gain_similarity": "SB",
    "gain_naive_bayes": "NBB",
}


def table1_markdown(table: pd.DataFrame) -> str:
    """The Markdown of ``results/similarity/table1.md``: the rows of
    [`table1_rows`][holdout.similarity.study.table1_rows] of every
    test set, as Mania et al. Table 1 prints them (percentages, gains 9.9x / 1.6e4x)."""
    shown = pd.DataFrame(
        {
            "test_set": table.test_set,
            "models": table.models,
            "num_models": table.num_models,
            "n": [f"{v:,}" for v in table.n],
            "eps": [f"{v:g}" for v in table.eps],
            **{
                c: [f"{100 * v:.1f}%" for v in table[c]]
                for c in ("mean_accuracy", "mean_similarity", "mean_independent_similarity")
            },
            "k_union": [f"{v:,}" for v in table.k_union],
            "gain_similarity": [_gain(v) for v in table.gain_similarity],
            "gain_naive_bayes": [_gain(v) for v in table.gain_naive_bayes],
        }
    )
    align = {c: "r" for c in list(_TABLE1_COLUMNS)[2:]}
    note = (
        f"\ndelta = {table['delta'].iloc[0]:g}. SB, NBB: the number of testable models by the similarity bound "
        "and by the naive Bayes bound, divided by that of the union bound (UB) "
        "(Mania et al. 2019, Table 1: 20 random DARTS models, 96.8% / 97.5%: SB 9.9x, NBB 1.6e4x).\n"
    )
    return markdown_table(shown, _TABLE1_COLUMNS, align) + note
