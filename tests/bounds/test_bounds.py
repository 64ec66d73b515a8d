"""Tests of holdout.bounds against Mania et al. (2019) and against brute force."""

from __future__ import annotations

import itertools
import math

import golden
import numpy as np
import pytest
from scipy.stats import binom

from holdout.bounds import core as B

# The ImageNet setting of Mania et al. Sec. 5.1: n = 50,000, mean accuracy 75.6%, eta = 0.85.
IMAGENET = dict(n=50_000, error=0.244, eps=0.01, delta=0.05)
ETA_IMAGENET = 0.85


@pytest.fixture(scope="module")
def imagenet_ks() -> dict[str, int]:
    """The three k's at the ImageNet setting (computed once for the module)."""
    return {
        "union": B.union_bound_k(**IMAGENET),
        "sb": B.similarity_bound_k(similarity=ETA_IMAGENET, **IMAGENET),
        "sb_partition": B.similarity_bound_k(similarity=ETA_IMAGENET, form="partition", **IMAGENET),
        "nbb": B.naive_bayes_bound_k(similarity=ETA_IMAGENET, **IMAGENET),
    }


# ---------------------------------------------------------------------------
# Paper numbers
# ---------------------------------------------------------------------------


def test_union_bound_k_mania_sec51_imagenet_257397(imagenet_ks):
    """Mania et al. Sec. 5.1 (Fig. 1b): the union bound (2) allows k = 257,397 models."""
    assert imagenet_ks["union"] == 257_397


def test_union_bound_tail_convention_is_the_one_that_gives_257397():
    """The other tail conventions miss the paper's 257,397 (documented in the docstring)."""
    n, mu, eps, delta = 50_000, 0.244, 0.01, 0.05
    right_ge = binom.sf(12_699, n, mu)  # X >= 12,700 = n(mu + eps)
    right_gt = binom.sf(12_700, n, mu)  # X > n(mu + eps)
    left_lt = binom.cdf(11_699, n, mu)  # X < 11,700 = n(mu - eps)
    left_le = binom.cdf(11_700, n, mu)  # X <= n(mu - eps)
    assert math.floor(delta / (right_ge + left_lt)) == 257_397
    assert math.floor(delta / (right_ge + left_le)) == golden.UNION_K_TAILS_GE_LE
    assert math.floor(delta / (right_gt + left_lt)) == golden.UNION_K_TAILS_GT_LT
    assert B.deviation_thresholds(n=n, error=mu, eps=eps) == (12_700, 11_699)


def test_union_bound_k_is_exact_largest():
    for n, mu, eps in [(50_000, 0.244, 0.01), (10_000, 0.032, 0.01), (1_000, 0.3, 0.05)]:
        k = B.union_bound_k(n=n, error=mu, eps=eps, delta=0.05)
        assert B.union_bound_probability(n=n, error=mu, eps=eps, k=k) <= 0.05
        assert B.union_bound_probability(n=n, error=mu, eps=eps, k=k + 1) > 0.05


def test_similarity_bound_about_4x_union_mania_sec51_fig1b(imagenet_ks):
    """Mania et al. Sec. 1.1 / Fig. 1b: the similarity bound gives "a 4x improvement" at eta = 0.85."""
    gain = imagenet_ks["sb"] / imagenet_ks["union"]
    assert 3.9 < gain < 4.5
    assert imagenet_ks["sb"] == golden.SB_K_IMAGENET_LITERAL


def test_similarity_bound_partition_form_is_slightly_sharper(imagenet_ks):
    assert imagenet_ks["sb"] < imagenet_ks["sb_partition"] < 1.05 * imagenet_ks["sb"]
    assert imagenet_ks["sb_partition"] == golden.SB_K_IMAGENET_PARTITION


def test_naive_bayes_bound_about_1e8_mania_fig2_imagenet(imagenet_ks):
    """Mania et al. Sec. 5.1 / Fig. 2: under Assumption A1 "we can evaluate 10^8 models"."""
    assert 1e8 <= imagenet_ks["nbb"] < 3e8
    assert imagenet_ks["nbb"] == golden.NBB_K_IMAGENET


