"""What the leaderboard verdicts may claim: the lack of fit of the probit line, Taori et al.'s
ImageNet-only baseline, the paired test of a stricter grading, values of another set size, the
three groups of a split by date, and the labels of the pass-rate verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.audit.accuracy_table import table_verdict
from holdout.audit.correctness import contamination_verdict
from holdout.leaderboards import accuracy_table_audit, contamination
from holdout.leaderboards.checks import contamination_checks
from holdout.leaderboards.correctness import check_correctness
from holdout.leaderboards.fits import lack_of_fit, paired_drop_test, probit, probit_fit
from holdout.leaderboards.outputs import contamination_summary, table_summary
from holdout.leaderboards.sources import fits_size, split_off_size, timm_in1k_only


def _table(curved: bool, scatter: float, k: int = 400, seed: int = 0):
    """Accuracies on a probit line (or a curve), with extra scatter beyond test-set sampling (sd, probit)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-0.5, 1.5, k)
    y = 0.9 * x - 0.3 + (0.15 * (x - 0.5) ** 2 if curved else 0) + rng.normal(0, scatter, k)
    n = 10_000
    orig = rng.binomial(n, stats.norm.cdf(x)) / n
    new = rng.binomial(n, stats.norm.cdf(y)) / n
    return [f"m{i}" for i in range(k)], orig, new, n


def test_lack_of_fit_against_an_independent_quadratic_fit():
    _, orig, new, n = _table(curved=True, scatter=0.0)
    x, y = probit(orig, n), probit(new, n)
    lof = lack_of_fit(probit_fit(orig, new, n, n), orig, new, n, n)
    # independent: numpy polyfit residual sums of squares, the nested-model F test
    rss1 = np.polyfit(x, y, 1, full=True)[1][0]
    rss2 = np.polyfit(x, y, 2, full=True)[1][0]
    f = (rss1 - rss2) / (rss2 / (len(x) - 3))
    assert lof.quadratic_f == pytest.approx(f, rel=1e-8)
    assert lof.quadratic_p == pytest.approx(stats.f.sf(f, 1, len(x) - 3), rel=1e-6)


def test_on_the_line_up_to_sampling_noise_the_variance_ratio_is_about_one():
    _, orig, new, n = _table(curved=False, scatter=0.0)
    lof = lack_of_fit(probit_fit(orig, new, n, n), orig, new, n, n)
    assert 0.7 < lof.variance_ratio < 1.4 and lof.quadratic_p > 0.001
    _, orig, new, n = _table(curved=False, scatter=0.1)
    assert lack_of_fit(probit_fit(orig, new, n, n), orig, new, n, n).variance_ratio > 20


def test_table_verdict_says_heuristic_and_when_the_models_are_not_on_one_line():
    names, orig, new, n = _table(curved=False, scatter=0.1)
    text = table_verdict(accuracy_table_audit(names, orig, new, n, n))
    assert "heuristic" in text and "R^2 =" in text and "residual variance" in text
    assert "do not lie on one line" in text
    names, orig, new, n = _table(curved=False, scatter=0.0)
    assert "do not lie on one line" not in table_verdict(accuracy_table_audit(names, orig, new, n, n))


def test_baseline_line_is_fitted_to_its_models_only():
    names, orig, new, n = _table(curved=False, scatter=0.0)
    new = new.copy()
    new[:100] = np.minimum(new[:100] + 0.08, 1)  # a group with extra data sits above the line
    base = np.arange(len(names)) >= 100
    audit = accuracy_table_audit(names, orig, new, n, n, baseline=base)
    assert audit.baseline.slope == pytest.approx(probit_fit(orig[base], new[base], n, n).slope)
    t = audit.models
    assert t["er_baseline_significant"][:100].mean() > 0.9 and t["er_baseline_significant"][100:].mean() < 0.05
    s = table_summary(audit)
    assert s["baseline"]["models"] == 300 and s["baseline"]["effective_robustness"]["significant_above"] >= 90


