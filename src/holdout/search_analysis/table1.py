"""Table-1-style rows (Mania et al. 2019, Table 1) of the checkpoints of our own random search.

The rows "all", "20 random" and "20 highest scoring": mean accuracy and mean pairwise similarity,
and the models testable by the union, similarity and naive Bayes bounds
([`holdout.bounds.study.table1`][holdout.bounds.study.table1]), with the paper's DARTS rows quoted beside them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from holdout.bounds.core import union_bound_k
from holdout.bounds.study import table1 as bounds_table1
from holdout.predictions import Predictions
from holdout.runlog import timed
from holdout.search_analysis.checkpoints import filter_by_accuracy
from holdout.similarity.core import pairwise_similarity, resolve_subset, upper_pairs
from holdout.stats import independent_similarity
from holdout.tables import fmt_gain, markdown_table

__all__ = ["search_table1", "search_table1_markdown", "table1_gains", "table1_rows", "table1_subsets"]


def table1_subsets(num_checkpoints: int, n_random: int = 20, n_top: int = 20, seed: int = 0) -> list[dict]:
    """Subset specs of the Table-1-style rows: all, ``n_random`` random, ``n_top`` highest scoring.

    Mania et al. Table 1 has "20 Random" and "20 Highest Scoring" (DARTS); with fewer
    checkpoints than asked, the row takes them all and its name says how many.
    """
    if num_checkpoints < 2:
        raise ValueError(f"Table-1 rows need at least 2 checkpoints, got {num_checkpoints}")
    r, t = min(n_random, num_checkpoints), min(n_top, num_checkpoints)
    return [
        {"name": f"all {num_checkpoints}", "top": num_checkpoints},
        {"name": f"{r} random", "random": r, "seed": seed},
        {"name": f"{t} highest scoring", "top": t},
    ]


def table1_rows(preds: Predictions, specs: Sequence[dict], n: int | None = None) -> list[dict[str, object]]:
    """Rows (name, n, mean_accuracy, mean_similarity, num_models, models) for each subset spec.

    Subsets are chosen by [`holdout.similarity.core.resolve_subset`][holdout.similarity.core.resolve_subset] on the
    accuracies of
    ``preds`` ("highest scoring" = highest accuracy on this test set); mean similarity over the
    pairs i < j of the subset (Mania et al. Table 1). ``n`` defaults to the test set size.
    """
    acc = preds.accuracies()
    rows = []
    for spec in specs:
        names = resolve_subset(preds.model_names, acc, spec)
        if len(names) < 2:
            raise ValueError(f"Table-1 row {spec.get('name')!r} selects {len(names)} checkpoint(s); need 2")
        sub = preds.subset(names)
        rows.append(
            {
                "name": spec["name"],
                "n": int(n or preds.num_examples),
                "mean_accuracy": float(sub.accuracies().mean()),
                "mean_similarity": float(upper_pairs(pairwise_similarity(sub.errors())).mean()),
                "num_models": len(names),
                "models": " ".join(names),
            }
        )
    return rows


def table1_gains(
    rows: Sequence[dict], eps: float, delta: float, form: str = "literal", threads: int = 1
) -> pd.DataFrame:
    """[`holdout.bounds.study.table1`][holdout.bounds.study.table1] of the rows, with rows the similarity bounds do not
    cover.

    The similarity and naive Bayes bounds (Mania et al. Sec. 4, App. B) need the mean similarity
    to be at least that of independent errors at the mean error mu, mu^2 + (1 - mu)^2 (the
    coupling needs p11 >= p1 p2). A row below it (its checkpoints' mistakes are negatively
    correlated on average) gets k by the union bound only, NaN for the others, and
    ``bounds_apply`` False. Extra keys of the rows (``num_models``, ``models``) are kept.
    """
    rows = list(rows)
    mu = np.array([1.0 - float(r["mean_accuracy"]) for r in rows])
    ok = np.array([float(r["mean_similarity"]) for r in rows]) >= independent_similarity(mu)
    covered = bounds_table1([r for r, o in zip(rows, ok) if o], eps, delta, form, threads) if ok.any() else None
    out, j = [], 0
    for r, o, m in zip(rows, ok, mu):
        if o:
            row = covered.iloc[j].to_dict()  # type: ignore[union-attr]
            j += 1
        else:
            nan = float("nan")
            row = {
                "name": r["name"],
                "n": int(r["n"]),
                "mean_accuracy": r["mean_accuracy"],
                "mean_similarity": r["mean_similarity"],
                "eps": eps,
                "delta": delta,
                "union_k": union_bound_k(int(r["n"]), float(m), eps, delta),
                "similarity_k": nan,
                "naive_bayes_k": nan,
                "sb_gain": nan,
                "nbb_gain": nan,
            }
        extra = {k: v for k, v in r.items() if k not in row and not k.startswith("paper_")}
        out.append({**row, "independent_similarity": float(m**2 + (1 - m) ** 2), "bounds_apply": bool(o), **extra})
    df = pd.DataFrame(out)
    return df.drop(columns=[c for c in ("paper_sb_gain", "paper_nbb_gain") if c in df.columns])


_SEARCH_TABLE1_HEADERS = {
    "name": "Checkpoints",
    "k": "K",
    "n": "n",
    "acc": "Mean accuracy",
    "sim": "Mean similarity",
    "ind": "Independent",
    "ub": "k UB",
    "sb": "SB",
    "nbb": "NBB",
}


def _fmt_k(v: float) -> str:
    return "n/a" if isinstance(v, float) and math.isnan(v) else f"{int(v):,}"


def search_table1_markdown(
    df: pd.DataFrame, test_set: str, num_kept: int, num_checkpoints: int, min_accuracy: float, cfg: Mapping[str, Any]
) -> str:
    """Markdown of [`table1_gains`][holdout.search_analysis.table1.table1_gains] rows for our search, with notes and the
    paper's values.

    ``cfg`` is ``search_analysis.table1`` (``eps``, ``delta``, ``seed``). The notes quote Mania
    et al. (2019) Table 1 (DARTS, n = 10,000) for comparison.
    """
    pct = lambda col: [f"{100 * v:.1f}%" for v in df[col]]  # noqa: E731
    shown = pd.DataFrame(
        {
            "name": df["name"],
            "k": df["num_models"],
            "n": [f"{v:,}" for v in df["n"]],
            "acc": pct("mean_accuracy"),
            "sim": pct("mean_similarity"),
            "ind": pct("independent_similarity"),
            "ub": [_fmt_k(v) for v in df["union_k"]],
            "sb": [fmt_gain(v) for v in df["sb_gain"]],
            "nbb": [fmt_gain(v) for v in df["nbb_gain"]],
        }
    )
    notes = [
        (
            f"Our search on {test_set}: {num_kept} of {num_checkpoints} checkpoints with accuracy >= "
            f"{min_accuracy:g}; 'highest scoring' = highest accuracy on this test set, 'random' drawn with "
            f"seed {cfg['seed']}."
        ),
        (
            f"eps = {cfg['eps']}, delta = {cfg['delta']}; n = the test set size unless search_analysis.table1.n is "
            "set. SB, NBB: testable models by the similarity bound (3)+(8) and the naive Bayes bound over those by "
            "the union bound (k UB). Independent: mu^2 + (1 - mu)^2 at the mean error mu; below it the similarity "
            "bounds do not apply (–)."
        ),
        (
            "Paper (Mania et al. 2019, Table 1, DARTS, n = 10,000): 20 Random 96.8% / 97.5%: SB 9.9x, NBB 1.6e4x; "
            "20 Highest Scoring 96.9% / 97.6%: SB 12x, NBB 3.4e4x."
        ),
    ]
    align = {c: "r" for c in _SEARCH_TABLE1_HEADERS if c != "name"}
    return markdown_table(shown, _SEARCH_TABLE1_HEADERS, align=align, notes=notes)


def search_table1(
    preds: Predictions,
    min_accuracy: float,
    cfg: Mapping[str, Any],
    threads: int = 1,
    log: logging.Logger | None = None,
) -> tuple[pd.DataFrame, str]:
    """Mania et al. (2019) Table-1-style rows of our search: the frame and its Markdown.

    Keeps checkpoints with accuracy >= ``min_accuracy``
    ([`filter_by_accuracy`][holdout.search_analysis.table1.filter_by_accuracy]), takes the
    subsets of [`table1_subsets`][holdout.search_analysis.table1.table1_subsets] (``cfg``: ``n_random``, ``n_top``,
    ``seed``, ``n``) and
    their gains ([`table1_gains`][holdout.search_analysis.table1.table1_gains] at ``eps``, ``delta``, ``form``); logs
    each row.
    """
    log = log or logging.getLogger("holdout")
    kept = filter_by_accuracy(preds, min_accuracy)
    log.info("%d of %d checkpoints have accuracy >= %g", kept.num_models, preds.num_models, min_accuracy)
    with timed(log, "subsets and mean similarities"):
        specs = table1_subsets(kept.num_models, cfg["n_random"], cfg["n_top"], cfg["seed"])
        rows = table1_rows(kept, specs, n=cfg["n"])
    with timed(log, f"testable models at eps={cfg['eps']}, delta={cfg['delta']}"):
        df = table1_gains(rows, cfg["eps"], cfg["delta"], cfg["form"], threads=threads)
    for r in df.itertuples():
        log.info(
            "%s: %d checkpoints, accuracy %.4f, similarity %.4f (independent %.4f), k_UB %d, SB %s, NBB %s",
            *(r.name, r.num_models, r.mean_accuracy, r.mean_similarity, r.independent_similarity, r.union_k),
            *(fmt_gain(r.sb_gain), fmt_gain(r.nbb_gain)),
        )
    md = search_table1_markdown(df, preds.test_set, kept.num_models, preds.num_models, min_accuracy, cfg)
    return df, md