@pytest.mark.parametrize(
    "name,accuracy,similarity,sb_paper,nbb_paper",
    [
        ("20 Random", 0.968, 0.975, 9.9, 1.6e4),
        ("20 Highest Scoring", 0.969, 0.976, 12.0, 3.4e4),
    ],
)
def test_mania_table1_nas_gains(name, accuracy, similarity, sb_paper, nbb_paper):
    """Mania et al. Table 1 (CIFAR-10, n = 10,000): SB 9.9x / NBB 1.6e4x and 12.0x / 3.4e4x.

    The printed inputs are rounded (96.8%, 97.5%, ...); with them the exact gains are
    ~9.6x / 1.5e4x and ~11.8x / 3.2e4x, i.e. within the rounding of the inputs of the
    paper's values (a 0.05% change in accuracy moves these gains by several percent).
    """
    kw = dict(n=10_000, error=1.0 - accuracy, eps=0.01, delta=0.05)
    union = B.union_bound_k(**kw)
    sb = B.similarity_bound_k(similarity=similarity, **kw) / union
    nbb = B.naive_bayes_bound_k(similarity=similarity, **kw) / union
    sb_exact, nbb_exact = golden.TABLE1_GAINS_AT_PRINTED_INPUTS[name]
    assert f"{sb:.1f}" == f"{sb_exact:.1f}"
    assert f"{nbb:.1e}" == f"{nbb_exact:.1e}"
    assert sb == pytest.approx(sb_paper, rel=0.05)
    assert nbb == pytest.approx(nbb_paper, rel=0.1)


def test_similarity_and_naive_bayes_k_are_exact_largest(imagenet_ks):
    """The binary searches return the largest k whose bound is <= delta (ImageNet setting)."""
    kw = dict(n=50_000, error=0.244, eps=0.01, similarity=ETA_IMAGENET)
    k = imagenet_ks["sb"]
    assert B.similarity_bound_probability(k=k, **kw) <= 0.05
    assert B.similarity_bound_probability(k=k + 1, **kw) > 0.05
    k = imagenet_ks["nbb"]
    assert B.naive_bayes_probability(k=k, **kw) <= 0.05
    assert B.naive_bayes_probability(k=k + 1, **kw) > 0.05


# ---------------------------------------------------------------------------
# Probability (8) against brute force
# ---------------------------------------------------------------------------


def _brute_pair(n, p1, p2, eta, upper2, lower1):
    """P(S_2 <= upper2, S_1 >= lower1) by summing the joint multinomial of the four cells."""
    p11, p10, p01, p00 = B.joint_distribution(p1, p2, eta)
    total = 0.0
    for n11 in range(n + 1):
        for n10 in range(n + 1 - n11):
            for n01 in range(n + 1 - n11 - n10):
                n00 = n - n11 - n10 - n01
                if n11 + n01 <= upper2 and n11 + n10 >= lower1:
                    coef = math.factorial(n) / (
                        math.factorial(n11) * math.factorial(n10) * math.factorial(n01) * math.factorial(n00)
                    )
                    total += coef * p11**n11 * p10**n10 * p01**n01 * p00**n00
    return total


@pytest.mark.parametrize(
    "n,p1,p2,eta,alpha_1,alpha_2",
    [
        (12, 0.3, 0.3, 0.8, 0.1, 0.05),
        (15, 0.25, 0.4, 0.75, 0.05, -0.05),
        (10, 0.5, 0.45, 0.9, -0.1, 0.1),
        (14, 0.2, 0.2, 0.68, 0.0, 0.0),  # at independence (eta = 0.68)
        (9, 0.3, 0.3, 0.98, 0.2, -0.1),
        (11, 0.4, 0.35, 0.95, 0.3, 0.3),
    ],
)
def test_pair_tail_probability_matches_joint_multinomial(n, p1, p2, eta, alpha_1, alpha_2):
    """Eq. (8) via the coupling (13)-(14) equals the brute-force sum over the joint multinomial."""
    got = B.pair_tail_probability(n=n, error_1=p1, error_2=p2, similarity=eta, alpha_1=alpha_1, alpha_2=alpha_2)
    upper2 = math.floor(round(n * (p2 + alpha_2), 9))
    lower1 = math.ceil(round(n * (p1 + alpha_1), 9))
    assert got == pytest.approx(_brute_pair(n, p1, p2, eta, upper2, lower1), rel=1e-10, abs=1e-300)


def test_pair_tail_probability_integer_threshold_convention():
    """n(p + alpha) landing a hair off an integer is taken as that integer (floor/ceil of (13))."""
    # 10 * (0.1 + 0.2) = 3.0000000000000004 in floating point: ceil must give 3, not 4.
    assert 10 * (0.1 + 0.2) != 3.0
    got = B.pair_tail_probability(n=10, error_1=0.1, error_2=0.1, similarity=0.9, alpha_1=0.2, alpha_2=0.9)
    assert got == pytest.approx(_brute_pair(10, 0.1, 0.1, 0.9, 10, 3), rel=1e-10)
    assert got == pytest.approx(binom.sf(2, 10, 0.1), rel=1e-10)  # S_2 <= 10 always holds


