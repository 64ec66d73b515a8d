"""Optional audit lens (``holdout audit --adaptive``): the adaptive analyst study on the researcher's models.

Runs [`holdout.adaptive.study.run_study`][holdout.adaptive.study.run_study] on the audited predictions (the same
attacks, mechanisms and Section 4 bound as ``results/adaptive/``):
[`adaptive_lens`][holdout.audit.engines.adaptive_lens.adaptive_lens] computes,
[`write_adaptive`][holdout.audit.engines.adaptive_lens.write_adaptive] writes ``adaptive/table.csv``, ``table.md``,
``overfit.png/.pdf/.csv`` and ``summary.json`` under the audit's output folder, and the report gets a section with
the figure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from holdout.adaptive.plots import overfit_figure
from holdout.adaptive.study import StudyParams, models_similarity, run_study, summarize
from holdout.plotting import save_figure
from holdout.predictions import Predictions
from holdout.tables import write_table

__all__ = [
    "AUDIT_PARAMS",
    "AdaptiveLens",
    "adaptive_lens",
    "adaptive_report_table",
    "adaptive_summary",
    "write_adaptive",
]

#: the audit's settings: fewer splits and queries than results/adaptive/ (seconds on 10,000 images)
AUDIT_PARAMS = StudyParams(n_splits=5, k_grid=(1, 2, 5, 10, 20, 50, 100, 200), ensemble_k_max=50)


@dataclass(frozen=True)
class AdaptiveLens:
    """The summarized study ([`holdout.adaptive.study.summarize`][holdout.adaptive.study.summarize]), the models' mean
    pairwise
    similarity and the half-size n the attacks saw."""

    table: pd.DataFrame
    models_similarity: float
    n_half: int
    delta: float = AUDIT_PARAMS.delta


def adaptive_lens(preds: Predictions, params: StudyParams | None = None) -> AdaptiveLens:
    """Attack the audited test set with every attack against every mechanism (over seeded splits)."""
    params = params or AUDIT_PARAMS
    table = summarize(run_study(preds, params), params.delta)
    return AdaptiveLens(table, models_similarity(preds), preds.num_examples // 2, params.delta)


def _at(t: pd.DataFrame, attack: str, mechanism: str) -> pd.Series | None:
    """The row of ``attack`` x ``mechanism`` at its largest k, or None when it did not run."""
    rows = t[(t["attack"] == attack) & (t["mechanism"] == mechanism)]
    return None if rows.empty else rows.loc[rows["k"].idxmax()]


def _bound_sentence(worst: pd.Series, delta: float) -> str:
    """Mania et al.'s Sec. 4 bound said as what it is: alpha = 0 a theorem, alpha > 0 conditional."""
    return (
        f"Mania et al.'s Sec. 4 bound at alpha = 0 is a theorem, not a measurement: whatever the data, "
        f"after k = {int(worst['k'])} queries the overfit exceeds {worst['bound_theorem']:.3f} with "
        f"probability at most delta = {delta:g}"
        + (" (above 1: vacuous)" if worst["bound_theorem"] > 1 else "")
        + f"; if the covering condition held at the queries' measured similarity ({worst['similarity']:.3f}), "
        f"an assumption over every query the analyst could ask that the data cannot check, it would be "
        f"{worst['bound_if_covering']:.3f}."
    )


def _ladder_sentence(t: pd.DataFrame) -> str:
    """Blum & Hardt's setting: the Ladders against exact answers, said as a measurement."""
    triv, lad, free = (_at(t, "boosting_random", m) for m in ("trivial", "ladder", "ladder_free"))
    if triv is None or lad is None or free is None:
        return ""
    return (
        f"In Blum & Hardt's setting (random labels on a test set of the same size, k = {int(triv['k'])}) "
        f"the boosting attack reaches {triv['overfit_mean']:.3f} against exact answers, "
        f"{lad['overfit_mean']:.3f} against the Ladder and {free['overfit_mean']:.3f} against the "
        f"parameter-free Ladder: the Ladder reduces the attack here, a measurement (Blum & Hardt's theorem "
        f"for the Ladder is a worst-case bound; it is not what these numbers show)."
    )


