"""Analyses of the checkpoints of our own random search (Mania et al. 2019, Sec. 5.2, Fig. 3, Table 1).

The search study writes one predictions file per test set (``holdout.predictions``) whose
models are checkpoints named ``<model>@e<epoch:03d>``. This module turns such a file into

- Mania et al. Figure 3: the similarity of every pair of checkpoints whose accuracy is at
  least ``min_accuracy`` (the paper: 50%; the CPU default run: 25%) against the
  independent-errors baseline mu_i mu_j + (1 - mu_i)(1 - mu_j), and
  the greedy upper bound on the similarity covering number N_eta of Definition 1 for each
  eta (the paper keeps 1,235 of its 3,200 checkpoints);
- the rows of a Table-1-style table ("all", "20 random", "20 highest scoring"): mean
  accuracy and mean pairwise similarity, the inputs of :func:`holdout.bounds.study.table1`;
- the Recht et al. (2018) comparison of an original and a new test set for the same
  checkpoints (inputs of :func:`holdout.cifar10_1.recht.table1` and ``linear_fit``).

Pure functions over :class:`holdout.predictions.Predictions`; no torch.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from holdout.bounds.core import union_bound_k
from holdout.bounds.study import table1 as bounds_table1
from holdout.cifar10_1.recht import table1
from holdout.predictions import Predictions
from holdout.runlog import timed
from holdout.similarity.core import (
    covering_numbers,
    independent_similarity_matrix,
    pairwise_similarity,
    resolve_subset,
    summarize_similarity,
    upper_pairs,
)
from holdout.stats import LinearFit, accuracy_table, fit_band, independent_similarity, linear_fit
from holdout.tables import fmt_gain, markdown_table

__all__ = [
    "Figure3",
    "checkpoint_table",
    "eta_grid",
    "figure3",
    "filter_by_accuracy",
    "final_checkpoints",
    "recht_comparison",
    "recht_figure2_frames",
    "search_recht",
    "split_checkpoint_name",
    "search_figure3",
    "search_table1",
    "search_table1_markdown",
    "table1_gains",
    "table1_rows",
    "table1_subsets",
]

_CHECKPOINT = re.compile(r"^(?P<model>.+)@e(?P<epoch>\d+)$")


def split_checkpoint_name(name: str) -> tuple[str, int]:
    """``"m007@e012"`` -> ``("m007", 12)``: the model and epoch of a checkpoint's name."""
    m = _CHECKPOINT.match(str(name))
    if m is None:
        raise ValueError(f"checkpoint name {name!r} is not of the form <model>@e<epoch>, e.g. m007@e012")
    return m.group("model"), int(m.group("epoch"))


def checkpoint_table(preds: Predictions) -> pd.DataFrame:
    """One row per checkpoint: name, model, epoch, number of correct predictions and accuracy."""
    parts = [split_checkpoint_name(m) for m in preds.model_names]
    return pd.DataFrame(
        {
            "checkpoint": list(preds.model_names),
            "model": [p[0] for p in parts],
            "epoch": [p[1] for p in parts],
            "correct": preds.correct_counts(),
            "accuracy": preds.accuracies(),
        }
    )


def filter_by_accuracy(preds: Predictions, min_accuracy: float = 0.5) -> Predictions:
    """The checkpoints with accuracy >= ``min_accuracy`` (Mania et al. Sec. 5.2: 50%), in file order."""
    if not 0.0 <= min_accuracy <= 1.0:
        raise ValueError(f"min_accuracy must lie in [0, 1], got {min_accuracy}")
    keep = preds.accuracies() >= min_accuracy
    return preds.subset([m for m, k in zip(preds.model_names, keep) if k])


def final_checkpoints(names: Sequence[str]) -> list[str]:
    """The last checkpoint (highest epoch) of every model, in the order of first appearance."""
    best: dict[str, tuple[int, str]] = {}
    for name in names:
        model, epoch = split_checkpoint_name(name)
        if model not in best or epoch > best[model][0]:
            best[model] = (epoch, str(name))
    return [best[m][1] for m in best]


