"""The bounds lens read the researcher's way: the smallest eps at which all K models are guaranteed.

Was: on the shipped example the verdict opened with "the union bound guarantees that all of up to 0
models are estimated within eps = 0.01", the wrong direction for someone holding K models.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from holdout.audit import AuditOptions, load_audit_predictions, run_audit
from holdout.audit.engines.bounds_eps import STANDARD_EPS, eps_needed, supported_models
from holdout.audit.report.verdicts import bounds_verdict
from holdout.bounds import study as bounds_study
from holdout.bounds.core import naive_bayes_bound_k, similarity_bound_k, union_bound_k

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PREDS = REPO / "config/examples/user_predictions.csv"
EXAMPLE_LABELS = REPO / "config/examples/user_labels.npy"


@pytest.fixture(scope="module")
def example_bounds():
    preds = load_audit_predictions(EXAMPLE_PREDS, EXAMPLE_LABELS)
    return run_audit(preds, AuditOptions(lenses=("accuracy", "similarity", "bounds"))).bounds


def test_example_verdict_opens_with_the_eps_all_k_models_are_guaranteed_at(example_bounds):
    t = example_bounds
    text = bounds_verdict(t)
    assert not text.startswith("At n = ") and "up to 0 models" not in text
    assert text.startswith(f"With your K = {t.models_used} models on n = {t.n:,} points")
    # the shipped example: 3 models on 300 points, guaranteed only at eps of about 5 points
    assert t.models_used == 3 and t.n == 300
    assert 0.04 < t.naive_bayes_eps <= t.similarity_eps <= t.union_eps < 0.06
    assert f"eps = {t.union_eps:.3g} ({100 * t.union_eps:.3g} points)" in text
    first = text.index("under the union bound")
    assert first < text.index("similarity bound") < text.index("naive-Bayes bound") < text.index("supports")
    assert "3 / 3 / 4 at eps = 0.05" in text


@pytest.mark.parametrize(
    ("n", "error", "similarity", "models"),
    [(300, 0.1456, 0.8622, 3), (2000, 0.15, 0.90, 30), (10_000, 0.07, 0.95, 30)],
)
def test_eps_needed_is_the_smallest_eps_within_half_a_point_over_n(n, error, similarity, models):
    """At the eps returned every bound supports K models; 1/n below, where the events move, it does not."""
    need = eps_needed(n, error, similarity, models, 0.05)
    for eps, bound in (
        (need.union, lambda e: union_bound_k(n=n, error=error, eps=e, delta=0.05)),
        (need.similarity, lambda e: similarity_bound_k(n=n, error=error, similarity=similarity, eps=e, delta=0.05)),
        (need.naive_bayes, lambda e: naive_bayes_bound_k(n=n, error=error, similarity=similarity, eps=e, delta=0.05)),
    ):
        assert bound(eps) >= models
        assert bound(eps - 1 / n) < models
    assert need.naive_bayes <= need.similarity <= need.union


def test_eps_needed_without_similarity_gain_is_the_union_bound_only():
    need = eps_needed(10_000, 0.2, 0.60, 5, 0.05)  # independent errors agree on 68%
    assert need.similarity is None and need.naive_bayes is None
    assert union_bound_k(n=10_000, error=0.2, eps=need.union, delta=0.05) >= 5


def test_supported_models_match_the_bounds_at_the_standard_eps():
    """Up to the first standard eps where the union bound covers K = 30 (0.05 here), plus the eps asked for."""
    rows = supported_models(2000, 0.15, 0.90, 0.05, 30, extra=(0.03,))
    assert tuple(r.eps for r in rows) == (*STANDARD_EPS[:3], 0.03, 0.05)
    assert [r.eps for r in supported_models(2000, 0.15, 0.90, 0.05, 4)] == [0.005, 0.01, 0.02]
    for r in rows:
        assert (r.union, r.similarity, r.naive_bayes) == bounds_study.testable_model_counts(
            2000, 0.15, 0.90, r.eps, 0.05
        )
