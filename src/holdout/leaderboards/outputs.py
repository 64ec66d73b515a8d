"""Writing an accuracy-table audit and a contamination split: CSVs, figures, ``summary.json``.

Used by ``holdout audit --accuracies`` / ``--item-dates`` and by the leaderboards study, so both
write the same files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.dates import Contamination
from holdout.leaderboards.fits import AccuracyTableAudit, accuracy_table_audit
from holdout.leaderboards.lenses import CorrectnessLenses
from holdout.leaderboards.plots import plot_contamination, plot_effective_robustness, plot_fits
from holdout.leaderboards.sources import pair_table, split_off_size, timm_architecture, timm_in1k_only
from holdout.plotting import save_figure
from holdout.similarity.plots import plot_pair_similarities
from holdout.stats import LinearFit, linear_fit
from holdout.tables import markdown_table
from holdout.tables import write_table as write_csv_md

__all__ = [
    "TABLE_FILES",
    "benjamini_hochberg_count",
    "contamination_summary",
    "fit_dict",
    "fits_table",
    "lenses_summary",
    "pair_audit",
    "table_summary",
    "write_contamination",
    "write_fits_table",
    "write_lenses",
    "write_pair",
    "write_table",
]

#: files of [`write_table`][holdout.leaderboards.outputs.write_table] in its folder
TABLE_FILES = (
    "models.csv",
    "summary.json",
    "fit.png",
    "fit.pdf",
    "fit.csv",
    "fit_lines.csv",
    "effective_robustness.png",
    "effective_robustness.pdf",
    "effective_robustness.csv",
)


def fit_dict(fit: LinearFit) -> dict[str, float | int]:
    """slope, intercept, their standard errors, r_squared, n_models of a fit."""
    return {
        "slope": fit.slope,
        "slope_se": fit.slope_se,
        "intercept": fit.intercept,
        "intercept_se": fit.intercept_se,
        "r_squared": fit.r_squared,
        "n_models": fit.n,
    }


def _safe(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe(v) for v in value]
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(float(value)) else float(value)
    return value


def _er_counts(t: pd.DataFrame, prefix: str, alpha: float) -> dict[str, object]:
    """Holm-significant counts above / below a line and, when at most 10, the models' names."""
    sig = t[f"{prefix}_significant"].to_numpy(bool)
    value = t["effective_robustness" if prefix == "er" else "er_baseline"].to_numpy()
    names = t.loc[sig, "model"].tolist()
    return {
        "alpha": alpha,
        "significant_above": int((sig & (value > 0)).sum()),
        "significant_below": int((sig & (value < 0)).sum()),
        "significant_models": names if len(names) <= 10 else None,
    }


def benjamini_hochberg_count(p: np.ndarray, alpha: float) -> int:
    """How many of the p-values Benjamini & Hochberg's (1995) step-up procedure rejects at false-discovery
    rate ``alpha`` (the count Holm's family-wise correction is compared with)."""
    from scipy import stats

    return int((stats.false_discovery_control(p, method="bh") <= alpha).sum()) if len(p) else 0


def table_summary(audit: AccuracyTableAudit, high_from: float = 70.0, **info: object) -> dict[str, object]:
    """linear_fit and probit_fit, sizes, mean gap, effective-robustness counts (Holm) with the
    probit line's lack of fit, the linear fit of the models at or above ``high_from`` percent on
    the original set (a linear slope depends on the accuracy range), Taori et al.'s baseline
    when the audit has one, and ``info``."""
    t = audit.models
    high = t["orig_accuracy"] >= high_from
    er = _er_counts(t, "er", audit.alpha) | {
        "significant_bh": benjamini_hochberg_count(t["er_p"].to_numpy(float), audit.alpha),
        "largest": t.loc[t["effective_robustness"].idxmax(), ["model", "effective_robustness"]].tolist(),
        "test": "heuristic: off the straight probit line of all models by more than test-set sampling noise",
    }
    out = info | {
        "n_models": len(t),
        "n_original": audit.n_original,
        "n_new": audit.n_new,
        "mean_gap": float(t["gap"].mean()),
        "linear_fit": fit_dict(audit.linear),
        "linear_fit_high": (
            fit_dict(linear_fit(t["orig_accuracy"][high], t["new_accuracy"][high])) | {"from": high_from}
            if high.sum() >= 3
            else None
        ),
        "probit_fit": fit_dict(audit.probit) | {"slope_cluster_se": audit.probit_slope_cluster_se},
        "lack_of_fit": asdict(audit.lack_of_fit),
        "effective_robustness": er,
    }
    if audit.paired:
        out["effective_robustness"] = {"not_applicable": "paired sets (the same items graded more strictly)"}
        out["paired_drop"] = {
            "test": "exact McNemar on the discordant items (two-sided, Holm)",
            "alpha": audit.alpha,
            "significant": int(t["drop_significant"].sum()),
        }
    if audit.baseline is not None and audit.baseline_lack_of_fit is not None:
        out["baseline"] = {
            "models": int(t["in_baseline"].sum()),
            "probit_fit": fit_dict(audit.baseline),
            "lack_of_fit": asdict(audit.baseline_lack_of_fit),
            "effective_robustness": _er_counts(t, "er_baseline", audit.alpha),
        }
    return _safe(out)  # type: ignore[return-value]