@dataclass(frozen=True)
class Figure3:
    """The values of Mania et al. Figure 3 for one test set.

    ``pairs``: one row per pair i < j of kept checkpoints (names, accuracies, empirical and
    independent-errors similarity); ``covering``: eta and the greedy upper bound on N_eta;
    ``summary``: counts (checkpoints before and after the accuracy filter) and means.
    """

    pairs: pd.DataFrame
    covering: pd.DataFrame
    summary: dict[str, object]


def figure3(preds: Predictions, min_accuracy: float, etas: Sequence[float]) -> Figure3:
    """Mania et al. Fig. 3: pair similarities vs independent errors and N_eta of the kept checkpoints.

    Keeps the checkpoints with accuracy >= ``min_accuracy``; similarity as in Sec. 2,
    P(1{f_i(x) != y} = 1{f_j(x) != y}); the baseline as in Sec. 5.1; N_eta bounded from
    above by :func:`holdout.similarity.core.covering_numbers` (greedy cover, Definition 1).
    Needs at least two kept checkpoints.
    """
    kept = filter_by_accuracy(preds, min_accuracy)
    if kept.num_models < 2:
        raise ValueError(
            f"{preds.test_set}: {kept.num_models} of {preds.num_models} checkpoints reach accuracy "
            f">= {min_accuracy}; Figure 3 needs at least 2 (train longer or lower the threshold)"
        )
    errors = kept.errors()
    mu = errors.mean(axis=1)
    sim = pairwise_similarity(errors)
    indep = independent_similarity_matrix(mu)
    names = np.array(kept.model_names)
    iu, ju = np.triu_indices(len(names), k=1)
    pairs = pd.DataFrame(
        {
            "checkpoint_i": names[iu],
            "checkpoint_j": names[ju],
            "accuracy_i": 1 - mu[iu],
            "accuracy_j": 1 - mu[ju],
            "similarity": sim[iu, ju],
            "independent_similarity": indep[iu, ju],
        }
    )
    etas = np.asarray(etas, dtype=float)
    covering = pd.DataFrame(
        {
            "eta": etas,
            "covering_number_upper_bound": covering_numbers(sim, mu, etas),
            "num_checkpoints": kept.num_models,
        }
    )
    s = summarize_similarity(errors, sim)
    summary: dict[str, object] = {
        "test_set": preds.test_set,
        "n": preds.num_examples,
        "min_accuracy": float(min_accuracy),
        "num_checkpoints": preds.num_models,
        "num_kept": kept.num_models,
        "num_models": len({split_checkpoint_name(m)[0] for m in preds.model_names}),
        "best_accuracy": float(preds.accuracies().max()),
        "num_pairs": s.num_pairs,
        "mean_accuracy": s.mean_accuracy,
        "mean_similarity": s.mean_similarity,
        "mean_independent_similarity": s.mean_independent_similarity,
        "fraction_pairs_above_independent": s.fraction_above_independent,
    }
    return Figure3(pairs=pairs, covering=covering, summary=summary)


def eta_grid(eta: Mapping[str, Any]) -> np.ndarray:
    """The etas of Figure 3 (right) from ``search_analysis.eta`` (``min``, ``max``, ``num``), rounded to 1e-10."""
    if eta["min"] > eta["max"]:
        raise ValueError(f"config search_analysis.eta: min={eta['min']} is above max={eta['max']}")
    return np.round(np.linspace(eta["min"], eta["max"], eta["num"]), 10)