def test_timm_in1k_only_reads_the_pretrained_tag():
    names = [
        "resnet50.a1_in1k@224",
        "vit_base_patch16_224.augreg2_in21k_ft_in1k@224",
        "convnext_base.fb_in22k_ft_in1k@288",
        "tf_efficientnet_b0.ns_jft_in1k@224",
        "deit_base_distilled_patch16_224.fb_in1k@224",
        "resnext101_32x8d.fb_swsl_ig1b_ft_in1k@224",
        "mobilevit_s.cvnets_in1k@256",
        "convnextv2_tiny.fcmae_ft_in1k@224",
        "vit_base_patch16_clip_224.openai_ft_in1k@224",
        "test_vit.r160_in1k@160",
    ]
    assert timm_in1k_only(names).tolist() == [True, False, False, False, True, False, True, False, False, True]


def test_paired_drop_is_exact_mcnemar_on_the_discordant_items():
    n = 164
    orig, new = np.array([80, 80, 100, 50]) / n, np.array([80, 74, 90, 51]) / n
    b, p_holm, sig = paired_drop_test(orig, new, n)
    assert b.tolist() == [0, 6, 10, 0]
    raw = [stats.binomtest(int(bi), int(bi + ci), 0.5).pvalue if bi + ci else 1.0 for bi, ci in zip(b, [0, 0, 0, 1])]
    holm = np.minimum(1, np.maximum.accumulate(np.sort(raw) * (4 - np.arange(4))))[np.argsort(np.argsort(raw))]
    assert p_holm == pytest.approx(holm)
    assert sig.tolist() == [False, False, True, False]  # 6 drops: 2 * 0.5^6 = 0.031, times 3 after Holm
    # the library's exact McNemar is scipy's two-sided binomial test on the discordant items


def test_a_paired_pair_reports_no_effective_robustness():
    n = 164
    rng = np.random.default_rng(1)
    orig = rng.integers(40, 150, 50) / n
    new = orig - rng.integers(0, 12, 50) / n
    audit = accuracy_table_audit([f"m{i}" for i in range(50)], orig, new, n, n, paired=True)
    s = table_summary(audit)
    assert "not_applicable" in s["effective_robustness"] and s["paired_drop"]["significant"] > 0
    assert "not applicable (paired sets)" in table_verdict(audit) and "McNemar" in table_verdict(audit)


def test_values_of_another_set_size_are_split_off():
    assert fits_size([66.7, 33.3, 33.4, 26.7], 3).tolist() == [True, True, False, False]
    t = pd.DataFrame({"model": ["a", "b", "c"], "x": [100 / 378, 5 / 378, 0.5], "y": [1 / 378, 160 / 399, 0.25]})
    kept, off = split_off_size(t, ["x", "y"], [378, 378])
    assert kept["model"].tolist() == ["a"] and off == ["b", "c"]


def _dated_groups():
    rng = np.random.default_rng(5)
    k, n = 13, 2000
    skill = np.r_[np.linspace(0.2, 0.8, 10), 0.4, 0.6, 0.5]
    item_dates = np.array(["2023-01-01"] * 1000 + ["2023-07-01"] * 1000, dtype="datetime64[D]")
    values = (rng.random((k, n)) < skill[:, None]).astype(float)
    values[10:, :500] = 1.0  # the late models and the one inside the original period saw early items
    dates = ["2022-06-01"] * 10 + ["2023-05-01"] * 2 + ["2023-02-01"]
    return check_correctness(values, [f"m{i}" for i in range(k)], "made"), item_dates, np.array(dates, "datetime64[D]")


def test_a_cut_off_inside_the_original_period_is_excluded_from_line_and_test():
    c, items, models = _dated_groups()
    res = contamination(c, items, models, np.datetime64("2023-04-01"))
    t = res.models
    assert t["role"].tolist() == ["line"] * 10 + ["placed"] * 2 + ["excluded"]
    assert res.fit.n == 10 and np.isnan(t["p"].iloc[-1]) and not t["below_line"].iloc[-1]
    s = contamination_summary(res)
    assert s["excluded_models"] == ["m12"] and s["below_line"] == ["m10", "m11"]
    text = contamination_verdict(s)
    assert "heuristic test" in text and "consistent with contamination" in text and "Warning: 1 model" in text