def write_table(
    audit: AccuracyTableAudit, out: str | Path, title: str, original: str, new: str, **info: object
) -> dict[str, object]:
    """Write the files of ``TABLE_FILES`` into ``out``; return the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = table_summary(audit, original=original, new=new, **info)
    audit.models.to_csv(out / "models.csv", index=False)
    points = audit.models[
        ["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]
    ]
    save_figure(
        plot_fits(audit, title, f"{original} accuracy (%)", f"{new} accuracy (%)"), out / "fit.png", data=points
    )
    audit.band.to_csv(out / "fit_lines.csv", index=False)
    er_cols = ["model", "orig_accuracy", "effective_robustness", "er_ci_low", "er_ci_high", "er_significant"]
    save_figure(
        plot_effective_robustness(audit, f"{title}: effective robustness", f"{original} accuracy (%)"),
        out / "effective_robustness.png",
        data=audit.models[er_cols],
    )
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def pair_audit(
    pair: Mapping[str, object], files: Mapping[str, str | Path], alpha: float, band_level: float
) -> tuple[AccuracyTableAudit, pd.DataFrame, list[str]]:
    """The accuracy-table audit of one ``leaderboards.pairs`` entry on its source's files: the audit, the
    table it ran on and the models left out. EvalPlus values of another version of the set (not k / n
    at the configured sizes) are left out and named; timm pairs are clustered by architecture and may
    take the ImageNet-1k-only models as the baseline (``baseline: in1k_only``)."""
    t = pair_table(pair["source"], files, pair["original"], pair["new"])
    excluded: list[str] = []
    if pair["source"] == "evalplus":
        t, excluded = split_off_size(t, [pair["original"], pair["new"]], [pair["n_original"], pair["n_new"]])
    audit = accuracy_table_audit(
        t["model"],
        t[pair["original"]],
        t[pair["new"]],
        pair["n_original"],
        pair["n_new"],
        alpha,
        band_level,
        baseline=timm_in1k_only(t["model"]) if pair.get("baseline") == "in1k_only" else None,
        paired=bool(pair.get("paired", False)),
        clusters=timm_architecture(t["model"]) if pair["source"] == "timm" else None,
    )
    return audit, t, excluded


def write_pair(
    name: str,
    pair: Mapping[str, object],
    files: Mapping[str, str | Path],
    out: str | Path,
    alpha: float,
    band_level: float,
) -> dict[str, object]:
    """[`pair_audit`][holdout.leaderboards.outputs.pair_audit], its files written by
    [`write_table`][holdout.leaderboards.outputs.write_table] into ``out``; return the summary."""
    audit, t, excluded = pair_audit(pair, files, alpha, band_level)
    title = f"{name} ({len(t)} models)"
    info = {"name": name, "source": pair["source"], "excluded_off_size": excluded}
    return write_table(audit, out, title, pair["original"], pair["new"], **info)


def contamination_summary(result: Contamination) -> dict[str, object]:
    """The split, item counts, the line (linear_fit), the models significantly below it (a heuristic
    test, consistent with contamination), the excluded models and the test's reach."""
    t = result.models
    placed = t[t["role"] == "placed"]
    return _safe(
        {
            "split": str(result.split),
            "n_original_items": result.n_original,
            "n_new_items": result.n_new,
            "line_models": int((t["role"] == "line").sum()),
            "placed_models": len(placed),
            "excluded_models": t.loc[t["role"] == "excluded", "model"].tolist(),
            "linear_fit": fit_dict(result.fit),
            "alpha": result.alpha,
            "test": "heuristic: one-sided against the line's prediction interval, Holm over the placed models",
            "below_line": placed.loc[placed["below_line"], "model"].tolist(),
            "detectable_drop": result.detectable_drop,
        }
    )  # type: ignore[return-value]


