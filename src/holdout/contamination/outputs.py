"""The public anchors' files (the ``contamination_anchors`` job): for each anchor of
[`holdout.contamination.anchors`][holdout.contamination.anchors], its table, its figure with the
figure's values in a CSV beside it, and the numbers and findings that go into ``summary.json``.

Each function takes the input paths and a mapping of output names to paths (the job's outputs,
named as in ``workflow/rules/contamination.smk``) and returns ``(numbers, findings)``: the numbers
under their key of ``summary.json``'s ``numbers`` and what is off in the files, one line each.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from holdout.contamination import anchors as A
from holdout.contamination import plots
from holdout.leaderboards import accuracy_table_audit
from holdout.plotting import save_figure

__all__ = ["gsm1k_files", "matharena_files", "mmlu_cf_files", "obsscaling_files", "write_summary"]

Paths = Mapping[str, str | Path]


def gsm1k_files(diff: str | Path, loglik: str | Path, out: Paths, alpha: float) -> tuple[dict, list[str]]:
    """GSM1k (Zhang et al. 2024): the per-model gaps (``gsm1k``), the gap figure (``gsm1k_png``,
    ``gsm1k_pdf``, ``gsm1k_csv``); the numbers of [`gsm1k_anchor`][holdout.contamination.anchors.gsm1k_anchor]."""
    df, found = A.read_gsm1k(diff, loglik)
    numbers, per_model = A.gsm1k_anchor(df, alpha)
    per_model.to_csv(out["gsm1k"], index=False)
    fig, data = plots.plot_gsm1k(per_model, numbers["spearman_r"])
    save_figure(fig, out["gsm1k_png"], out["gsm1k_pdf"], data, out["gsm1k_csv"])
    return numbers, found


def mmlu_cf_files(path: str | Path, out: Paths, alpha: float) -> tuple[dict, list[str]]:
    """MMLU-CF (Zhao et al. 2024): the 5-shot gaps (``mmlu_cf``) and their figure, and the accuracy-table
    audit of MMLU against MMLU-CF (``mmlu_vs_cf``); numbers under ``mmlu_cf_5shot``, ``mmlu_cf_0shot``
    and ``mmlu_vs_cf`` (the probit line, the models off it after Holm, the mean gap in points)."""
    table, found = A.read_mmlu_cf(path)
    numbers = {}
    numbers["mmlu_cf_5shot"], gaps = A.mmlu_cf_anchor(table, "5shot", alpha)
    numbers["mmlu_cf_0shot"], _ = A.mmlu_cf_anchor(table, "0shot", alpha)
    gaps.to_csv(out["mmlu_cf"], index=False)
    fig, data = plots.plot_mmlu_cf(gaps)
    save_figure(fig, out["mmlu_cf_png"], out["mmlu_cf_pdf"], data, out["mmlu_cf_csv"])
    audit = accuracy_table_audit(
        table["model"], table["mmlu_5shot"] / 100, table["cf_test_5shot"] / 100, A.MMLU_N, A.MMLU_CF_N, alpha
    )
    audit.models.to_csv(out["mmlu_vs_cf"], index=False)
    numbers["mmlu_vs_cf"] = {
        "probit_slope": audit.probit.slope,
        "probit_intercept": audit.probit.intercept,
        "off_the_line_holm": int(audit.models["er_significant"].sum()),
        "mean_gap_points": float(audit.models["gap"].mean()),
    }
    return numbers, found


def obsscaling_files(path: str | Path, obs: Mapping[str, object], seed: int, out: Paths) -> tuple[dict, list[str]]:
    """ObsScaling (Ruan et al. 2024) through ConStat's reference lens (spline): the models (``obsscaling``)
    and the lens figure; ``obs`` is the config's ``contamination.obsscaling`` (reference, benchmark,
    sizes, chance, n_bootstrap). Numbers: the models, those above the interval, those significant after Holm."""
    df, found = A.read_obsscaling(path, obs["reference"], obs["benchmark"])
    lens = A.obsscaling_anchor(df, tuple(obs["sizes"]), tuple(obs["chance"]), obs["n_bootstrap"], seed, "spline")
    lens.models.to_csv(out["obsscaling"], index=False)
    label = f"{obs['reference']} (%)", f"{obs['benchmark']} (%)"
    fig, data = plots.plot_reference_lens(lens.models, lens.curve, *label)
    save_figure(fig, out["obsscaling_png"], out["obsscaling_pdf"], data, out["obsscaling_csv"])
    above = lens.models[lens.models["delta_low"] > 0]
    numbers = {"models": len(df), "above_interval": len(above), "above_holm": int(lens.models["significant"].sum())}
    return numbers, found


def matharena_files(models: str | Path, competitions: str | Path, out: Paths) -> list[str]:
    """MathArena: each model's release against each competition's date (``matharena``) and its figure;
    the findings (no numbers)."""
    table, comps, found = A.read_matharena(models, competitions)
    dates = A.matharena_dates(table, comps)
    dates.to_csv(out["matharena"], index=False)
    fig, data = plots.plot_matharena(dates)
    save_figure(fig, out["matharena_png"], out["matharena_pdf"], data, out["matharena_csv"])
    return found


def write_summary(path: str | Path, numbers: Mapping[str, object], findings: Mapping[str, Sequence[str]]) -> None:
    """``summary.json``: ``{"numbers": ..., "findings": ...}``, indented, numpy scalars as floats."""
    with open(path, "w") as fh:
        json.dump({"numbers": numbers, "findings": findings}, fh, indent=2, default=float)
