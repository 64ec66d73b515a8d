"""ConStat's published result tables (eth-sri/ConStat ``tables/*.csv``) and their reproduction.

Each table is one (benchmark, reference benchmark) pair of Dekoninck et al. (2024): per tested
model, its accuracy on the benchmark (``score_model``) and on the reference benchmark
(``score_model_ref``), their standard errors sqrt(p (1 - p) / n) (so the item counts are
n = p (1 - p) / se^2), and ConStat's estimate, delta and p-value. The reference models (the
``ref_models`` list of ``scripts/detection.py``, in ``model_roles.csv``) are rows of the same
table, so the table alone is enough to refit the curve and redo the test with a parametric
bootstrap ([`reproduce_constat`][holdout.contamination.constat.reproduce_constat]).

What the published code does (read from ``scripts/detection.py`` at the mirrored commit), and what
a reproduction has to copy: a reference model is tested against all 20 reference models, itself
included (``perform_full_test`` builds a list without it, ``ref_models_here``, and then passes
``ref_models`` instead), so the extra reference model ``Mistral-7B-v0.1`` is never used as one.
The benchmark accuracy of every model except the deliberately contaminated fine-tunes is over the
benchmark and its held-out ``no_cont`` split together (``add_no_cont_results``); a fine-tune is
scored on the benchmark split alone, and so are the reference models in its test. Their scores on
that split are not a column, but follow from the table: (n s - n_nc s_nc) / (n - n_nc), with s_nc
the ``no_cont`` column and n_nc its size.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.contamination.reference import ReferenceLens, binomial_draws, reference_lens

__all__ = [
    "CHANCE",
    "ConStatTable",
    "read_constat_table",
    "reproduce_constat",
    "reproduction_summary",
    "table_findings",
]

#: Random-guess accuracy of each benchmark (``random_performances`` of ``scripts/detection.py``;
#: the rephrased and synthetic references take their benchmark's).
CHANCE = {"gsm8k": 0.0, "mathqa": 0.25, "arc": 0.25, "sciq": 0.25, "hellaswag": 0.25, "lambada_openai": 0.0}
#: The reference benchmark of each benchmark's ``reference`` table.
REFERENCE_BENCHMARK = {"gsm8k": "mathqa", "arc": "sciq", "hellaswag": "lambada_openai"}
_COLUMNS = ("model", "score_model", "score_model_std", "score_model_ref", "score_model_ref_std", "delta", "p_value")


@dataclass(frozen=True)
class ConStatTable:
    """One published table: ``rows`` with ``model``, ``role`` (reference / test / contaminated),
    ``benchmark``, ``reference`` (fractions), ``n_benchmark``, ``n_reference`` (from the standard
    errors) and the published ``delta``, ``p_value``, ``estimated``; the benchmark, the kind of
    reference (reference / rephrase / synthetic) and the random-guess accuracies."""

    rows: pd.DataFrame
    benchmark: str
    kind: str
    chance: tuple[float, float]


def _size(p: pd.Series, se: pd.Series) -> pd.Series:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.rint(p * (1 - p) / se**2)


def read_constat_table(path: str | Path, roles: str | Path) -> ConStatTable:
    """A ConStat ``tables/<benchmark>_<kind>.csv`` and ``model_roles.csv`` (model, role)."""
    path = Path(path)
    benchmark, _, kind = path.stem.partition("_")
    df = pd.read_csv(path, index_col=0)
    missing = [c for c in _COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a ConStat table (no column {missing[0]!r})")
    role_table = pd.read_csv(roles)
    reference = set(role_table.loc[role_table["role"] == "reference", "model"])
    role = np.where(
        df["model"].isin(reference),
        "reference",
        np.where(df["model"].str.contains("contamination-models-"), "contaminated", "test"),
    )
    rows = pd.DataFrame(
        {
            "model": df["model"].astype(str),
            "role": role,
            "benchmark": df["score_model"],
            "reference": df["score_model_ref"],
            "n_benchmark": _size(df["score_model"], df["score_model_std"]),
            "n_reference": _size(df["score_model_ref"], df["score_model_ref_std"]),
            "delta": df["delta"],
            "p_value": df["p_value"],
            "estimated": df["estimated_contamination"],
            "no_cont": df["no_cont"],
            "n_no_cont": _size(df["no_cont"], df["no_cont_std"]),
        }
    ).reset_index(drop=True)
    ref_bench = REFERENCE_BENCHMARK.get(benchmark, benchmark) if kind == "reference" else benchmark
    chance = (CHANCE.get(ref_bench, CHANCE.get(benchmark, 0.0)), CHANCE.get(benchmark, 0.0))
    return ConStatTable(rows, benchmark, kind, chance)


def _sizes(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Item counts per row; where a standard error is 0 (accuracy 0 or 1) the table's median."""
    nx, ny = rows["n_reference"].to_numpy(float), rows["n_benchmark"].to_numpy(float)
    nx = np.where(np.isfinite(nx) & (nx > 0), nx, np.nanmedian(nx[np.isfinite(nx) & (nx > 0)]))
    ny = np.where(np.isfinite(ny) & (ny > 0), ny, np.nanmedian(ny[np.isfinite(ny) & (ny > 0)]))
    return nx, ny