def test_pair_tail_probability_at_n_50000():
    """A tiny tail at the ImageNet size (its speed: benchmarks/bench_bounds.py)."""
    p = B.pair_tail_probability(n=50_000, error_1=0.244, error_2=0.244, similarity=0.85, alpha_1=0.01, alpha_2=0.005)
    assert 0 < p < 1e-6


def test_naive_bayes_probability_k2_matches_joint_multinomial():
    """For k = 2 the exact naive-Bayes probability is P(model 1 or model 2 deviates): brute force."""
    n, mu, eta, eps = 12, 0.3, 0.8, 0.1
    upper, lower = B.deviation_thresholds(n=n, error=mu, eps=eps)
    p11, p10, p01, p00 = B.joint_distribution(mu, mu, eta)
    inside = 0.0
    for n11, n10, n01 in itertools.product(range(n + 1), repeat=3):
        n00 = n - n11 - n10 - n01
        if n00 < 0:
            continue
        s1, s2 = n11 + n10, n11 + n01
        if lower < s1 < upper and lower < s2 < upper:
            coef = math.factorial(n) / (
                math.factorial(n11) * math.factorial(n10) * math.factorial(n01) * math.factorial(n00)
            )
            inside += coef * p11**n11 * p10**n10 * p01**n01 * p00**n00
    got = B.naive_bayes_probability(n=n, error=mu, similarity=eta, eps=eps, k=2)
    assert got == pytest.approx(1.0 - inside, rel=1e-10)


def test_similarity_bound_probability_matches_explicit_search_over_t():
    """(3) with (8), built by hand from pair_tail_probability over every t, equals the library."""
    n, mu, eta, eps, k = 40, 0.3, 0.85, 0.1, 7
    upper, lower = B.deviation_thresholds(n=n, error=mu, eps=eps)
    best_right = min(
        binom.sf(a - 1, n, mu)
        + (k - 1)
        * B.pair_tail_probability(
            n=n, error_1=mu, error_2=mu, similarity=eta, alpha_1=upper / n - mu, alpha_2=a / n - mu
        )
        for a in range(0, upper + 1)
    )
    best_left = min(
        binom.cdf(b, n, mu)
        + (k - 1)
        * B.pair_tail_probability(
            n=n, error_1=mu, error_2=mu, similarity=eta, alpha_1=b / n - mu, alpha_2=lower / n - mu
        )
        for b in range(lower, n + 1)
    )
    got = B.similarity_bound_probability(n=n, error=mu, similarity=eta, eps=eps, k=k)
    assert got == pytest.approx(best_right + best_left, rel=1e-10)


@pytest.mark.parametrize("k", [1, 2, 10, 1000])
def test_bounds_are_ordered_exact_nbb_below_sb_below_union(k):
    """A naive-Bayes family has the given pairwise similarity, so its exact overfitting
    probability is below the similarity bound, itself below the union bound (t = 0)."""
    kw = dict(n=400, error=0.3, eps=0.05)
    nbb = B.naive_bayes_probability(similarity=0.8, k=k, **kw)
    part = B.similarity_bound_probability(similarity=0.8, k=k, form="partition", **kw)
    lit = B.similarity_bound_probability(similarity=0.8, k=k, **kw)
    union = B.union_bound_probability(k=k, **kw)
    assert nbb <= part * (1 + 1e-12)
    assert part <= lit * (1 + 1e-12)
    assert lit <= union * (1 + 1e-12)


def test_naive_bayes_no_overflow_for_huge_k():
    """log-space evaluation: no overflow or cancellation for k up to 1e20 (and beyond)."""
    kw = dict(n=50_000, error=0.244, similarity=0.85, eps=0.01)
    p_small = B.naive_bayes_probability(k=1, **kw)
    p_huge = B.naive_bayes_probability(k=10**20, **kw)
    assert 0 < p_small < p_huge <= 1.0
    # k = 1: exactly the single-model deviation probability.
    right, left = binom.sf(12_699, 50_000, 0.244), binom.cdf(11_699, 50_000, 0.244)
    assert p_small == pytest.approx(right + left, rel=1e-9)
    k = B.naive_bayes_bound_k(n=50_000, error=0.244, similarity=0.85, eps=0.02, delta=0.05)
    assert k > 10**20


