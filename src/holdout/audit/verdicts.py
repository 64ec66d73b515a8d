"""Short plain-language verdicts, one per lens, each with the numbers behind it."""

from __future__ import annotations

import pandas as pd

from holdout.audit.core import BoundsLens, NewSetLens, RvwLens, SimilarityLens

__all__ = ["accuracy_verdict", "bounds_verdict", "new_set_verdict", "rvw_verdict", "similarity_verdict"]


def _k(value: int) -> str:
    """A model count: digits up to a million, then 1.2e+09 style."""
    return f"{value:,}" if value < 1_000_000 else f"{float(value):.2g}"


def accuracy_verdict(acc: pd.DataFrame, alpha: float) -> str:
    """Best model, the width of its interval, and how many models it cannot be told apart from."""
    best = acc.iloc[0]
    overlap = int((acc["ci_high"] >= best["ci_low"]).sum()) - 1
    width = best["ci_high"] - best["ci_low"]
    return (
        f"The most accurate of the {len(acc)} models is {best['model']} with {best['accuracy']:.2f}% "
        f"[{best['ci_low']:.2f}, {best['ci_high']:.2f}] ({100 * (1 - alpha):.0f}% Clopper-Pearson, "
        f"n = {int(best['n']):,}): the interval is {width:.2f} points wide. "
        f"{overlap} other model(s) have intervals reaching into it, so the test set alone does not "
        "separate them from the best."
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


def similarity_verdict(lens: SimilarityLens) -> str:
    """Mean similarity vs the independent-errors baseline, and the covering number at the median."""
    s = lens.summary
    text = (
        f"The {s.num_models} models agree on {100 * s.mean_similarity:.1f}% of the test points on "
        f"average (pairs from {100 * s.min_similarity:.1f}% to {100 * s.max_similarity:.1f}%); with "
        f"independent mistakes they would agree on {100 * s.mean_independent_similarity:.1f}%. "
        f"{100 * s.fraction_above_independent:.0f}% of the {s.num_pairs:,} pairs are more similar than "
        "independent errors predict."
    )
    d = lens.difficulty["fraction_at_most"].to_numpy()
    return text + (
        f" {100 * d[0]:.1f}% of the points are classified correctly by all models and "
        f"{100 * (1 - d[-2]):.1f}% wrongly by all (Mania et al. Fig. 4)."
    )


def bounds_verdict(lens: BoundsLens) -> str:
    """How many models the test set supports under each bound, against the K used."""
    t = lens
    head = (
        f"At n = {t.n:,}, mean accuracy {100 * t.mean_accuracy:.1f}% and mean similarity "
        f"{100 * t.similarity:.1f}%, the union bound guarantees that all of up to {_k(t.union_k)} models "
        f"are estimated within eps = {t.eps:g} with probability {1 - t.delta:g}"
    )
    if t.similarity_k is None or t.naive_bayes_k is None:
        head += (
            f"; the similarity and naive-Bayes bounds do not apply, because the models agree less "
            f"than independent errors would ({100 * t.independent_similarity:.1f}%). "
        )
    else:
        head += f"; the similarity bound allows {_k(t.similarity_k)} and the naive-Bayes bound {_k(t.naive_bayes_k)}. "
    head += f"You evaluated K = {t.models_used}. "
    covered = t.covered_by()
    if covered == "union":
        return head + "Even the union bound covers them: no concern about test-set reuse at this eps."
    if covered == "similarity":
        return head + "The union bound does not cover them, but the similarity of your models does."
    if covered == "naive-Bayes":
        return head + (
            "Only the naive-Bayes bound covers them; it assumes conditionally independent errors, which is optimistic."
        )
    if t.union_k == 0:
        return head + f"This test set cannot guarantee even one model within eps = {t.eps:g}: ask for a larger eps."
    return head + f"None of the bounds covers {t.models_used} models at eps = {t.eps:g}: ask for a larger eps or n."


def rvw_verdict(lens: RvwLens) -> str:
    """The bound on the selected model's population error and its largest test-overfit."""
    return (
        f"{lens.model} has test error {100 * lens.test_error:.2f}% on n = {lens.n:,}. Described in "
        f"{lens.bits} bits ({lens.bits_detail}), Rip van Winkle's Razor bounds its population error by "
        f"{100 * lens.bound:.2f}% with probability {1 - lens.delta:g} (C = {lens.C:g}): the test set "
        f"can have flattered it by at most {100 * lens.overfit:.2f} points."
    )
