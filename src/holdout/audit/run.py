"""The whole audit: run the chosen lenses on loaded predictions, then write every output.

[`run_audit`][holdout.audit.run.run_audit] is pure (predictions in, [`AuditResult`][holdout.audit.run.AuditResult] out);
[`write_audit`][holdout.audit.run.write_audit] writes
CSVs of every number, PNG/PDF figures (with the CSV of their plotted values), ``summary.json``,
the self-contained ``report.html`` and its first block as ``summary.md`` into one folder.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.audit.applicable import _adaptive_or_reason, _bounds_or_reason
from holdout.audit.engines.adaptive_lens import adaptive_summary, write_adaptive
from holdout.audit.engines.adversarial_lens import adversarial_lens, adversarial_summary, write_adversarial
from holdout.audit.engines.best_of import best_of_n_lens, best_of_n_summary, best_of_n_table
from holdout.audit.engines.core import (
    accuracy_lens,
    align_models,
    new_set_lens,
    rvw_lens,
    similarity_lens,
)
from holdout.audit.engines.pairs_lens import HEATMAP_MAX_MODELS, pairs_lens, write_pairs
from holdout.audit.lenses.items import items_lens, items_summary, write_items
from holdout.audit.output import atomic_folder, check_owned_out, contamination_entry
from holdout.audit.report import plots, verdicts
from holdout.audit.result import LENSES, AuditOptions, AuditResult
from holdout.plotting import figure_text, save_figure
from holdout.predictions import Predictions
from holdout.similarity.plots import (
    plot_covering_numbers,
    plot_difficulty,
    plot_pair_similarities,
)

__all__ = ["LENSES", "AuditOptions", "AuditResult", "run_audit", "summary_dict", "write_audit"]


def run_audit(
    preds: Predictions,
    options: AuditOptions,
    *,
    source: str = "predictions",
    new: Predictions | None = None,
    new_source: str = "new predictions",
) -> AuditResult:
    """Run every lens of ``options.lenses`` that its inputs allow; say in ``notes`` why one was skipped."""
    lenses, notes = set(options.lenses), []
    pairs_ok = preds.num_models >= 2
    if not pairs_ok and lenses & {"similarity", "bounds"}:
        notes.append(
            "Similarity and testable models (bounds): not applicable because the audit holds 1 model "
            "(both compare pairs of models)."
        )
    acc = accuracy_lens(preds, options.alpha)
    pairs = None
    if "pairs" in lenses and pairs_ok:
        correct = 1.0 - preds.errors()
        pairs = pairs_lens(
            correct, preds.model_names, alpha=options.alpha, mid_p=options.mid_p, resamples=options.rank_resamples
        )
    elif "pairs" in lenses:
        notes.append("Paired comparisons: not applicable because the audit holds 1 model.")
    best_of = best_of_n_lens(
        1.0 - preds.errors(),
        list(preds.model_names),
        variants=options.variants,
        families=options.families,
        delta=options.delta,
        pass_rates=False,
    )
    new_lens = None
    if new is not None and "new" in lenses:
        new_lens = new_set_lens(preds, align_models(preds, new, new_source), options.alpha, options.band_level)
        if new_lens.fit is None:
            notes.append(
                f"New test set: the linear fit (Recht et al. Eq. 3) is not applicable because it needs at "
                f"least 3 models (K = {preds.num_models}); the per-model gaps are reported."
            )
    elif "new" in lenses:
        notes.append("New test set: not run (no --new-predictions given).")
    sim = similarity_lens(preds, options.etas, source) if "similarity" in lenses and pairs_ok else None
    bounds = None
    if "bounds" in lenses and pairs_ok:
        summary = sim.summary if sim is not None else similarity_lens(preds, [1.0], source).summary
        bounds, why = _bounds_or_reason(preds, summary, options)
        if why:
            notes.append(f"Testable models (bounds): not applicable because {why}.")
    rvw = None
    if "rvw" in lenses and options.rvw_bits is not None:
        rvw = rvw_lens(
            acc, options.rvw_bits, options.rvw_detail, C=options.rvw_C, delta=options.delta, selected=options.selected
        )
    elif "rvw" in lenses:
        notes.append(
            "Rip van Winkle's Razor: not run (give --rvw-description FILE and/or --search-size G "
            "to describe how the selected model was chosen)."
        )
    adversarial = None
    if "adversarial" in lenses and options.translations is not None:
        adversarial = adversarial_lens(options.translations, preds, alpha=options.alpha)
    elif "adversarial" in lenses:
        notes.append(
            "Adversarial overfitting test (Werpachowski et al.): not run (give --translations FILE: "
            "each model's predictions on the translated test images)."
        )
    adaptive = None
    if options.adaptive:
        adaptive, why = _adaptive_or_reason(preds)
        notes.extend([f"Adaptive analyst: not applicable because {why}."] if adaptive is None else why)
    items = None
    if "items" in lenses:  # the predictions are the answers, the labels the keys
        correct = 1.0 - preds.errors()
        items = items_lens(preds.predictions, preds.labels, preds.model_names, correct, alpha=options.alpha)
    return AuditResult(
        source,
        preds.test_set,
        options,
        acc,
        new_lens,
        new_source if new is not None else None,
        sim,
        bounds,
        rvw,
        tuple(notes),
        adversarial,
        adaptive=adaptive,
        pairs=pairs,
        best_of_n=best_of,
        items=items,
    )


def _json_safe(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(float(value)) else float(value)
    return value


def summary_dict(result: AuditResult) -> dict[str, object]:
    """The headline numbers and verdicts of every lens that ran (``summary.json``)."""
    o = result.options
    out: dict[str, object] = {
        "predictions": result.source,
        "test_set": result.test_set,
        "num_models": len(result.accuracy),
        "n": int(result.accuracy["n"].iloc[0]),
        "options": {k: v for k, v in asdict(o).items() if k != "etas"},
        "notes": list(result.notes),
        "accuracy": {
            "best_model": result.accuracy["model"].iloc[0],
            "best": result.accuracy.iloc[0][["accuracy", "ci_low", "ci_high"]].to_dict(),
            "verdict": verdicts.accuracy_verdict(result.accuracy, o.alpha, result.pairs, pass_rates=result.pass_rates),
        },
    }
    if result.pairs is not None:
        out["pairs"] = verdicts.pairs_summary(
            result.pairs, all_pairs=result.options.all_pairs, every_pair_up_to=HEATMAP_MAX_MODELS
        )
    if result.best_of_n:
        out["best_of_n"] = best_of_n_summary(result.best_of_n)
    if result.new is not None:
        out["new"] = {
            "source": result.new_source,
            "mean_gap": result.new.mean_gap,
            "fit": None if result.new.fit is None else asdict(result.new.fit),
            "verdict": verdicts.new_set_verdict(result.new),
        }
    if result.similarity is not None:
        s = asdict(result.similarity.summary)
        out["similarity"] = s | {
            "verdict": verdicts.similarity_verdict(result.similarity, pass_rates=result.pass_rates)
        }
    if result.bounds is not None:
        t = result.bounds
        out["bounds"] = {k: v for k, v in asdict(t).items() if k != "for_models"} | {
            "eps_for_models": {
                str(e.models): {"union": e.union, "similarity": e.similarity, "naive_bayes": e.naive_bayes}
                for e in t.for_models
            },
            "similarity_gain": t.similarity_gain,
            "naive_bayes_gain": t.naive_bayes_gain,
            "independent_similarity": t.independent_similarity,
            "covered_by": t.covered_by(),
            "verdict": verdicts.bounds_verdict(result.bounds, pass_rates=result.pass_rates),
        }
    if result.rvw is not None:
        out["rvw"] = asdict(result.rvw) | {"overfit": result.rvw.overfit, "verdict": verdicts.rvw_verdict(result.rvw)}
    if result.adversarial is not None:
        out["adversarial"] = adversarial_summary(result.adversarial)
    if result.adaptive is not None:
        out["adaptive"] = adaptive_summary(result.adaptive)
    if result.clusters is not None:
        out["clusters"] = result.clusters
    if result.samples is not None:
        from holdout.audit.samples import samples_entry

        out["samples"] = samples_entry(result.samples)
    if result.items is not None:
        out["items"] = items_summary(result.items)
    if result.inputs:
        out["inputs"] = list(result.inputs)
    if result.warnings:
        out["warnings"] = list(result.warnings)
    return _json_safe(out)  # type: ignore[return-value]


def _write_figures(result: AuditResult, out: Path) -> dict[str, Path]:
    """Every figure as PNG + PDF + CSV; returns name -> PNG path (report order)."""
    figs: dict[str, Path] = {}
    label = figure_text(result.test_set or Path(result.source).stem)  # in every figure's title
    acc = result.accuracy
    figs["accuracy"] = out / "accuracy.png"
    fig = plots.plot_accuracies(acc, f"{label}: test accuracy", level=1 - result.options.alpha)
    save_figure(fig, figs["accuracy"], data=acc)
    if result.pairs is not None:
        figs |= write_pairs(result.pairs, out, label, all_pairs=result.options.all_pairs)
    if result.new is not None:
        t = result.new.table
        figs["new_vs_original"] = out / "new_vs_original.png"
        fig = plots.plot_new_vs_original(
            t, result.new.band, title=f"{label}: new vs original test set", band_level=result.new.band_level
        )
        cols = ["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]
        save_figure(fig, figs["new_vs_original"], data=t[cols])
    if result.similarity is not None:
        s, k = result.similarity, len(acc)
        figs["similarity_pairs"] = out / "similarity_pairs.png"
        save_figure(
            plot_pair_similarities(s.pairs["similarity"], s.pairs["independent"], f"{label}: model similarities", k),
            figs["similarity_pairs"],
            data=s.pairs,
        )
        figs["difficulty"] = out / "difficulty.png"
        save_figure(
            plot_difficulty(
                s.difficulty["fraction_at_most"].to_numpy(),
                f"{label}: difficulty",
                marks=sorted({0, k - 1}),
                n=int(acc["n"].iloc[0]),
                unit="test points",
            ),
            figs["difficulty"],
            data=s.difficulty,
        )
        figs["covering_numbers"] = out / "covering_numbers.png"
        save_figure(
            plot_covering_numbers(
                s.covering["eta"].to_numpy(),
                s.covering["covering_number"].to_numpy(),
                k,
                f"{label}: similarity covering numbers",
            ),
            figs["covering_numbers"],
            data=s.covering,
        )
    if result.bounds is not None:
        t = result.bounds
        data = pd.DataFrame(
            {
                "bound": ["union", "similarity", "naive_bayes"],
                "testable_models": [str(t.union_k), str(t.similarity_k), str(t.naive_bayes_k)],
                "models_used": t.models_used,
            }
        )
        if any((t.union_k, t.similarity_k, t.naive_bayes_k)):
            figs["testable_models"] = out / "testable_models.png"
            fig = plots.plot_testable_models(t, t.models_used, f"{label}: testable models")
            save_figure(fig, figs["testable_models"], data=data)
        else:  # three zeros on a log axis say nothing: the verdict gives the eps for 1, 10 and 100 models
            data.to_csv(out / "testable_models.csv", index=False)
    if result.adversarial is not None:
        figs |= write_adversarial(result.adversarial, out, label)
    if result.adaptive is not None:
        figs |= write_adaptive(result.adaptive, out, label)
    return figs


def write_audit(
    result: AuditResult,
    out: str | Path,
    *,
    inputs: Sequence[str | Path] = (),
    force: bool = False,
    on_fail: Callable[[str], None] | None = None,
    on_kept: Callable[[str], None] | None = None,
) -> dict[str, object]:
    """Write the CSVs, figures, ``summary.json`` and ``report.html`` into ``out``; return the summary.

    Atomic and owned ([`atomic_folder`][holdout.audit.output.atomic_folder],
    [`check_owned_out`][holdout.audit.output.check_owned_out]): the files are written beside ``out``
    and moved into place together, replacing a previous audit's folder whole; a folder holding one
    of ``inputs`` or (unless ``force``, then it is moved aside and ``on_kept`` told) files no audit
    wrote is refused.
    """
    out = check_owned_out(out, inputs, force=force)
    with atomic_folder(out, on_fail, on_kept) as folder:
        summary = _write_all(result, folder)
    return summary


def _write_all(result: AuditResult, out: Path, extra: dict[str, dict] | None = None) -> dict[str, object]:
    from holdout.audit.report.render import render_report, render_summary_md

    summary = summary_dict(result)
    if result.new is not None:
        result.new.table.to_csv(out / "new_test_set.csv", index=False)
        if result.new.fit is not None:
            pd.DataFrame([asdict(result.new.fit)]).to_csv(out / "linear_fit.csv", index=False)
            result.new.band.to_csv(out / "new_vs_original_fit.csv", index=False)  # the plotted line and band
    if result.bounds is not None:
        pd.DataFrame([summary["bounds"]]).drop(columns="verdict").to_csv(out / "bounds.csv", index=False)
    if result.rvw is not None:
        pd.DataFrame([summary["rvw"]]).drop(columns="verdict").to_csv(out / "rvw.csv", index=False)
    if result.best_of_n:
        best_of_n_table(result.best_of_n).to_csv(out / "best_of_n.csv", index=False)
    if result.samples is not None:
        result.samples.to_csv(out / "samples.csv", index=False)
    if result.similarity is not None:
        pd.DataFrame([asdict(result.similarity.summary)]).to_csv(out / "similarity_summary.csv", index=False)
    if result.items is not None:
        write_items(result.items, out)
    figures = _write_figures(result, out)
    if result.contamination is not None:  # the split by date of a correctness matrix
        summary["contamination"] = contamination_entry(result.contamination, result.source, out)
        figures["contamination"] = out / "contamination.png"
    summary |= extra or {}  # lenses computed by the caller (the reference benchmark), reported with the rest
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "report.html").write_text(render_report(result, summary, figures))
    (out / "summary.md").write_text(render_summary_md(result, summary))
    return summary