def _group(
    rows: pd.DataFrame,
    y_curve: np.ndarray,
    tested: np.ndarray,
    table: ConStatTable,
    fit: str,
    n_bootstrap: int,
    seed: int,
) -> ReferenceLens:
    """The lens on the ``tested`` rows, the reference models at benchmark accuracies ``y_curve``; a
    tested reference row shares its replicates with its own point of the curve (same items)."""
    is_ref = (rows["role"] == "reference").to_numpy()
    x, y = rows["reference"].to_numpy(float), rows["benchmark"].to_numpy(float)
    nx, ny = _sizes(rows)
    rng = np.random.default_rng(seed)
    sizes = (np.r_[nx[is_ref], nx[tested]], np.r_[ny[is_ref], ny[tested]])
    draws = binomial_draws(x[is_ref], y_curve[is_ref], x[tested], y[tested], sizes, n_bootstrap, rng)
    ref_col = np.cumsum(is_ref) - 1
    own = is_ref[tested]
    if own.any():
        cols = ref_col[tested][own]
        x_test, y_test = draws.x_test.copy(), draws.y_test.copy()
        x_test[:, own], y_test[:, own] = draws.x_ref[:, cols], draws.y_ref[:, cols]
        draws = replace(draws, x_test=x_test, y_test=y_test)
    ys = np.where(tested, y, y_curve)
    return reference_lens(rows["model"], x, ys, is_ref, draws, fit, table.chance, seed=seed, tested=tested)


def reproduce_constat(
    table: ConStatTable, fit: str = "spline", n_bootstrap: int = 1000, seed: int = 0
) -> tuple[pd.DataFrame, ReferenceLens]:
    """ConStat's test redone from the table alone (parametric binomial bootstrap; every row tested,
    a reference model against all reference models, a fine-tune against the reference models'
    benchmark-split accuracies, as in the published code). Returns the rows with ``delta_ours``,
    its interval, ``p_ours``, ``delta_diff`` (ours - published, fractions), ``flag_published`` /
    ``flag_ours`` (p < 0.05), and the lens of the uncontaminated rows (for the figure)."""
    rows = table.rows
    fine_tune = (rows["role"] == "contaminated").to_numpy()
    y = rows["benchmark"].to_numpy(float)
    n, n_nc = rows["n_benchmark"].to_numpy(float), rows["n_no_cont"].to_numpy(float)
    split_only = (n * y - n_nc * rows["no_cont"].to_numpy(float)) / (n - n_nc)
    lens = _group(rows, y, ~fine_tune, table, fit, n_bootstrap, seed)
    out = rows.copy()
    for col in ("delta", "delta_low", "delta_high", "p_value"):
        out[f"{col}_ours" if col != "p_value" else "p_ours"] = np.nan
    out.loc[~fine_tune, ["delta_ours", "delta_low_ours", "delta_high_ours", "p_ours"]] = lens.models[
        ["delta", "delta_low", "delta_high", "p_value"]
    ].to_numpy()
    if fine_tune.any():
        tuned = _group(rows, split_only, fine_tune, table, fit, n_bootstrap, seed)
        out.loc[fine_tune, ["delta_ours", "delta_low_ours", "delta_high_ours", "p_ours"]] = tuned.models[
            ["delta", "delta_low", "delta_high", "p_value"]
        ].to_numpy()
    out["delta_diff"] = out["delta_ours"] - out["delta"]
    out["flag_published"] = out["p_value"] < 0.05
    out["flag_ours"] = out["p_ours"] < 0.05
    return out, lens


def table_findings(table: ConStatTable) -> list[str]:
    """What in a published table is off, one sentence each: rows identical in every number under
    two model names, and accuracies below random guessing (on the reference or the benchmark)."""
    rows, found = table.rows, []
    numbers = ["benchmark", "reference", "delta", "p_value"]
    for _, group in rows[rows.duplicated(numbers, keep=False)].groupby(numbers, sort=False):
        names = " and ".join(group["model"])
        found.append(f"{names}: identical accuracies, delta and p-value (the same model evaluated twice?)")
    below = rows[(rows["reference"] < table.chance[0]) | (rows["benchmark"] < table.chance[1])]
    for _, r in below.iterrows():
        found.append(
            f"{r['model']}: accuracy below random guessing (reference {r['reference']:.3f} vs "
            f"{table.chance[0]:g}, benchmark {r['benchmark']:.3f} vs {table.chance[1]:g})"
        )
    return found


def reproduction_summary(reproduced: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per table: rows, the largest |delta_ours - delta| and the rows over 1 point, the
    models ConStat and we flag at p < 0.05, and the rows where the verdicts differ."""
    out = []
    for name, r in reproduced.items():
        diff = 100 * r["delta_diff"].abs()
        differ = r[r["flag_published"] != r["flag_ours"]]
        out.append(
            {
                "table": name,
                "rows": len(r),
                "max_abs_delta_diff_points": float(diff.max()),
                "rows_over_1_point": "; ".join(r.loc[diff > 1, "model"]),
                "flagged_published": int(r["flag_published"].sum()),
                "flagged_ours": int(r["flag_ours"].sum()),
                "verdicts_differ": "; ".join(
                    f"{m} (ConStat p = {p:.4f}, ours {q:.4f})"
                    for m, p, q in zip(differ["model"], differ["p_value"], differ["p_ours"], strict=True)
                ),
            }
        )
    return pd.DataFrame(out)
