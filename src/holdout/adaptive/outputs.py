"""The adaptive study's outputs for one test set: the summary table (CSV + Markdown) and ``summary.json``."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from holdout.adaptive.study import StudyParams, models_similarity, run_study, summarize
from holdout.predictions import Predictions
from holdout.tables import markdown_table, write_table

__all__ = ["TABLE_COLUMNS", "headline", "study_summary", "table_markdown", "write_study"]

#: the Markdown table's columns (the CSV holds every column of the summary)
TABLE_COLUMNS = (
    "attack",
    "mechanism",
    "k",
    "guarded_on",
    "overfit_mean",
    "overfit_sd",
    "overfit_max",
    "overfit_train_mean",
    "acc_attack",
    "acc_heldout",
    "base_acc_attack",
    "reported_minus_heldout_mean",
    "frac_from_holdout",
    "similarity",
    "sqrt_k_over_n",
    "bound_theorem",
    "bound_if_covering",
)

_NOTES = (
    "overfit = accuracy of the submitted classifier where the mechanism's guarantee would live (guarded_on: the "
    "attack half A, or Thresholdout's holdout S_h) minus its accuracy on the held-out half H, over splits; "
    "overfit_train_mean: on Thresholdout's training half S_t, the analyst's data, exposed by design.",
    "trivial_half: the trivial mechanism over S_h alone (a holdout of Thresholdout's size), measured on S_h.",
    "boosting_random: Blum & Hardt's setting (random binary labels, random base); boosting: the real predictions.",
    "acc_attack / acc_heldout: the submitted classifier's accuracy on A (the leaderboard) and on H; base_acc_attack: "
    "query 0's on A (boosting: the base, the most accurate model; ensemble: the vote of every model; selection: the "
    "first model drawn). reported_minus_heldout_mean: the score the mechanism would report for the submission "
    "(asked as one more query) minus its accuracy on H. frac_from_holdout: Thresholdout's share of answers from S_h.",
    "bound_theorem: Mania et al. Corollary 4 (eq. 7) at alpha = 0, a theorem (fails w.p. at most delta); "
    "bound_if_covering: the smallest over alpha, valid only if the covering condition holds at the queries' "
    "measured similarity (a heuristic). Both at n = n_guarded, submission as query k+1, plus H's Hoeffding term; "
    "strictly the corollary is for the trivial mechanism (its n + 1 possible answers): on the Ladder and "
    "Thresholdout rows the bound is drawn for comparison only.",
)


def table_markdown(table: pd.DataFrame, test_set: str) -> str:
    """The summary table as Markdown: the columns of ``TABLE_COLUMNS``, 4 decimals, with the notes."""
    shown = table[list(TABLE_COLUMNS)].copy()
    for c in TABLE_COLUMNS[4:]:
        shown[c] = shown[c].map(lambda v: f"{v:.4f}")
    return markdown_table(shown, title=f"Adaptive overfitting on {test_set}", notes=list(_NOTES))


def headline(table: pd.DataFrame) -> list[dict[str, object]]:
    """Every attack x mechanism at the attack's largest k (the study page's table)."""
    last = table.loc[table.groupby(["attack", "mechanism"], sort=False)["k"].idxmax()]
    cols = ["attack", "mechanism", "k", "guarded_on", "n_guarded", "overfit_mean", "overfit_sd", "overfit_max"]
    cols += ["overfit_attack_mean", "overfit_train_mean", "acc_attack", "acc_heldout", "base_acc_attack"]
    cols += ["base_acc_heldout", "reported_minus_heldout_mean", "frac_from_holdout", "bound_theorem"]
    cols += ["bound_if_covering"]
    rows = last[cols].astype(object)
    return rows.where(rows.notna(), None).to_dict(orient="records")  # nan (no Thresholdout share): null


def study_summary(preds: Predictions, params: StudyParams, table: pd.DataFrame) -> dict[str, object]:
    """``summary.json``: the set, the models' similarity, the headline rows, the largest overfit, and
    the smallest margin under the alpha = 0 bound (a theorem: a negative margin would point to a bug
    or to the delta chance, not to a finding about the data)."""
    worst = table.loc[table["margin"].idxmin()]
    return {
        "test_set": preds.test_set,
        "num_models": preds.num_models,
        "n": preds.num_examples,
        "models_similarity": models_similarity(preds),
        "params": asdict(params),
        "max_overfit": float(table["overfit_max"].max()),
        "below_theorem_bound": bool((table["margin"] > 0).all()),
        "min_margin": float(worst["margin"]),
        "min_margin_at": {"attack": worst["attack"], "mechanism": worst["mechanism"], "k": int(worst["k"])},
        "headline": headline(table),
    }


def write_study(preds: Predictions, params: StudyParams, out: dict[str, Path], progress=None) -> dict[str, object]:
    """Run the study and write ``out['runs']``, ``table_csv``, ``table_md`` and ``summary``; returns the summary."""
    runs = run_study(preds, params, progress=progress)
    runs.to_csv(out["runs"], index=False)
    table = summarize(runs, params.delta)
    write_table(table, out["table_csv"], out["table_md"], table_markdown(table, preds.test_set))
    summary = study_summary(preds, params, table)
    Path(out["summary"]).write_text(json.dumps(summary, indent=2, default=list) + "\n")
    return summary
