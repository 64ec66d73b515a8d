"""The audit's paired lens: is the best model really better than the next, and what is each model's rank?

Every pair of models is compared on the same items
([`paired_comparisons`][holdout.stats.paired_comparisons]: the exact McNemar test and Newcombe's
interval for 0/1 correctness, the paired t test or exact sign-flip test for pass rates; each interval
made to agree with its test and named), simultaneous confidence sets for all ranks
([`rank_confidence_sets`][holdout.stats.rank_confidence_sets], Mogstad et al. 2024), and from them
the models tied with the best ([`tied_with_best`][holdout.stats.ranks.tied_with_best]: rank interval
reaching 1; with all models equally accurate, some model is called worse than the best with
probability at most alpha) and the tie groups. Every model tied at the top of the counts is named
([`best_models`][holdout.stats.ranks.best_models]). Overlapping
marginal intervals are not a test of a difference: models that share most of their errors are told
apart by a paired test long before their intervals separate.

Outputs: ``pairs.csv`` (one row per pair up to 50 models; beyond, each model against the best and
against the next in rank order, every pair with ``--all-pairs``), ``ranks.csv`` (one row per model),
the rank-interval figure and, for K <= 50, the heatmap of signed differences.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from holdout.plotting import save_figure
from holdout.stats.paired import pair_counts, paired_comparisons
from holdout.stats.ranks import best_models, rank_confidence_sets, tie_groups, tied_with_best

__all__ = [
    "HEATMAP_MAX_MODELS",
    "RANK_FIGURE_MAX_MODELS",
    "PairsLens",
    "pairs_lens",
    "plot_pair_differences",
    "plot_rank_intervals",
    "report_pairs",
    "write_pairs",
]

#: the heatmap of signed differences is drawn up to this many models
HEATMAP_MAX_MODELS = 50
#: the rank-interval figure draws the best this many models (every model is in ranks.csv)
RANK_FIGURE_MAX_MODELS = 50


@dataclass(frozen=True)
class PairsLens:
    """``pairs``: one row per pair (model_a the more accurate; diff, diff_low, diff_high in accuracy
    points); ``ranks``: per model, best first: model, accuracy (percent), rank, rank_low, rank_high,
    tied_with_best (rank interval reaching 1), tie_group (the rank sets' groups), top (tied at the top
    of the counts), p_vs_best and p_holm_vs_best (the paired test against the first best model, raw
    and Holm over the K - 1: not the tie set). ``test``: the paired test used."""

    pairs: pd.DataFrame
    ranks: pd.DataFrame
    n: int
    alpha: float
    binary: bool
    test: str
    critical_value: float
    resamples: int
    resampled: str = "items"  # what the rank bootstrap draws: items, or whole clusters (--clusters)
    tied_test: str = ""  # the test of the tied-with-best set, when not ``test`` (clustered items)

    @property
    def test_words(self) -> str:
        """The paired test in words: 'exact McNemar test', 'McNemar mid-p test', 'paired t test over items'."""
        return {"paired t": "paired t test over items"}.get(self.test, f"{self.test} test")


def _vs_best(pairs: pd.DataFrame, best: str, others: list[str]) -> np.ndarray:
    """log p of each of ``others`` against ``best`` (rows model_a == best, in ``others``' order)."""
    rows = pairs[pairs["model_a"] == best].set_index("model_b")
    return np.log(10.0) * rows.loc[others, "log10_p_value"].to_numpy(dtype=float)


def pairs_lens(
    values: np.ndarray,
    names: list[str] | tuple[str, ...],
    *,
    alpha: float = 0.05,
    mid_p: bool = False,
    resamples: int = 1000,
    seed: int = 0,
) -> PairsLens:
    """The paired lens of a K x n correctness matrix (0/1 or pass rates in [0, 1]), K >= 2."""
    values = np.asarray(values)
    names = [str(m) for m in names]
    counts = pair_counts(values)
    pairs = paired_comparisons(values, names, alpha=alpha, mid_p=mid_p, counts=counts)
    sets = rank_confidence_sets(values, alpha, resamples=resamples, seed=seed, counts=counts)
    order = np.argsort(-sets.totals, kind="stable")  # rounded totals: a tie keeps input order, never float noise
    ordered = [names[i] for i in order]
    log_p = _vs_best(pairs, ordered[0], ordered[1:])
    holm_vs_best = np.concatenate([[1.0], np.exp(np.minimum(0.0, _holm(log_p)))])
    ranks = pd.DataFrame(
        {
            "model": ordered,
            "accuracy": 100 * counts.totals[order] / counts.n,
            "rank": sets.rank[order],
            "rank_low": sets.rank_low[order],
            "rank_high": sets.rank_high[order],
            "tied_with_best": tied_with_best(sets)[order],
            "tie_group": tie_groups(sets)[order],
            "top": np.isin(order, best_models(values)),
            "p_vs_best": np.concatenate([[1.0], np.exp(log_p)]),
            "p_holm_vs_best": holm_vs_best,
        }
    )
    for col in ("diff", "diff_low", "diff_high"):
        pairs[col] = 100 * pairs[col]
    test = str(pairs["test"].iloc[0])
    return PairsLens(pairs, ranks, counts.n, float(alpha), counts.binary, test, sets.critical_value, resamples)


def _holm(log_p: np.ndarray) -> np.ndarray:
    from holdout.stats import holm

    return holm(log_p) if log_p.size else log_p


def _rank_ticks(k: int) -> list[int]:
    """Integer ticks of a rank axis 1..k that always include 1 (the best rank), about six of them."""
    from matplotlib.ticker import MaxNLocator

    ticks = [int(t) for t in MaxNLocator(nbins=6, integer=True, min_n_ticks=2).tick_values(1, k) if 1 < t <= k]
    return [1, *[t for t in ticks if t - 1 >= 0.08 * max(k - 1, 1)]]


def plot_rank_intervals(
    ranks: pd.DataFrame, title: str, alpha: float, max_models: int = RANK_FIGURE_MAX_MODELS
) -> Figure:
    """Models by accuracy (best at the top) with their simultaneous rank intervals on a reversed rank
    axis (a tick at 1); the models tied with the best (interval reaching 1) in a second colour."""
    from holdout.audit.report.plots import LAYOUT_WIDTH, ROW_HEIGHT, short_labels

    shown = ranks.head(max_models).iloc[::-1]
    y = np.arange(len(shown))
    fig, ax = plt.subplots(figsize=(LAYOUT_WIDTH, 1.6 + ROW_HEIGHT * len(shown)), layout="constrained")
    colour = np.where(shown["tied_with_best"], "tab:red", "tab:blue")
    ax.hlines(y, shown["rank_low"], shown["rank_high"], colors=colour, lw=2)
    ax.scatter(shown["rank"], y, c=colour, s=14, zorder=3)
    labels = [f"{m} ({a:.2f}%)" for m, a in zip(short_labels(shown["model"], 28), shown["accuracy"])]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(f"Rank, simultaneous {100 * (1 - alpha):.0f}% set\n(red: tied with the best)")
    k = len(ranks)
    ax.set_xlim(k + 0.5, 0.5)  # reversed: rank 1 on the right
    ax.set_xticks(_rank_ticks(k))
    more = f" (best {max_models} of {len(ranks):,}; all in ranks.csv)" if len(ranks) > max_models else ""
    fig.suptitle("\n".join(textwrap.wrap(title + more, 60)), fontsize=10)
    ax.grid(alpha=0.3, axis="x")
    return fig


def plot_pair_differences(pairs: pd.DataFrame, order: list[str], title: str, alpha: float) -> Figure:
    """Signed accuracy difference row minus column (points) of every pair, models best first; a dot
    marks the pairs that differ significantly after Holm over all pairs. The names (up to 20 models)
    shortened so that they stay distinct; the title above the whole figure, the colour bar's label
    beside it (constrained layout: nothing overlaps)."""
    from holdout.audit.report.plots import LAYOUT_WIDTH, short_labels

    pos = {m: i for i, m in enumerate(order)}
    i, j = pairs["model_a"].map(pos).to_numpy(dtype=int), pairs["model_b"].map(pos).to_numpy(dtype=int)
    diff = np.zeros((len(order), len(order)))
    diff[i, j], diff[j, i] = pairs["diff"], -pairs["diff"].to_numpy()
    named = len(order) <= 20  # names legible at 8 pt; beyond, the models in rank order (pairs.csv names them)
    labels = short_labels(order, 22) if named else []
    label_in = 0.075 * max((len(t) for t in labels), default=0) if named else 0.3
    side = min(LAYOUT_WIDTH - 1.2 - label_in, 4.0)
    fig = plt.figure(figsize=(LAYOUT_WIDTH, side + label_in + 0.8), layout="constrained")
    ax = fig.add_subplot()
    lim = max(float(np.abs(diff).max()), 1e-9)
    im = ax.imshow(diff, cmap="RdBu", vmin=-lim, vmax=lim)
    sig = (pairs["p_holm"] <= alpha).to_numpy()
    ax.scatter(np.r_[j[sig], i[sig]], np.r_[i[sig], j[sig]], s=4, c="k", marker=".")
    if named:
        ax.set_xticks(np.arange(len(order)), labels, rotation=90, fontsize=8)
        ax.set_yticks(np.arange(len(order)), labels, fontsize=8)
    else:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(f"the {len(order):,} models, best first (names in pairs.csv)", fontsize=8)
    bar = fig.colorbar(im, ax=ax, shrink=0.8, aspect=25)
    bar.set_label("row minus column (points)", fontsize=8)
    bar.ax.tick_params(labelsize=8)
    fig.suptitle("\n".join(textwrap.wrap(title + " (dot: Holm-significant)", 60)), fontsize=9)
    return fig


def report_pairs(lens: PairsLens) -> pd.DataFrame:
    """The rows of ``lens.pairs`` that the report reads: every model against the most accurate one, and
    each model against the next in rank order (2K - 3 pairs, in the table's order)."""
    position = {m: i for i, m in enumerate(lens.ranks["model"])}
    a = _positions(lens.pairs["model_a"], position)
    b = _positions(lens.pairs["model_b"], position)
    keep = (np.minimum(a, b) == 0) | (np.abs(a - b) == 1)
    return lens.pairs[keep].reset_index(drop=True)


def _positions(names: pd.Series, position: dict[str, int]) -> np.ndarray:
    """Rank positions of a column of names (a categorical column mapped by its categories: fast at
    millions of rows)."""
    if isinstance(names.dtype, pd.CategoricalDtype):
        lookup = np.array([position[str(c)] for c in names.cat.categories])
        return lookup[names.cat.codes.to_numpy()]
    return names.astype(str).map(position).to_numpy(dtype=int)


def write_pairs(lens: PairsLens, out: Path, label: str, *, all_pairs: bool = False) -> dict[str, Path]:
    """``ranks.csv`` (beside the rank figure, every model), ``pairs.csv`` (beside the heatmap when
    K <= 50: every pair; beyond, the pairs of [`report_pairs`][holdout.audit.engines.pairs_lens.report_pairs]
    unless ``all_pairs``) and the figures; returns name -> PNG."""
    out = Path(out)
    figs = {"rank_intervals": out / "rank_intervals.png"}
    fig = plot_rank_intervals(lens.ranks, f"{label}: ranks", lens.alpha)
    save_figure(fig, figs["rank_intervals"], data=lens.ranks, csv=out / "ranks.csv")
    if len(lens.ranks) <= HEATMAP_MAX_MODELS:
        figs["pair_differences"] = out / "pair_differences.png"
        fig = plot_pair_differences(lens.pairs, list(lens.ranks["model"]), f"{label}: paired differences", lens.alpha)
        save_figure(fig, figs["pair_differences"], data=lens.pairs, csv=out / "pairs.csv")
    else:
        (lens.pairs if all_pairs else report_pairs(lens)).to_csv(out / "pairs.csv", index=False)
    return figs