def write_contamination(result: Contamination, png: str | Path, title: str) -> dict[str, object]:
    """The figure ``png`` (+ ``.pdf``, the per-model ``.csv``, the line's ``_line.csv``) and the
    summary ``.json`` beside it; returns the summary."""
    png = Path(png)
    save_figure(plot_contamination(result, title), png, data=result.models)
    result.band.to_csv(png.with_name(f"{png.stem}_line.csv"), index=False)
    summary = contamination_summary(result)
    png.with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def lenses_summary(lenses: CorrectnessLenses) -> dict[str, object]:
    """Similarity summary, testable models under the three bounds (Mania et al.), best model."""
    union_k, similarity_k, naive_bayes_k = lenses.testable
    best = lenses.accuracy.iloc[0]
    return _safe(
        {
            "similarity": asdict(lenses.summary),
            "testable_models": {
                "eps": lenses.eps,
                "delta": lenses.delta,
                "union_k": union_k,
                "similarity_k": similarity_k,
                "naive_bayes_k": naive_bayes_k,
            },
            "best_model": {k: best[k] for k in ("model", "accuracy", "ci_low", "ci_high")},
        }
    )  # type: ignore[return-value]


def write_lenses(
    lenses: CorrectnessLenses,
    accuracies: str | Path,
    summary: str | Path,
    covering: str | Path,
    png: str | Path,
    title: str,
) -> dict[str, object]:
    """Accuracies CSV, summary JSON, covering numbers CSV, and the pair-similarity figure (Mania et
    al. Fig. 1a style; its pairs CSV beside it)."""
    lenses.accuracy.to_csv(accuracies, index=False)
    lenses.covering.to_csv(covering, index=False)
    fig = plot_pair_similarities(
        lenses.pairs["similarity"], lenses.pairs["independent"], title, lenses.summary.num_models
    )
    save_figure(fig, png, data=lenses.pairs)
    out = lenses_summary(lenses)
    Path(summary).write_text(json.dumps(out, indent=2) + "\n")
    return out


def _fit_row(name: str, scale: str, fit: dict, **info: object) -> dict[str, object]:
    keys = ("slope", "slope_se", "intercept", "intercept_se", "r_squared", "n_models")
    return {"name": name, "scale": scale} | info | {k: fit[k] for k in keys}


def fits_table(summaries: list[str | Path], imagenetv2: list[str | Path] = ()) -> pd.DataFrame:
    """One row per (pair, scale) from the pairs' ``summary.json``, then the imagenetv2 study's
    linear fits (``linear_fit.csv``: all 67 testbed models and the 64 convolutional ones)."""
    rows = []
    for path in summaries:
        s = json.loads(Path(path).read_text())
        er = s["effective_robustness"]
        info = {"original": s["original"], "new": s["new"], "mean_gap": s["mean_gap"]}
        rows.append(_fit_row(s["name"], "linear (%)", s["linear_fit"], **info))
        if s.get("linear_fit_high"):
            high = s["linear_fit_high"]
            rows.append(_fit_row(s["name"], f"linear (%), original >= {high['from']:g}%", high, **info))
        lof = s["lack_of_fit"]
        counts = {f"er_significant_{d}": er.get(f"significant_{d}") for d in ("above", "below")}
        if s.get("paired_drop"):
            counts["paired_drop_significant"] = s["paired_drop"]["significant"]
        checks = {"variance_ratio": lof["variance_ratio"], "quadratic_p": lof["quadratic_p"]}
        rows.append(_fit_row(s["name"], "probit", s["probit_fit"], **info, **counts, **checks))
        if s.get("baseline"):
            b = s["baseline"]
            counts = {f"er_significant_{d}": b["effective_robustness"][f"significant_{d}"] for d in ("above", "below")}
            checks = {
                "variance_ratio": b["lack_of_fit"]["variance_ratio"],
                "quadratic_p": b["lack_of_fit"]["quadratic_p"],
            }
            rows.append(
                _fit_row(s["name"], "probit, ImageNet-only baseline", b["probit_fit"], **info, **counts, **checks)
            )
    for path in imagenetv2:
        for r in pd.read_csv(path).to_dict("records"):
            fit = r | {"n_models": r["n"]}
            rows.append(_fit_row(f"imagenetv2 study ({r['models']})", "linear (%)", fit, original="val", new="v2-mf"))
    return pd.DataFrame(rows)


def write_fits_table(
    summaries: list[str | Path], imagenetv2: list[str | Path], csv: str | Path, md: str | Path
) -> pd.DataFrame:
    """[`fits_table`][holdout.leaderboards.outputs.fits_table] as CSV and Markdown (4 decimals, blanks
    for missing values); return the table."""
    table = fits_table(summaries, imagenetv2)
    text = markdown_table(table.round(4).astype(object).where(table.notna(), ""))
    write_csv_md(table, csv, md, markdown_text=text)
    return table