def test_no_flag_says_what_the_test_could_detect():
    c, items, models = _dated_groups()
    clean = c.values.copy()
    skill = np.array([0.4, 0.6, 0.5])[:, None]  # the early items at the models' own skill: nothing to flag
    clean[10:, :500] = (np.random.default_rng(2).random((3, 500)) < skill).astype(float)
    res = contamination(check_correctness(clean, list(c.model_names), "m"), items, models, np.datetime64("2023-04-01"))
    s = contamination_summary(res)
    assert s["below_line"] == []
    text = contamination_verdict(s)
    assert "no sign" not in text and "flags only drops larger than about" in text
    # the reach: the first Holm step's t quantile times sqrt(max(s^2, v) + s^2 / N), in points, where v
    # is the line models' mean paired item-sampling variance of new - slope x orig (the reference's floor)
    fit, t = res.fit, res.models
    v, old = clean, items < np.datetime64("2023-04-01")
    line = (t["role"] == "line").to_numpy()
    d = v - v[line].mean(axis=0)
    own = 1e4 * (d[:, ~old].var(axis=1) / (~old).sum() + fit.slope**2 * d[:, old].var(axis=1) / old.sum())
    floor = max(fit.residual_std**2, float(own[line].mean()))
    reach = stats.t.ppf(1 - 0.05 / 2, fit.n - 2) * np.sqrt(floor + fit.residual_std**2 / fit.n)
    assert s["detectable_drop"] == pytest.approx(reach)


def test_placebo_splits_see_no_drop_where_no_cut_off_falls():
    """Two late models memorized the early items: the real split flags them; placebo splits inside
    either period (no cut-off there) do not, and the items they did not see show no drop."""
    rng = np.random.default_rng(9)
    k, n = 14, 2400
    skill = np.r_[np.linspace(0.2, 0.8, 12), 0.45, 0.55]
    days = np.datetime64("2023-01-01") + np.sort(rng.integers(0, 360, n)).astype("timedelta64[D]")
    values = (rng.random((k, n)) < skill[:, None]).astype(float)
    split = np.datetime64("2023-07-01")
    values[12:, days < split] = np.maximum(values[12:, days < split], rng.random((2, (days < split).sum())) < 0.5)
    cutoffs = np.array(["2022-06-01"] * 12 + ["2023-07-01"] * 2, dtype="datetime64[D]")
    c = check_correctness(values, [f"m{i}" for i in range(k)], "made")
    groups = {"even": np.arange(n) % 2 == 0, "odd": np.arange(n) % 2 == 1}
    t = contamination_checks(
        c, days, cutoffs, split, placebos=["2023-04-01", "2023-10-01"], item_groups=groups, families={"late": ["m13"]}
    ).set_index("check")
    assert t.loc["main split", "below_line"] == 2
    assert t.loc["placebo split 2023-04-01", "below_line"] == 0 and t.loc["placebo split 2023-10-01", "below_line"] == 0
    assert (
        t.loc["placebo split 2023-10-01", "items_original"] + t.loc["placebo split 2023-10-01", "items_new"]
        == (days >= split).sum()
    )
    assert t.loc["family: late", "placed_models"] == 1
    sensitivity = contamination_checks(c, days, cutoffs, split, line_models=["m0", "m3", "m6", "m9", "m11"])
    assert sensitivity.set_index("check").loc["line: documented cut-offs", "line_models"] == 5


# --- the referee's numbers (review of the leaderboards study, 2026-11-27), recomputed from the mirror ---


def test_timm_lack_of_fit_is_the_referees(shared_data):
    """ImageNetV2: quadratic term F = 254; Sketch / -R / -A: residual variance 121x / 191x / 120x binomial."""
    from holdout.leaderboards.sources import timm_table

    raw = shared_data / "pytorch-image-models/results"
    expected = {"imagenetv2-matched-frequency": (10_000, None), "sketch": (50_889, 121), "imagenet-r": (30_000, 191)}
    for new, (n, ratio) in expected.items():
        t = timm_table({"imagenet": raw / "results-imagenet.csv", new: raw / f"results-{new}.csv"})
        lof = accuracy_table_audit(t["model"], t["imagenet"], t[new], 50_000, n).lack_of_fit
        if ratio is None:
            assert lof.quadratic_f == pytest.approx(254, abs=0.5) and lof.variance_ratio == pytest.approx(
                1.13, abs=0.01
            )
        else:
            assert lof.variance_ratio == pytest.approx(ratio, abs=0.5)


