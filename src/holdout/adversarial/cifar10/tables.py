"""Tables of the adversarial CIFAR-10 study (Werpachowski et al. 2019, Sec. 5.2 on our seeds models):
per-model p-values, the N-model test and the rejection summary."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.adversarial.per_image import attack_range, figure5_table
from holdout.adversarial.stats import n_model_test
from holdout.adversarial.translation import (
    ATTACKS,
)
from holdout.runlog import timed

__all__ = [
    "n_model_table",
    "pvalue_markdown",
    "pvalue_table",
    "read_per_image",
    "rejection_summary",
    "summary_tables",
]


# ---------------------------------------------------------------------------
# the tests (Sec. 3) on the per-image tables
# ---------------------------------------------------------------------------
def pvalue_table(
    frames: Mapping[tuple[str, str], pd.DataFrame],
    sample_sizes: Sequence[int],
    *,
    seed: int,
    confidence_delta: float = 0.025,
) -> pd.DataFrame:
    """Every p-value: per (model, set), AEG and sample size, the pairwise test (6)-(7) and
    the interval test of Sec. 3.1 (columns of
    [`holdout.adversarial.per_image.figure5_table`][holdout.adversarial.per_image.figure5_table]), with columns
    ``model``, ``set``,
    ``aeg``, ``sample_size``, ``p_value`` first. Sub-samples are prefixes of one seeded
    permutation per set size, so every model of a set sees the same images."""
    tables = []
    for (model, split), df in frames.items():
        t = figure5_table(df, sample_sizes, seed=seed, confidence_delta=confidence_delta)
        t = t.rename(columns={"attack": "aeg"})
        t.insert(0, "set", split)
        t.insert(0, "model", model)
        tables.append(t)
    if not tables:
        raise ValueError("no per-image results")
    out = pd.concat(tables, ignore_index=True)
    first = ["model", "set", "aeg", "sample_size", "p_value"]
    return out[first + [c for c in out.columns if c not in first]]


def _t_matrix(frames: Sequence[pd.DataFrame], attack: str) -> np.ndarray:
    from holdout.adversarial.stats import t_statistic

    rows = [t_statistic(f["loss"], f[f"{attack}_adv_loss"], f[f"{attack}_density"]) for f in frames]
    return np.stack(rows)


def n_model_table(
    frames: Mapping[tuple[str, str], pd.DataFrame],
    sample_sizes: Sequence[int],
    *,
    seed: int,
) -> pd.DataFrame:
    """The N-model test of Sec. 3.3 (ii) over all models, per set, AEG and sample size (the
    same sub-samples as [`pvalue_table`][holdout.adversarial.cifar10.tables.pvalue_table]): Tbar_i = (1/N) sum_j
    T_i(f_j), then (6)-(7).

    Every model of a set must have been attacked on the same images in the same order."""
    rows = []
    for split in dict.fromkeys(s for _, s in frames):
        models = [(m, f) for (m, s), f in frames.items() if s == split]
        ref = models[0][1]["index"].to_numpy()
        for m, f in models[1:]:
            if not np.array_equal(f["index"].to_numpy(), ref):
                raise ValueError(f"{m} on the {split} set was attacked on other images than {models[0][0]}")
        n = len(ref)
        sizes = sorted({int(s) for s in sample_sizes if 1 <= int(s) < n} | {n})
        perm = np.random.default_rng([int(seed), 0xF5]).permutation(n)  # figure5_table's permutation
        attacks = [a for a in ATTACKS if f"{a}_adv_loss" in _common_columns(models)]
        for a in attacks:
            t = _t_matrix([f for _, f in models], a)
            U, rng = attack_range(a)
            for size in sizes:
                res = n_model_test(t[:, perm[:size]], U, expected_range=rng)
                rows.append(
                    {
                        "set": split,
                        "aeg": a,
                        "sample_size": size,
                        "n_models": res.n_models,
                        "p_value": res.p_value,
                        "log_p_value": res.log_p_value,
                        "statistic": res.statistic,
                        "variance": res.variance,
                        "U": U,
                    }
                )
    return pd.DataFrame(rows)


def _common_columns(models: Sequence[tuple[str, pd.DataFrame]]) -> set[str]:
    """Columns every model's table has."""
    cols = set(models[0][1].columns)
    for _, f in models[1:]:
        cols &= set(f.columns)
    return cols