# ---------------------------------------------------------------------------
# Monotonicity and limits
# ---------------------------------------------------------------------------


def test_more_similar_means_more_models():
    kw = dict(n=10_000, error=0.2, eps=0.02, delta=0.05)
    etas = [0.7, 0.8, 0.9, 0.95]
    sb = [B.similarity_bound_k(similarity=e, **kw) for e in etas]
    nbb = [B.naive_bayes_bound_k(similarity=e, **kw) for e in etas]
    assert all(x < y for x, y in zip(sb, sb[1:]))
    assert all(x < y for x, y in zip(nbb, nbb[1:]))


def test_larger_n_means_more_models():
    for n_small, n_large in [(5_000, 10_000), (10_000, 20_000)]:
        for fn in (B.similarity_bound_k, B.naive_bayes_bound_k):
            small = fn(n=n_small, error=0.2, similarity=0.85, eps=0.02, delta=0.05)
            large = fn(n=n_large, error=0.2, similarity=0.85, eps=0.02, delta=0.05)
            assert small < large
        assert B.union_bound_k(n=n_small, error=0.2, eps=0.02, delta=0.05) < B.union_bound_k(
            n=n_large, error=0.2, eps=0.02, delta=0.05
        )


def test_independent_limit_gains_go_to_one():
    """Mania et al. Sec. 5.1 / Fig. 2: as models become independent the gains tend to 1.

    At eta = mu^2 + (1 - mu)^2 the coupling has P(W = 1) = 1: the similarity bound equals
    the union bound, and the naive-Bayes probability is exactly 1 - (1 - p)^k.
    """
    kw = dict(n=10_000, error=0.244, eps=0.02, delta=0.05)
    eta0 = B.independent_similarity(0.244)
    union = B.union_bound_k(**kw)
    assert B.similarity_bound_k(similarity=eta0, **kw) == union
    right, left = binom.sf(2_639, 10_000, 0.244), binom.cdf(2_239, 10_000, 0.244)
    assert B.deviation_thresholds(n=10_000, error=0.244, eps=0.02) == (2_640, 2_239)
    p = right + left
    expected = math.floor(math.log1p(-0.05) / math.log1p(-p))
    assert B.naive_bayes_bound_k(similarity=eta0, **kw) == pytest.approx(expected, rel=1e-9)
    # Slightly above independence the gains are close to 1 and grow with eta.
    g1 = B.naive_bayes_bound_k(similarity=eta0 + 0.005, **kw) / union
    g2 = B.naive_bayes_bound_k(similarity=eta0 + 0.02, **kw) / union
    assert 1.0 < g1 < g2
    assert B.similarity_bound_k(similarity=eta0 + 0.005, **kw) / union < 1.1


def test_coupling_matches_joint_law():
    c = B.pair_coupling(0.244, 0.3, 0.8)
    p11, p10, p01, p00 = B.joint_distribution(0.244, 0.3, 0.8)
    assert c.p_w * c.p_x1 * c.p_x2 == pytest.approx(p11)
    assert c.p_w * c.p_x1 == pytest.approx(0.244)
    assert c.p_w * c.p_x2 == pytest.approx(0.3)
    assert c.p_x1 == pytest.approx(p11 / (p01 + p11))  # App. B: P(X_1 = 1) = p11 / (p01 + p11)
    assert c.p_w == pytest.approx((p10 + p11) * (p01 + p11) / p11)
    assert p11 + p10 + p01 + p00 == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Theorem 2 and Corollary 4
# ---------------------------------------------------------------------------


def test_theorem2_rhs_of_4_closed_form():
    n, k, N, eta, eps = 50_000, 1000, 10, 0.85, 0.02
    expected = 2 * N * math.exp(-n * eps**2 / 2) + 2 * k * math.exp(-n * eps / 4 * math.log(1 + eps / (4 * (1 - eta))))
    assert B.theorem2_probability(n, k, N, eta, eps) == pytest.approx(expected, rel=1e-14)
    assert B.similarity_cover_bound(n, k, N, eta, eps) == pytest.approx(min(1.0, expected))
    # eta = 1: the second term vanishes.
    assert B.theorem2_probability(n, k, N, 1.0, eps) == pytest.approx(2 * N * math.exp(-n * eps**2 / 2))