def test_evalplus_mbpp_values_of_mbpp_plus_v01_are_the_referees_eight_models(shared_data):
    from holdout.leaderboards.sources import evalplus_table

    t = evalplus_table(shared_data / "evalplus/results.json", "mbpp", "mbpp+")
    kept, off = split_off_size(t, ["mbpp", "mbpp+"], [378, 378])
    assert len(t) == 89 and len(kept) == 81
    assert off == [
        "DeepSeek-Coder-7B-instruct-v1.5",
        "GPT-3.5-Turbo (Nov 2023)",
        "MistralHermes-CodePro-7B-v1",
        "StarCoder-15B",
        "gemma-1.1-2b-it",
        "speechless-coder-ds-6.7B",
        "speechless-coding-7B-16k-tora",
        "zyte-1B",
    ]


def test_livecodebench_checks_are_the_referees(shared_data):
    """LeetCode only: mean residual -21.1 pp, 11 of 13 below; AtCoder -1.1 pp, none; placebo splits in the
    original period -3.9 to -6.0 pp on average, in the new one -2.5 to -3.0."""
    from holdout.leaderboards.sources import livecodebench

    lcb = livecodebench(shared_data / "livecodebench/src/mocks/performances_generation.json")
    groups = {name: lcb.item_platforms == name for name in ("leetcode", "atcoder")}
    placebos = ["2023-07-01", "2023-07-15", "2023-11-01", "2023-12-01"]
    t = contamination_checks(
        lcb.correctness,
        lcb.item_dates,
        lcb.model_dates,
        np.datetime64("2023-08-30"),
        placebos=placebos,
        item_groups=groups,
    ).set_index("check")
    assert t.loc["main split", "below_line"] == 13 and t.loc["main split", "line_models"] == 32
    assert t.loc["items: leetcode", "below_line"] == 11 and t.loc["items: leetcode", "mean_residual"] == pytest.approx(
        -21.1, abs=0.05
    )
    assert t.loc["items: atcoder", "below_line"] == 0 and t.loc["items: atcoder", "mean_residual"] == pytest.approx(
        -1.1, abs=0.05
    )
    assert t.loc["placebo split 2023-07-01", "mean_residual"] == pytest.approx(-3.9, abs=0.05)
    assert t.loc["placebo split 2023-07-15", "mean_residual"] == pytest.approx(-6.0, abs=0.05)
    assert t.loc["placebo split 2023-11-01", "mean_residual"] == pytest.approx(-2.5, abs=0.05)
    assert t.loc["placebo split 2023-12-01", "mean_residual"] == pytest.approx(-3.0, abs=0.05)


def test_benjamini_hochberg_count_by_hand():
    from holdout.leaderboards.outputs import benjamini_hochberg_count

    p = np.array([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205])
    # step-up: the largest i with p_(i) <= i alpha / m; at alpha 0.05, m = 8: 0.042 > 5 * 0.05 / 8 = 0.03125,
    # 0.041 > 0.025, 0.039 > 0.01875, 0.008 <= 0.0125: two rejections
    assert benjamini_hochberg_count(p, 0.05) == 2
    assert benjamini_hochberg_count(p, 0.4) == 8


def test_cluster_bootstrap_slope_se_is_the_sd_of_refits_on_resampled_clusters():
    from holdout.leaderboards.fits import cluster_bootstrap_slope_se

    rng = np.random.default_rng(4)
    clusters = np.repeat(np.arange(30), 4)  # 30 architectures, 4 rows each sharing a cluster effect
    x = np.repeat(rng.normal(0, 1, 30), 4) + rng.normal(0, 0.1, 120)
    y = 0.9 * x + np.repeat(rng.normal(0, 0.3, 30), 4) + rng.normal(0, 0.05, 120)
    got = cluster_bootstrap_slope_se(x, y, clusters, reps=200, seed=1)
    # brute force: the same cluster draws, each resample written out row by row and refitted
    counts = np.random.default_rng(1).multinomial(30, np.full(30, 1 / 30), size=200)
    _, label = np.unique(clusters.astype(str), return_inverse=True)  # the function's order of the clusters
    slopes = [np.polyfit(np.repeat(x, c[label]), np.repeat(y, c[label]), 1)[0] for c in counts]
    assert got == pytest.approx(np.std(slopes, ddof=1), rel=1e-9)
    # rows are not independent: the cluster bootstrap is wider than the iid standard error
    iid = stats.linregress(x, y).stderr
    assert got > 1.5 * iid