def _thresholdout_sentence(t: pd.DataFrame) -> str:
    """Thresholdout on S_h beside a trivial holdout of the same size, its share of answers from S_h,
    and the score it would report for the submission."""
    thr, half = _at(t, "boosting", "thresholdout"), _at(t, "boosting", "trivial_half")
    if thr is None or half is None:
        return ""
    return (
        f"Thresholdout keeps its holdout S_h at {thr['overfit_mean']:.3f} (a trivial mechanism over a "
        f"holdout of the same size: {half['overfit_mean']:.3f}); it answered "
        f"{100 * thr['frac_from_holdout']:.0f}% of the queries from S_h and would report "
        f"{thr['reported_minus_heldout_mean']:+.3f} above the submission's held-out accuracy; with no budget "
        f"fixed in advance no theorem covers it (S_h is where its guarantee would live). Its training half "
        f"S_t, the analyst's data, is exposed by design ({thr['overfit_train_mean']:.3f})."
    )


def _headline_sentence(worst: pd.Series, n_half: int) -> str:
    """The largest overfit against exact answers, with the submission's and the base's accuracies."""
    base = {"boosting": "the base, your most accurate model,", "ensemble": "the vote of all your models"}
    start = base.get(str(worst["attack"]), "the first query")
    return (
        f"An adaptive analyst with exact answers reaches {worst['overfit_mean']:.3f} mean overfit "
        f"({worst['attack']}, k = {int(worst['k'])}) on n = {n_half} per half, with a submitted classifier "
        f"scoring {worst['acc_attack']:.3f} on the leaderboard half and {worst['acc_heldout']:.3f} on the "
        f"held-out half, where {start} scores {worst['base_acc_attack']:.3f}: the size of the bias "
        f"adaptivity can create at this n, not an inflated best score. "
    )


def adaptive_summary(lens: AdaptiveLens) -> dict[str, object]:
    """Largest overfit, the smallest margin under the alpha = 0 bound (a theorem), and a verdict that
    says the bound is a theorem at alpha = 0 and conditional at alpha > 0."""
    t = lens.table
    # the headline comes from the attacks on the audited predictions, not Blum & Hardt's random labels
    trivial = t[(t["mechanism"] == "trivial") & (t["attack"] != "boosting_random")]
    trivial = trivial if not trivial.empty else t[t["mechanism"] == "trivial"]
    worst = trivial.loc[trivial["overfit_mean"].idxmax()]
    verdict = _headline_sentence(worst, lens.n_half) + _bound_sentence(worst, lens.delta)
    more = " ".join(x for x in (_ladder_sentence(t), _thresholdout_sentence(t)) if x)
    return {
        "models_similarity": lens.models_similarity,
        "max_overfit": float(t["overfit_max"].max()),
        "below_theorem_bound": bool((t["margin"] > 0).all()),
        "min_margin": float(t["margin"].min()),
        "verdict": verdict + (f" {more}" if more else ""),
    }


def adaptive_report_table(lens: AdaptiveLens) -> pd.DataFrame:
    """The report's rows: each attack x mechanism at its largest k."""
    t = lens.table
    last = t.loc[t.groupby(["attack", "mechanism"], sort=False)["k"].idxmax()]
    cols = ["attack", "mechanism", "k", "guarded_on", "overfit_mean", "overfit_max", "overfit_train_mean"]
    cols += ["acc_attack", "acc_heldout", "base_acc_attack", "reported_minus_heldout_mean", "frac_from_holdout"]
    return last[cols + ["sqrt_k_over_n", "bound_theorem", "bound_if_covering"]]


def write_adaptive(lens: AdaptiveLens, out: Path, label: str) -> dict[str, Path]:
    """``adaptive/table.{csv,md}``, ``adaptive/summary.json`` and the overfit figure (PNG, PDF, CSV);
    returns name -> PNG for the report."""
    folder = Path(out) / "adaptive"
    folder.mkdir(parents=True, exist_ok=True)
    write_table(lens.table, folder / "table.csv", folder / "table.md")
    fig, data = overfit_figure(lens.table, label, stacked=True)  # the report's width, legible on a phone
    save_figure(fig, folder / "overfit.png", folder / "overfit.pdf", data, folder / "overfit.csv")
    (folder / "summary.json").write_text(json.dumps(adaptive_summary(lens), indent=2) + "\n")
    return {"adaptive_overfit": folder / "overfit.png"}