def test_theorem2_eps_5_gives_probability_at_most_delta():
    n, k, N, delta = 50_000, 10**6, 100, 0.05
    eta_max = B.theorem2_max_similarity(n, k, N, delta)
    assert eta_max == pytest.approx(
        1 - max(2 * math.log(4 * k / delta) / n, math.sqrt(math.log(4 * N / delta) / (2 * n)))
    )
    for eta in (0.5, 0.85, eta_max):
        eps = B.theorem2_eps(n, k, N, eta, delta)
        assert eps == pytest.approx(
            max(math.sqrt(2 * math.log(4 * N / delta) / n), math.sqrt(32 * (1 - eta) * math.log(4 * k / delta) / n))
        )
        assert B.theorem2_probability(n, k, N, eta, eps) <= delta


def test_theorem2_eps_6_printed_value_misses_factor_2():
    """(6) as printed, sqrt(log((2N+1)/delta)/n), leaves (4) above delta; the corrected
    sqrt(2 log((2N+1)/delta)/n) (what the proof of Theorem 2 gives) makes (4) <= delta."""
    n, k, N, delta = 50_000, 1000, 10, 0.05
    eta_min = B.theorem2_min_similarity_high(n, k, N, delta)
    eps = B.theorem2_eps_high_similarity(n, k, N, eta_min, delta)
    assert eps == pytest.approx(math.sqrt(2 * math.log((2 * N + 1) / delta) / n))
    assert B.theorem2_probability(n, k, N, eta_min, eps) <= delta * (1 + 1e-9)
    eta_min_p = B.theorem2_min_similarity_high(n, k, N, delta, as_printed=True)
    eps_p = B.theorem2_eps_high_similarity(n, k, N, eta_min_p, delta, as_printed=True)
    assert eps_p == pytest.approx(math.sqrt(math.log((2 * N + 1) / delta) / n))
    assert eta_min_p == pytest.approx(
        1 - eps_p / (4 * (math.exp(2 * eps_p) * (2 * k) ** (4 / (n * eps_p)) - 1)), rel=1e-12
    )
    assert B.theorem2_probability(n, k, N, eta_min_p, eps_p) > delta


def test_similarity_cover_eps_is_valid_and_no_worse_than_5():
    n, k, N, delta = 50_000, 10**6, 100, 0.05
    eps = B.similarity_cover_eps(n, k, N, 0.85, delta)
    assert eps <= B.theorem2_eps(n, k, N, 0.85, delta)
    assert B.theorem2_probability(n, k, N, 0.85, eps) <= delta * (1 + 1e-9)


def test_corollary4_closed_form_and_consistency():
    """Corollary 4: eps = sqrt(4 (k^(1-a) log(n+1) + log(2/delta)) / n), eta = 1 - eps/(4(e^(eps k^a) - 1));
    with |F| = (n+1)^(k-1) queries and N_eta = (n+1)^(k^(1-a)), bound (4) is at most delta."""
    n, k, alpha, delta = 1000, 3, 0.5, 0.05
    c = B.corollary4(n, k, alpha, delta)
    eps = math.sqrt(4 * (k ** (1 - alpha) * math.log(n + 1) + math.log(2 / delta)) / n)
    assert c.eps == pytest.approx(eps)
    assert B.corollary4_eps(n, k, alpha, delta) == pytest.approx(eps)
    assert c.similarity == pytest.approx(1 - eps / (4 * (math.exp(eps * k**alpha) - 1)))
    assert math.log1p(eps / (4 * (1 - c.similarity))) == pytest.approx(eps * k**alpha)
    F = (n + 1) ** (k - 1)
    N = math.exp(c.log_max_cover)
    assert B.theorem2_probability(n, F, N, c.similarity, c.eps) <= delta
    # alpha = 0: the standard sqrt(k/n) rate.
    assert B.corollary4_eps(n, k, 0.0, delta) == pytest.approx(
        math.sqrt(4 * (k * math.log(n + 1) + math.log(2 / delta)) / n)
    )


