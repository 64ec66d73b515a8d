"""Short plain-language verdicts, one per lens, each with the numbers behind it (the paired lens's
too: [`pairs_verdict`][holdout.audit.report.verdicts.pairs_verdict],
[`pairs_summary`][holdout.audit.report.verdicts.pairs_summary])."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from holdout.audit.engines.bounds_eps import K_CAP

if TYPE_CHECKING:
    from holdout.audit.engines.core import BoundsLens, NewSetLens, RvwLens, SimilarityLens
    from holdout.audit.engines.pairs_lens import PairsLens

__all__ = [
    "accuracy_verdict",
    "pairs_summary",
    "pairs_verdict",
    "tie_set_sentence",
    "top_sentence",
    "bounds_verdict",
    "contamination_verdict",
    "new_set_verdict",
    "rvw_verdict",
    "similarity_verdict",
]


def _k(value: int) -> str:
    """A model count: digits up to a million, then 1.2e+09 style."""
    return f"{value:,}" if value < 1_000_000 else f"{float(value):.2g}"


def _p(value: float) -> str:
    return "< 1e-300" if value < 1e-300 else f"{value:.2g}"


def _names(models: pd.Series, most: int = 8) -> str:
    names = [str(m) for m in models]
    shown = ", ".join(names[:most]) + (f" and {len(names) - most} more (ranks.csv)" if len(names) > most else "")
    return shown if len(names) != 2 else " and ".join(names)


def top_sentence(ranks: pd.DataFrame) -> str:
    """Every model tied at the top of the counts, named: 'X has the highest accuracy (95.00%)' or
    'X and Y share the highest accuracy (79.20%)'."""
    top = ranks[ranks["top"]]
    acc = f"{top['accuracy'].iloc[0]:.2f}%"
    if len(top) == 1:
        return f"{top['model'].iloc[0]} has the highest accuracy ({acc})"
    return f"{len(top)} models share the highest accuracy ({acc}): {_names(top['model'])}"


def tie_set_sentence(lens: PairsLens) -> str:
    """The models tied with the best (simultaneous rank interval reaching 1), named, and what the
    set guarantees."""
    r = lens.ranks
    tied = r[r["tied_with_best"] & ~r["top"]]
    level = f"{100 * (1 - lens.alpha):.0f}%"
    return (
        f"{len(tied)} other model(s) are tied with the best"
        + (f" ({_names(tied['model'])})" if len(tied) else "")
        + f": their simultaneous {level} rank interval reaches 1 (Mogstad et al. 2024; with all models equally "
        f"accurate, some model is called worse than the best with probability at most {lens.alpha:g})."
    )


def closest_sentence(lens: PairsLens) -> str:
    """The closest challenger of the first best model: difference, interval (named: which test it agrees
    with, per comparison) and p (raw, and Holm over all pairs)."""
    best = lens.ranks["model"].iloc[0]
    row = lens.pairs[lens.pairs["model_a"] == best].sort_values("diff", kind="stable").iloc[0]
    lo, hi = row["diff_low"], row["diff_high"]
    interval = (
        "no interval: every differing item differs by the same amount"
        if not np.isfinite(lo)
        else (f"[{lo:.2f}, {hi:.2f}] ({row['interval']})")
    )
    return (
        f"The closest to {best}, {row['model_b']}, is {row['diff']:.2f} points behind {interval}, "
        f"p = {_p(row['p_value'])} ({row['test']}, raw; {_p(row['p_holm'])} after Holm over all "
        f"{len(lens.pairs):,} pairs). "
    )


def pairs_verdict(lens: PairsLens) -> str:
    """Every model at the top named, the models tied with the best (rank sets) and what that
    guarantees, the closest challenger, the top ranks with their simultaneous intervals, and how many
    pairs differ."""
    r = lens.ranks
    text = f"Paired on the same {lens.n:,} items ({lens.test_words}). {top_sentence(r)}. {tie_set_sentence(lens)} "
    text += closest_sentence(lens)
    top = "; ".join(f"{m} {a}-{b}" for m, a, b in r[["model", "rank_low", "rank_high"]].head(5).to_numpy())
    significant = int((lens.pairs["p_holm"] <= lens.alpha).sum())
    return text + (
        f"Simultaneous {100 * (1 - lens.alpha):.0f}% rank intervals (Mogstad et al. 2024, "
        f"bootstrap over {lens.resampled}): "
        f"{top}. {significant:,} of {len(lens.pairs):,} pairs differ significantly (Holm over all pairs)."
    )


def pairs_csv_holds(k: int, all_pairs: bool = False, every_pair_up_to: int = 50) -> str:
    """Which pairs ``pairs.csv`` holds, in words (``summary.json``'s ``pairs_csv``): every pair up to
    ``every_pair_up_to`` models (the pairs lens's ``HEATMAP_MAX_MODELS``) or with ``all_pairs``."""
    if all_pairs or k <= every_pair_up_to:
        return f"every pair ({k * (k - 1) // 2:,})"
    return (
        f"the pairs the report reads: each model against the best and against the next in rank order "
        f"({2 * k - 3:,} of {k * (k - 1) // 2:,} pairs; --all-pairs writes every pair)"
    )


def pairs_summary(lens: PairsLens, *, all_pairs: bool = False, every_pair_up_to: int = 50) -> dict[str, object]:
    """The ``pairs`` entry of ``summary.json`` (``pairs_csv``: which pairs ``pairs.csv`` holds)."""
    r = lens.ranks
    return {
        "pairs_csv": pairs_csv_holds(len(r), all_pairs, every_pair_up_to),
        "test": lens.test,
        "n": lens.n,
        "alpha": lens.alpha,
        "best_model": str(r["model"].iloc[0]),
        "top_models": [str(m) for m in r.loc[r["top"], "model"]],
        "tied_with_best": [str(m) for m in r.loc[r["tied_with_best"], "model"]],
        "num_tied_with_best": int(r["tied_with_best"].sum()) - 1,
        "num_pairs": len(lens.pairs),
        "num_pairs_significant_holm": int((lens.pairs["p_holm"] <= lens.alpha).sum()),
        "rank_critical_value": lens.critical_value,
        "rank_resamples": lens.resamples,
        "top": r.head(10)[["model", "accuracy", "rank", "rank_low", "rank_high", "tied_with_best"]].to_dict("records"),
        "verdict": pairs_verdict(lens),
    }


def accuracy_verdict(
    acc: pd.DataFrame, alpha: float, pairs: PairsLens | None = None, *, pass_rates: bool = False
) -> str:
    """Best model, the width of its interval, and how many models the paired test cannot tell apart
    from it ([`pairs_lens`][holdout.audit.engines.pairs_lens.pairs_lens]); the count of overlapping intervals
    only as a conservative screen (overlapping marginal intervals are not a test of a difference)."""
    best = acc.iloc[0]
    overlap = int((acc["ci_high"] >= best["ci_low"]).sum()) - 1
    width = best["ci_high"] - best["ci_low"]
    pass_rates = pass_rates or (pairs is not None and not pairs.binary)
    interval = "Beta-quantile interval on the mean pass rate" if pass_rates else "Clopper-Pearson"
    top = acc[acc["rank"] == 1] if "rank" in acc else acc.head(1)
    numbers = (
        f"{best['accuracy']:.2f}% [{best['ci_low']:.2f}, {best['ci_high']:.2f}] ({100 * (1 - alpha):.0f}% {interval}, "
        f"n = {int(best['n']):,}): the interval is {width:.2f} points wide. "
    )
    if len(top) == 1:
        text = f"The most accurate of the {len(acc)} models is {best['model']} with " + numbers
    else:
        names = ", ".join(map(str, top["model"].head(8))) + (" ..." if len(top) > 8 else "")
        text = f"{len(top)} of the {len(acc)} models are tied for the most accurate ({names}), each with " + numbers
    if pairs is not None:
        text += tie_set_sentence(pairs) + " "
    return text + (
        f"{overlap} other model(s) have {100 * (1 - alpha):.0f}% intervals overlapping the best's: a conservative "
        "screen, not a test of a difference."
    )


def new_set_verdict(lens: NewSetLens) -> str:
    """Mean gap, its range, the largest rank changes, and the fit (Recht et al. Table 1, Eq. 3)."""
    t = lens.table
    text = (
        f"On the new test set the models lose {lens.mean_gap:.2f} points on average "
        f"(from {t['gap'].min():.2f} to {t['gap'].max():.2f}); the error grows by a factor of "
        f"{t['error_ratio'].median():.2f} (median). Rank changes (Delta rank) range from "
        f"{int(t['delta_rank'].min()):+d} to {int(t['delta_rank'].max()):+d}."
    )
    if lens.fit is None:
        return text + " With fewer than 3 models no line is fitted."
    f = lens.fit
    slope_note = (
        "steeper than 1: gains on the original test set carry over, amplified, to the new one"
        if f.slope - 2 * f.slope_se > 1
        else "not clearly different from 1"
        if abs(f.slope - 1) <= 2 * f.slope_se
        else "flatter than 1: gains on the original test set shrink on the new one"
    )
    return text + (
        f" The least-squares line is new = {f.slope:.2f} (± {f.slope_se:.2f}) x original "
        f"{f.intercept:+.2f}% (R^2 = {f.r_squared:.3f}); its slope is {slope_note}. "
        "A drop shared by all models along such a line points to a distribution shift "
        "rather than to adaptive overfitting (Recht et al.)."
    )


def similarity_verdict(lens: SimilarityLens, *, pass_rates: bool = False) -> str:
    """Mean similarity vs the independent-errors baseline, and the covering number at the median."""
    s = lens.summary
    unit = "items" if lens.items else "test points"
    text = (
        f"The {s.num_models} models agree on {100 * s.mean_similarity:.1f}% of the {unit} on "
        f"average (pairs from {100 * s.min_similarity:.1f}% to {100 * s.max_similarity:.1f}%); with "
        f"independent mistakes they would agree on {100 * s.mean_independent_similarity:.1f}%. "
        f"{100 * s.fraction_above_independent:.0f}% of the {s.num_pairs:,} pairs are more similar than "
        "independent errors predict."
    )
    d = lens.difficulty["fraction_at_most"].to_numpy()
    if pass_rates:  # difficulty counts the expected number of failing models, rounded
        return text + (
            f" On {100 * d[0]:.1f}% of the items the expected number of failing models rounds to 0, on "
            f"{100 * (1 - d[-2]):.1f}% to all {s.num_models} (Mania et al. Fig. 4, for pass rates)."
        )
    right = "items are answered correctly" if lens.items else "points are classified correctly"
    return text + (
        f" {100 * d[0]:.1f}% of the {right} by all models and {100 * (1 - d[-2]):.1f}% wrongly by all "
        "(Mania et al. Fig. 4)."
    )


def _eps(value: float | None) -> str:
    """An eps as a fraction and in accuracy points, 3 significant digits: 0.103 (10.3 points), 1 (100 points)."""
    if value is None or value != value:
        return "n/a"
    if value >= 1 - 1e-6:  # within 1 of the population accuracy: true of every model, no guarantee at all
        return "1 (100 points: no guarantee)"
    return f"{value:.3g} ({100 * value:.3g} points)"


def _for_models_sentence(lens: BoundsLens) -> str:
    """The eps at which the test set supports 1, 10 and 100 models under each bound that applies."""
    if not lens.for_models:
        return ""

    def one(e) -> str:  # noqa: ANN001 (an EpsNeeded)
        sharper = [(name, v) for name, v in (("similarity bound", e.similarity), ("naive Bayes", e.naive_bayes)) if v]
        extra = ", ".join(f"{name} {v:.3g}" for name, v in sharper)
        eps = _eps(e.union)
        eps = eps[:-1] + f"; {extra})" if extra and eps.endswith(")") else eps
        return f"{e.models:,} model{'s' * (e.models != 1)} at eps = {eps}"

    return "Under the union bound this test set supports " + ", ".join(one(e) for e in lens.for_models) + ". "


def _count(k: float | None) -> str:
    """A supported-model count: n/a where the bound does not apply, > 1e307 at the search's cap."""
    return "n/a" if k is None else "> 1e307" if k >= K_CAP else _k(int(k))


def _supported_sentence(lens: BoundsLens) -> str:
    """Models supported under (union / similarity / naive-Bayes) at each standard eps (nothing when every
    count is 0: the eps for 1, 10 and 100 models say it)."""
    if not any(s.union or s.similarity or s.naive_bayes for s in lens.supported):
        return ""
    parts = [
        f"{_count(s.union)} / {_count(s.similarity)} / {_count(s.naive_bayes)} at eps = {s.eps:g}"
        for s in lens.supported
    ]
    return "Models this test set supports (union / similarity / naive Bayes): " + "; ".join(parts) + ". "


def _pass_rate_labels(pass_rates: bool) -> str:
    """What the bounds are on pass rates: the union bound a theorem, the similarity ones an extension."""
    if not pass_rates:
        return ""
    return (
        "For pass rates the union bound is a theorem (conservative: the losses lie in [0, 1]); the similarity "
        "and naive-Bayes bounds, derived for 0/1 losses and applied here through the expected agreement, are "
        "a heuristic extension. "
    )


def _eps_needed_sentence(lens: BoundsLens, pass_rates: bool = False) -> str:
    """The headline: the smallest eps at which all K models are guaranteed, under each bound."""
    t = lens
    head = (
        f"With your K = {t.models_used} models on n = {t.n:,} points (mean accuracy {100 * t.mean_accuracy:.1f}%, "
        f"mean similarity {100 * t.similarity:.1f}%), all {t.models_used} test accuracies are within "
        f"eps = {_eps(t.union_eps)} of their population accuracies with probability {1 - t.delta:g} "
        "under the union bound"
    )
    if t.similarity_eps is None or t.naive_bayes_eps is None:
        return (
            head
            + (
                "; the similarity and naive-Bayes bounds do not apply, because the models agree less than "
                f"independent errors would ({100 * t.independent_similarity:.1f}%). "
            )
            + _pass_rate_labels(pass_rates)
        )
    return (
        head
        + (
            f", within {_eps(t.similarity_eps)} under the similarity bound, and within {_eps(t.naive_bayes_eps)} "
            "under the naive-Bayes bound (which assumes conditionally independent errors: optimistic). "
        )
        + _pass_rate_labels(pass_rates)
    )


def bounds_verdict(lens: BoundsLens, *, pass_rates: bool = False) -> str:
    """The smallest eps at which all K models are guaranteed under each bound (first), the models
    supported at standard eps, then whether the K used are covered at the eps asked for."""
    t = lens
    head = _eps_needed_sentence(t, pass_rates) + _for_models_sentence(t) + _supported_sentence(t)
    head += f"At the eps you asked for ({t.eps:g}): "
    covered = t.covered_by()
    if covered == "union":
        return head + "even the union bound covers your models; no concern about test-set reuse at this eps."
    if covered == "similarity":
        return head + "the union bound does not cover your models, but their similarity does."
    if covered == "naive-Bayes":
        return head + (
            "only the naive-Bayes bound covers your models; it assumes conditionally independent errors, "
            "which is optimistic."
        )
    if t.union_k == 0:
        return head + "this test set cannot guarantee even one model; the eps above are those it can."
    return head + f"none of the bounds covers {t.models_used} models; use the eps above or a larger n."


def rvw_verdict(lens: RvwLens) -> str:
    """The bound on the selected model's population error and its largest test-overfit."""
    return (
        f"{lens.model} has test error {100 * lens.test_error:.2f}% on n = {lens.n:,}. Described in "
        f"{lens.bits} bits ({lens.bits_detail}), Rip van Winkle's Razor bounds its population error by "
        f"{100 * lens.bound:.2f}% with probability {1 - lens.delta:g} (C = {lens.C:g}): the test set "
        f"can have flattered it by at most {100 * lens.overfit:.2f} points."
    )


def contamination_verdict(summary: dict) -> str:
    """The contamination split's verdict (the ``contamination`` entry of ``summary.json``, from
    holdout.leaderboards.outputs.contamination_summary): a heuristic test, 'consistent with
    contamination', the test's reach when nothing is flagged, and a warning for excluded models."""
    bad, split, line = summary["below_line"], summary["split"], summary["line_models"]
    head = (
        f"{len(bad)} of {summary['placed_models']} models with a cut-off on or after {split} score significantly "
        f"lower on the fresh items than the line of the {line} models with a cut-off before every item predicts "
        "(heuristic test, one-sided, Holm)"
    )
    if bad:
        text = head + ": consistent with contamination (a drift specific to a model family or item type can do "
        text += "the same): " + ", ".join(bad[:8]) + (" ..." if len(bad) > 8 else "") + "."
    else:
        text = head + (
            f". With {line} line models and {summary['n_new_items']} fresh items the test flags only drops larger "
            f"than about {summary['detectable_drop']:.1f} points below the line's prediction."
        )
    excluded = summary["excluded_models"]
    if excluded:
        text += (
            f" Warning: {len(excluded)} model(s) with a cut-off inside the original period (after the first item, "
            f"before the split) are excluded from both the line and the test: {', '.join(excluded[:8])}."
        )
    return text