def search_figure3(
    preds: Predictions, min_accuracy: float, etas: Sequence[float], log: logging.Logger | None = None
) -> Figure3:
    """:func:`figure3` of our search's checkpoints, timed and summarised in ``log`` (paper: 1,235 of 3,200 kept)."""
    log = log or logging.getLogger("holdout")
    with timed(log, f"similarities of {preds.num_models} checkpoints and {len(etas)} covering numbers"):
        f3 = figure3(preds, min_accuracy, etas)
    s = f3.summary
    log.info(
        "%d of %d checkpoints (%d models) have accuracy >= %g (paper: 1,235 of 3,200); best %.4f",
        *(s["num_kept"], s["num_checkpoints"], s["num_models"], min_accuracy, s["best_accuracy"]),
    )
    log.info(
        "mean similarity %.4f vs independent errors %.4f; %.1f%% of %d pairs above independent",
        *(s["mean_similarity"], s["mean_independent_similarity"]),
        *(100 * s["fraction_pairs_above_independent"], s["num_pairs"]),  # type: ignore[operator]
    )
    return f3


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

    Subsets are chosen by :func:`holdout.similarity.core.resolve_subset` on the accuracies of
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
    """:func:`holdout.bounds.study.table1` of the rows, with rows the similarity bounds do not cover.

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


def recht_comparison(
    original: Predictions,
    new: Predictions,
    alpha: float = 0.05,
    checkpoints: str = "final",
    min_accuracy: float = 0.0,
) -> tuple[pd.DataFrame, LinearFit]:
    """Recht et al. (2018) Table 1 and Eq. (3) for our checkpoints: original vs new test set.

    Uses the checkpoints present in both files (``checkpoints="final"``: each model's last one;
    ``"all"``: every one) whose original accuracy is >= ``min_accuracy``; accuracies with
    Clopper-Pearson intervals, gap and Delta Rank (:func:`holdout.cifar10_1.recht.table1`),
    and the least-squares line of new on original accuracy (percent). Needs 3 checkpoints.
    """
    if checkpoints not in ("final", "all"):
        raise ValueError(f"checkpoints must be 'final' or 'all', got {checkpoints!r}")
    common = [m for m in original.model_names if m in set(new.model_names)]
    if checkpoints == "final":
        common = final_checkpoints(common)
    acc = original.subset(common).accuracies() if common else np.zeros(0)
    names = [m for m, a in zip(common, acc) if a >= min_accuracy]
    if len(names) < 3:
        raise ValueError(
            f"{original.test_set} vs {new.test_set}: {len(names)} checkpoints in both files "
            f"({checkpoints}, accuracy >= {min_accuracy}); the linear fit needs at least 3"
        )
    t1 = table1(accuracy_table(original.subset(names), alpha), accuracy_table(new.subset(names), alpha))
    return t1, linear_fit(t1["orig_accuracy"], t1["new_accuracy"])


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
    """Markdown of :func:`table1_gains` rows for our search, with notes and the paper's values.

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

    Keeps checkpoints with accuracy >= ``min_accuracy`` (:func:`filter_by_accuracy`), takes the
    subsets of :func:`table1_subsets` (``cfg``: ``n_random``, ``n_top``, ``seed``, ``n``) and
    their gains (:func:`table1_gains` at ``eps``, ``delta``, ``form``); logs each row.
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


_FIGURE2_POINTS = ["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]


def recht_figure2_frames(t1: pd.DataFrame, fit: LinearFit, band_level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points (accuracies with intervals) and the line (fit, ``band_level`` band, y = x on 201
    x from 1 below the lowest interval to 100) of Recht et al. (2018) Figure 2 for :func:`recht_comparison`."""
    x = np.linspace(t1.orig_ci_low.min() - 1, 100, 201)
    y, lo, hi = fit_band(fit, x, band_level)
    return t1[_FIGURE2_POINTS], pd.DataFrame({"x": x, "fit": y, "band_low": lo, "band_high": hi, "y_equals_x": x})


def search_recht(
    original: Predictions, new: Predictions, cfg: Mapping[str, Any], log: logging.Logger | None = None
) -> tuple[pd.DataFrame, LinearFit, pd.DataFrame, pd.DataFrame]:
    """:func:`recht_comparison` and :func:`recht_figure2_frames` with ``search_analysis.recht``
    (``alpha``, ``checkpoints``, ``min_accuracy``, ``fit_band_level``): (Table 1, fit, points, line)."""
    log = log or logging.getLogger("holdout")
    with timed(log, f"Table 1 and Eq. (3), {new.test_set}"):
        t1, fit = recht_comparison(original, new, cfg["alpha"], cfg["checkpoints"], cfg["min_accuracy"])
    points, line = recht_figure2_frames(t1, fit, cfg["fit_band_level"])
    log.info(
        "%d checkpoints; acc_new = (%.3f +- %.3f) acc_orig + (%.2f +- %.2f)%% (published models: 1.62, -65.51)",
        *(len(t1), fit.slope, fit.slope_se, fit.intercept, fit.intercept_se),
    )
    return t1, fit, points, line