# ---------------------------------------------------------------------------
# Error messages
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: B.union_bound_k(n=0, error=0.2, eps=0.01, delta=0.05), "n \\(test-set size\\)"),
        (lambda: B.union_bound_k(n=10.5, error=0.2, eps=0.01, delta=0.05), "positive integer"),
        (lambda: B.union_bound_k(n=100, error=1.2, eps=0.01, delta=0.05), "error must lie"),
        (lambda: B.union_bound_k(n=100, error=0.2, eps=0.0, delta=0.05), "eps must lie"),
        (lambda: B.union_bound_k(n=100, error=0.2, eps=0.01, delta=1.5), "delta must lie"),
        (lambda: B.union_bound_probability(n=100, error=0.2, eps=0.01, k=0), "k \\(number of models\\)"),
        (
            lambda: B.pair_tail_probability(n=10, error_1=0.1, error_2=0.5, similarity=0.9, alpha_1=0, alpha_2=0),
            "no joint distribution",
        ),
        (
            lambda: B.pair_tail_probability(n=10, error_1=0.3, error_2=0.3, similarity=0.55, alpha_1=0, alpha_2=0),
            "needs p11 >= p1 p2",
        ),
        (
            lambda: B.pair_tail_probability(
                n=10, error_1=0.3, error_2=0.3, similarity=0.8, alpha_1=math.nan, alpha_2=0
            ),
            "alpha_1 must be a finite",
        ),
        (lambda: B.joint_distribution(0.3, 0.3, 1.5), "similarity must lie"),
        (
            lambda: B.similarity_bound_k(n=100, error=0.2, similarity=1.0, eps=0.05, delta=0.05),
            "identical models",
        ),
        (
            lambda: B.similarity_bound_k(n=100, error=0.2, similarity=0.65, eps=0.05, delta=0.05),
            "similarity >= ",
        ),
        (
            lambda: B.similarity_bound_k(n=100, error=0.2, similarity=0.9, eps=0.05, delta=0.05, form="exact"),
            "form must be 'literal' or 'partition'",
        ),
        (
            lambda: B.naive_bayes_bound_k(n=100, error=0.2, similarity=1.0, eps=0.05, delta=0.05),
            "identical models",
        ),
        (lambda: B.theorem2_eps(50_000, 10**6, 100, 0.9999, 0.05), "needs similarity <="),
        (lambda: B.theorem2_eps_high_similarity(50_000, 1000, 10, 0.5, 0.05), "needs similarity >="),
        (lambda: B.theorem2_probability(50_000, 10, 0.5, 0.9, 0.01), "cover_size"),
        (lambda: B.corollary4(1000, 3, 1.5, 0.05), "alpha must lie"),
    ],
)
def test_error_messages(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_no_models_when_a_single_model_already_fails():
    """k = 0 when even one model deviates with probability above delta."""
    assert B.union_bound_k(n=100, error=0.3, eps=0.01, delta=0.05) == 0
    assert B.similarity_bound_k(n=100, error=0.3, similarity=0.9, eps=0.01, delta=0.05) == 0
    assert B.naive_bayes_bound_k(n=100, error=0.3, similarity=0.9, eps=0.01, delta=0.05) == 0


def test_union_bound_probability_is_finite_at_imagenet():
    """(Its speed and that of union_bound_k: benchmarks/bench_bounds.py.)"""
    kw = {key: value for key, value in IMAGENET.items() if key != "delta"}
    assert np.isfinite(B.union_bound_probability(k=1, **kw))


def _exact_log_pmf(k: int, n: int, p: float) -> float:
    """log P(Bin(n, p) = k) to ~40 digits (decimal arithmetic on the exact binomial coefficient)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        dp = Decimal(p)
        val = Decimal(math.comb(n, k)).ln() + k * dp.ln() + (n - k) * (1 - dp).ln()
        return float(val)


def test_binomial_log_pmf_is_accurate_at_n_50000():
    """The point masses behind (14) are accurate to ~1e-15 relative even at n = 50,000
    (log-gamma differences would lose ~5 digits there)."""
    from holdout.bounds.core import _log_binom_pmf, _log_pmf_grid

    j = np.array([1.0, 7.0, 30.0, 17_615.0, 50_000.0])
    cols = np.array([0.0, 1.0, 6.0, 29.0, 12_200.0, 12_700.0, 17_615.0])
    for p in (0.244, 0.6926):
        grid = _log_pmf_grid(j, p, cols)
        flat = np.array([_log_binom_pmf(cols, n, p) for n in j])
        for r, n in enumerate(j.astype(int)):
            for c, k in enumerate(cols.astype(int)):
                if k > n:
                    assert grid[r, c] == -np.inf and flat[r, c] == -np.inf
                    continue
                exact = _exact_log_pmf(k, n, p)
                tol = 1e-14 * max(1.0, abs(exact))
                assert abs(grid[r, c] - exact) <= tol, (n, k, p)
                assert abs(flat[r, c] - exact) <= tol, (n, k, p)
