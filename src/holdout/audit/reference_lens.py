"""``holdout audit --accuracies TABLE.csv --columns REFERENCE BENCHMARK --sizes N_R N_B --reference-models FILE``.

ConStat's reference-benchmark test ([`reference_lens`][holdout.contamination.reference_lens],
Dekoninck et al. 2024) on an accuracy table: the curve from the reference benchmark's accuracy to
the benchmark's through the reference models (FILE: one model name per line, at least 5), each
other model's delta = benchmark - predicted with a basic-bootstrap interval, ConStat's one-sided
p-value and Holm's correction. From a table alone the bootstrap is parametric (every accuracy
redrawn as Binomial(n, p) / n, the models independently): labelled so in ``summary.json``.
Writes ``reference_lens.csv`` (percent when the table is in percent) and ``reference_curve.csv``.
From two correctness matrices (``--correctness`` PREDICTIONS on the benchmark,
``--reference-correctness`` on the reference benchmark) the bootstrap is ConStat's item bootstrap.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.audit.errors import AuditError
from holdout.audit.options import add_reference_arguments
from holdout.audit.readers.matrix import load_correctness
from holdout.contamination.reference import (
    MIN_REFERENCE_MODELS,
    ReferenceLens,
    binomial_draws,
    item_draws,
    reference_lens,
)
from holdout.leaderboards import CorrectnessMatrix

__all__ = [
    "add_reference_arguments",
    "check_reference_args",
    "prepare_item_reference_lens",
    "read_reference_models",
    "run_item_reference_lens",
    "run_reference_lens",
]


def _names_from_column(spec: str, accuracies: str | None) -> list[str]:
    """``column:NAME``: the models whose NAME column of the --accuracies table says ``reference``."""
    column = spec.split(":", 1)[1]
    if accuracies is None:
        raise AuditError(f"--reference-models {spec}: a role column needs --accuracies TABLE.csv")
    table = pd.read_csv(accuracies)
    if column not in table.columns:
        raise AuditError(f"--reference-models {spec}: --accuracies {accuracies} has no column {column!r}")
    roles = table[column].astype(str).str.strip().str.lower()
    return table.loc[roles == "reference", "model"].astype(str).tolist()


def read_reference_models(spec: str | Path, models: pd.Series, accuracies: str | None = None) -> np.ndarray:
    """The reference rows: those named in the file ``spec`` (one name per line, blank lines
    ignored) or, for ``spec`` = ``column:NAME``, those whose NAME column of the --accuracies
    table says ``reference``; a boolean mask over ``models``."""
    spec = str(spec)
    if spec.startswith("column:"):
        names = _names_from_column(spec, accuracies)
    else:
        path = Path(spec)
        if not path.is_file():
            raise AuditError(f"--reference-models {path}: file not found")
        try:
            names = [line.strip() for line in path.read_text(encoding="utf-8-sig").splitlines() if line.strip()]
        except UnicodeDecodeError:
            raise AuditError(f"--reference-models {path}: not a text file of model names") from None
    unknown = sorted(set(names) - set(models))
    if unknown:
        raise AuditError(f"--reference-models {spec}: {unknown[0]!r} is not a model of the input")
    mask = models.isin(names).to_numpy()
    if mask.sum() < MIN_REFERENCE_MODELS:
        raise AuditError(
            f"--reference-models {spec}: {int(mask.sum())} reference models; ConStat's test needs at least "
            f"{MIN_REFERENCE_MODELS}"
        )
    if mask.all():
        raise AuditError(f"--reference-models {spec}: every model is a reference model; nothing is left to test")
    return mask


def check_reference_args(args: argparse.Namespace, table: pd.DataFrame) -> tuple[np.ndarray, str, tuple, int]:
    """Every option of the lens checked before any work: the reference mask, fit, chance, replicates."""
    fit = args.fit or "spline"
    chance = tuple(args.chance) if args.chance else (0.0, 0.0)
    if not all(0 <= c < 1 for c in chance):
        raise AuditError(f"--chance must be two accuracies in [0, 1) (fractions), got {args.chance}")
    n_boot = 1000 if args.n_bootstrap is None else args.n_bootstrap
    if not 100 <= n_boot <= 100000:
        raise AuditError(f"--n-bootstrap must be in [100, 100000], got {args.n_bootstrap}")
    mask = read_reference_models(args.reference_models, table["model"], getattr(args, "accuracies", None))
    _check_distinct(args, table, mask, fit, chance)
    return mask, fit, chance, n_boot


def _check_distinct(args: argparse.Namespace, table: pd.DataFrame, mask: np.ndarray, fit: str, chance: tuple) -> None:
    """The curve through the reference models needs distinct reference accuracies: ConStat's spline 5
    (the random-guess point counts as one), a probit line 2. Checked on the input, before any
    bootstrap replicate (whose redraws would otherwise report their own counts)."""
    columns = getattr(args, "columns", None)
    column = columns[0] if columns and columns[0] in table else "x"
    what = column if column != "x" else f"--reference-correctness {getattr(args, 'reference_correctness', '')}"
    x = table[column].to_numpy(float)[mask]
    distinct = np.unique(x).size
    points = np.unique(np.append(x, chance[0])).size if fit == "spline" else distinct
    need = MIN_REFERENCE_MODELS if fit == "spline" else 2
    if points < need:
        plural = "accuracy" if distinct == 1 else "accuracies"
        guess = " (with the random-guess point: " + f"{points})" if fit == "spline" else ""
        raise AuditError(
            f"--reference-models {args.reference_models}: {distinct} distinct {what} {plural} among its "
            f"{int(mask.sum())} reference models{guess}; the {fit} curve needs {need}: add reference models "
            "of other accuracies" + (", or use --fit probit" if fit == "spline" and distinct >= 2 else "")
        )


def run_reference_lens(
    args: argparse.Namespace, table: pd.DataFrame, scale: str, out: Path, checked: tuple
) -> dict[str, object]:
    """The lens on ``table`` (fractions; columns model, REFERENCE, BENCHMARK) with the options
    ``checked`` by [`check_reference_args`][holdout.audit.reference_lens.check_reference_args];
    writes its two CSVs into ``out`` and returns the ``reference`` entry of ``summary.json``."""
    is_ref, fit, chance, n_boot = checked
    ref, bench = args.columns
    x, y = table[ref].to_numpy(float), table[bench].to_numpy(float)
    rng = np.random.default_rng(0)
    draws = binomial_draws(x[is_ref], y[is_ref], x[~is_ref], y[~is_ref], tuple(args.sizes), n_boot, rng)
    lens = _lens_or_error(args, table["model"], x, y, is_ref, draws, fit, chance)
    _write(lens, 100.0 if scale == "percent" else 1.0, out)
    return _summary(lens, args, fit, chance, scale)


def prepare_item_reference_lens(args: argparse.Namespace, bench: CorrectnessMatrix) -> tuple:
    """Before any work: ``--reference-correctness`` read (the same models as ``bench``, the
    benchmark's matrix from PREDICTIONS) and the lens's options checked."""
    ref = load_correctness(args.reference_correctness, args.model_names, args.samples)
    if sorted(ref.model_names) != sorted(bench.model_names):
        odd = sorted(set(ref.model_names) ^ set(bench.model_names))[0]
        raise AuditError(f"--reference-correctness {args.reference_correctness}: the models differ ({odd!r})")
    x_items = ref.values[[ref.model_names.index(m) for m in bench.model_names]]
    table = pd.DataFrame({"model": list(bench.model_names), "x": x_items.mean(axis=1), "y": bench.values.mean(axis=1)})
    return x_items, bench.values, table, check_reference_args(args, table)


def run_item_reference_lens(args: argparse.Namespace, prepared: tuple, out: Path) -> dict[str, object]:
    """The lens from two correctness matrices
    ([`prepare_item_reference_lens`][holdout.audit.reference_lens.prepare_item_reference_lens]),
    ConStat's item bootstrap; writes its CSVs (fractions) into ``out``, returns the ``reference`` entry."""
    x_items, y_items, table, (is_ref, fit, chance, n_boot) = prepared
    rows = np.r_[np.flatnonzero(is_ref), np.flatnonzero(~is_ref)]
    draws = item_draws(x_items[rows], y_items[rows], int(is_ref.sum()), n_boot, np.random.default_rng(0))
    lens = _lens_or_error(args, table["model"], table["x"], table["y"], is_ref, draws, fit, chance)
    _write(lens, 1.0, out)
    labels = argparse.Namespace(**(vars(args) | {"columns": (str(args.reference_correctness), str(args.predictions))}))
    return _summary(lens, labels, fit, chance, "fractions")


def _lens_or_error(args: argparse.Namespace, *lens_args: object) -> ReferenceLens:
    """[`reference_lens`][holdout.contamination.reference_lens], its errors as one line: a bootstrap
    replicate that could not be fitted in every redraw names --sizes (accuracies on few items tie)."""
    try:
        with np.errstate(all="ignore"):
            return reference_lens(*lens_args, args.alpha)
    except (ValueError, np.linalg.LinAlgError) as exc:
        hint = ""
        if "redraws" in str(exc):
            sizes = getattr(args, "sizes", None)
            hint = (
                f": the redrawn accuracies tie (--sizes {' '.join(map(str, sizes))}: few items per benchmark); "
                "give the real test-set sizes, more reference models, or --fit probit"
                if sizes
                else ": the items' accuracies tie; give more reference models or --fit probit"
            )
        raise AuditError(f"--reference-models {args.reference_models}: {exc}{hint}") from None


def _write(lens: ReferenceLens, unit: float, out: Path) -> None:
    t = lens.models.copy()
    cols = ["reference", "benchmark", "predicted", "delta", "delta_low", "delta_high"]
    t[cols] = t[cols] * unit
    t.to_csv(out / "reference_lens.csv", index=False)
    (lens.curve * unit).to_csv(out / "reference_curve.csv", index=False)


def _summary(lens: ReferenceLens, args: argparse.Namespace, fit: str, chance: tuple[float, float], scale: str) -> dict:
    t = lens.models
    return {
        "reference_models_file": str(args.reference_models),
        "reference_column": args.columns[0],
        "benchmark_column": args.columns[1],
        "reference_models": lens.n_reference,
        "tested_models": len(t),
        "fit": fit,
        "chance": list(chance),
        "bootstrap": lens.bootstrap,
        "n_bootstrap": lens.n_bootstrap,
        "alpha": lens.alpha,
        "units": scale,
        "above_curve_holm": t.loc[t["significant"], "model"].tolist(),
        "verdict": (
            f"{int(t['significant'].sum())} of {len(t)} models above the curve through {lens.n_reference} reference "
            f"models (Holm, alpha = {lens.alpha:g}; {lens.bootstrap}, heuristic: the curve assumes the reference "
            "models are uncontaminated)"
        ),
    }