def rejection_summary(pvalues: pd.DataFrame, n_model: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per set and AEG on the whole sample: how many models the pairwise test rejects at
    ``alpha`` (independence of model and set, Sec. 3.3 (i)), the median and largest
    p-value, the mean error R_S and risk R_g, and the N-model test's p-value (Sec. 3.3 (ii))."""
    full = pvalues[pvalues["sample_size"] == pvalues.groupby(["model", "set"])["sample_size"].transform("max")]
    rows = []
    for (split, aeg), g in full.groupby(["set", "aeg"], sort=False):
        nm = n_model[(n_model["set"] == split) & (n_model["aeg"] == aeg)] if len(n_model) else n_model
        nm = nm[nm["sample_size"] == nm["sample_size"].max()] if len(nm) else nm
        rows.append(
            {
                "set": split,
                "aeg": aeg,
                "sample_size": int(g["sample_size"].max()),
                "n_models": len(g),
                "rejected": int((g["p_value"] <= alpha).sum()),
                "alpha": alpha,
                "median_p_value": float(g["p_value"].median()),
                "max_p_value": float(g["p_value"].max()),
                "mean_R_S": float(g["R_S"].mean()),
                "mean_R_g": float(g["R_g"].mean()),
                "n_model_p_value": float(nm["p_value"].iloc[0]) if len(nm) else float("nan"),
                "n_model_log_p_value": float(nm["log_p_value"].iloc[0]) if len(nm) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def pvalue_markdown(pvalues: pd.DataFrame, summary: pd.DataFrame) -> str:
    """The p-values on the whole samples as Markdown: one row per model and set, one column
    per AEG (the CSV has every sample size), then the summary with the N-model test."""
    from holdout.tables import markdown_table

    full = pvalues[pvalues["sample_size"] == pvalues.groupby(["model", "set"])["sample_size"].transform("max")]
    wide = full.pivot_table(index=["model", "set", "sample_size"], columns="aeg", values="p_value", sort=False)
    wide = wide.reset_index()
    aegs = [a for a in ATTACKS if a in wide.columns]
    for a in aegs:
        wide[a] = wide[a].map(lambda p: f"{p:.3g}")
    err = full.drop_duplicates(["model", "set"]).set_index(["model", "set"])["R_S"]
    wide["error"] = [f"{err[(m, s)]:.4f}" for m, s in zip(wide["model"], wide["set"])]
    cols = {"model": "model", "set": "set", "sample_size": "m", "error": "error R_S", **{a: f"p ({a})" for a in aegs}}
    s = summary.copy()
    for c in ("median_p_value", "max_p_value", "n_model_p_value"):
        s[c] = s[c].map(lambda p: f"{p:.3g}")
    for c in ("mean_R_S", "mean_R_g"):
        s[c] = s[c].map(lambda v: f"{v:.4f}")
    s["rejected"] = [f"{r}/{n}" for r, n in zip(s["rejected"], s["n_models"])]
    alpha = float(summary["alpha"].iloc[0]) if len(summary) else 0.05
    text = markdown_table(
        wide,
        cols,
        title="Pairwise test (6)-(7) on the whole samples (Werpachowski et al. 2019, Sec. 3.3 (i))",
        notes=["p-values at every sample size: pvalues.csv; U = 3/2 for strongest/nearest, 2 for random/random2"],
    )
    text += "\n" + markdown_table(
        s,
        {
            "set": "set",
            "aeg": "AEG",
            "sample_size": "m",
            "rejected": f"rejected at {alpha:g}",
            "median_p_value": "median p",
            "max_p_value": "max p",
            "mean_R_S": "mean R_S",
            "mean_R_g": "mean R_g",
            "n_model_p_value": "N-model p",
        },
        title="Summary and the N-model test over all models (Sec. 3.3 (ii))",
    )
    return text


def read_per_image(paths: Sequence[str | Path]) -> dict[tuple[str, str], pd.DataFrame]:
    """The per-image tables ``per_image/<model>_<set>.csv`` of the attack rule, keyed (model, set)."""
    frames = {}
    for path in paths:
        model, split = Path(path).stem.rsplit("_", 1)
        frames[model, split] = pd.read_csv(path)
    return frames


def summary_tables(
    frames: Mapping[tuple[str, str], pd.DataFrame], cfg: Mapping, log: logging.Logger | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """([`pvalue_table`][holdout.adversarial.cifar10.tables.pvalue_table],
    [`n_model_table`][holdout.adversarial.cifar10.tables.n_model_table],
    [`rejection_summary`][holdout.adversarial.cifar10.tables.rejection_summary]) of the per-image
    tables with ``adversarial_cifar10`` settings ``cfg`` (``seed``, ``sample_sizes``,
    ``confidence_delta``, ``alpha``); one log line per set, AEG and sample size."""
    log = log or logging.getLogger("holdout")
    seed, sizes = int(cfg["seed"]), [int(s) for s in cfg["sample_sizes"]]
    with timed(log, "pairwise and N-model tests"):
        pvalues = pvalue_table(frames, sizes, seed=seed, confidence_delta=float(cfg["confidence_delta"]))
        n_model = n_model_table(frames, sizes, seed=seed)
        summary = rejection_summary(pvalues, n_model, alpha=float(cfg["alpha"]))
    for _, r in summary.iterrows():
        log.info(
            "%s %s m=%d: %d/%d models rejected at %g (median p %.3g); N-model test p = %.3g (ln p = %.1f)",
            *(r["set"], r["aeg"], r["sample_size"], r["rejected"], r["n_models"], r["alpha"]),
            *(r["median_p_value"], r["n_model_p_value"], r["n_model_log_p_value"]),
        )
    return pvalues, n_model, summary
