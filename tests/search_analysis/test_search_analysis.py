"""holdout.search_analysis on generated checkpoints of a search (hand cases and invariants)."""

from __future__ import annotations

import numpy as np
import pytest

from holdout.bounds.study import table1 as bounds_table1
from holdout.predictions import Predictions
from holdout.search_analysis import (
    checkpoint_table,
    eta_grid,
    figure3,
    filter_by_accuracy,
    recht_comparison,
    search_figure3,
    search_recht,
    search_table1,
    split_checkpoint_name,
    table1_gains,
    table1_rows,
)
from holdout.search_analysis.checkpoints import final_checkpoints
from holdout.search_analysis.table1 import table1_subsets
from holdout.similarity.core import (
    greedy_similarity_cover,
    is_similarity_cover,
    pairwise_similarity,
)

ETAS = np.linspace(0.5, 1.0, 11)


def _hand() -> Predictions:
    """4 checkpoints on 10 points: accuracies 0.9, 0.8, 0.5, 0.4."""
    labels = np.zeros(10, dtype=int)
    wrong = {"a@e001": [0], "a@e002": [0, 1], "b@e001": [0, 1, 2, 3, 4], "b@e010": [5, 6, 7, 8, 9, 0]}
    preds = []
    for rows in wrong.values():
        p = np.zeros(10, dtype=int)
        p[rows] = 1
        preds.append(p)
    return Predictions.create(np.array(preds), labels, list(wrong), num_classes=2, test_set="hand")


def test_split_checkpoint_name():
    assert split_checkpoint_name("m007@e012") == ("m007", 12)
    assert split_checkpoint_name("a@b@e3") == ("a@b", 3)
    for bad in ("m007", "m007@12", "m007@e", "@e1x"):
        with pytest.raises(ValueError, match="<model>@e<epoch>"):
            split_checkpoint_name(bad)


def test_checkpoint_table_and_filter_hand_case():
    p = _hand()
    t = checkpoint_table(p)
    assert t["model"].tolist() == ["a", "a", "b", "b"] and t["epoch"].tolist() == [1, 2, 1, 10]
    np.testing.assert_allclose(t["accuracy"], [0.9, 0.8, 0.5, 0.4])
    # the paper's filter: accuracy >= 50% keeps the checkpoint at exactly 50%
    assert filter_by_accuracy(p, 0.5).model_names == ("a@e001", "a@e002", "b@e001")
    assert filter_by_accuracy(p, 0.85).model_names == ("a@e001",)
    with pytest.raises(ValueError, match="min_accuracy"):
        filter_by_accuracy(p, 1.5)


def test_final_checkpoints_take_the_highest_epoch_not_the_last_listed():
    assert final_checkpoints(["b@e010", "a@e002", "b@e002", "a@e001"]) == ["b@e010", "a@e002"]


def test_figure3_hand_case():
    f = figure3(_hand(), 0.5, ETAS)
    s = f.summary
    assert (s["num_checkpoints"], s["num_kept"], s["num_models"], s["num_pairs"]) == (4, 3, 2, 3)
    assert s["best_accuracy"] == pytest.approx(0.9)
    # a@e001 vs a@e002 disagree on point 1 only; a@e001 vs b@e001 on 1..4; a@e002 vs b@e001 on 2..4
    np.testing.assert_allclose(f.pairs["similarity"], [0.9, 0.6, 0.7])
    # independent errors: mu_i mu_j + (1 - mu_i)(1 - mu_j)
    np.testing.assert_allclose(
        f.pairs["independent_similarity"], [0.1 * 0.2 + 0.9 * 0.8, 0.1 * 0.5 + 0.9 * 0.5, 0.2 * 0.5 + 0.8 * 0.5]
    )
    assert f.pairs["checkpoint_i"].tolist() == ["a@e001", "a@e001", "a@e002"]
    assert s["mean_similarity"] == pytest.approx(np.mean([0.9, 0.6, 0.7]))
    # Definition 1 by hand: the most accurate checkpoint is everybody's q' and the least accurate
    # everybody's q'' while their similarity 0.6 reaches eta (2); at eta = 0.7, a@e002 links them (2);
    # at eta = 0.8 only a@e001 ~ a@e002 remain similar and each checkpoint needs itself (3)
    cov = figure3(_hand(), 0.5, [0.5, 0.6, 0.7, 0.8, 1.0]).covering
    assert cov["covering_number_upper_bound"].tolist() == [2, 2, 2, 3, 3]
    assert (cov["num_checkpoints"] == 3).all()


def test_figure3_on_generated_search(search_predictions):
    p = search_predictions("cifar10_test")
    f = figure3(p, 0.5, ETAS)
    s = f.summary
    acc = p.accuracies()
    assert s["num_kept"] == int((acc >= 0.5).sum()) and 2 <= s["num_kept"] < s["num_checkpoints"] == 24
    assert len(f.pairs) == s["num_kept"] * (s["num_kept"] - 1) // 2
    assert (f.pairs[["accuracy_i", "accuracy_j"]] >= 0.5).all().all()
    # shared hard examples: the checkpoints are more similar than independent errors would be
    assert s["mean_similarity"] > s["mean_independent_similarity"]
    assert s["fraction_pairs_above_independent"] > 0.9
    cov = f.covering["covering_number_upper_bound"].to_numpy()
    assert cov[-1] <= s["num_kept"] and cov[0] >= 1
    # each bound is the size of a real eta-cover of the kept checkpoints
    kept = filter_by_accuracy(p, 0.5)
    sim, mu = pairwise_similarity(kept.errors()), kept.errors().mean(axis=1)
    for eta in (0.7, 0.9):
        cover = greedy_similarity_cover(sim, mu, eta)
        assert is_similarity_cover(cover, sim, mu, eta)


def test_figure3_needs_two_checkpoints_above_the_threshold():
    with pytest.raises(ValueError, match="1 of 4 checkpoints reach accuracy >= 0.85"):
        figure3(_hand(), 0.85, ETAS)


def test_table1_subsets_and_rows(search_predictions):
    assert [s["name"] for s in table1_subsets(40)] == ["all 40", "20 random", "20 highest scoring"]
    assert [s["name"] for s in table1_subsets(7)] == ["all 7", "7 random", "7 highest scoring"]
    with pytest.raises(ValueError, match="at least 2"):
        table1_subsets(1)
    p = filter_by_accuracy(search_predictions("cifar10_test", num_models=8), 0.5)
    rows = table1_rows(p, table1_subsets(p.num_models, n_random=5, n_top=5, seed=3))
    assert [r["num_models"] for r in rows] == [p.num_models, 5, 5]
    acc = dict(zip(p.model_names, p.accuracies()))
    top = rows[2]["models"].split()
    assert min(acc[m] for m in top) >= sorted(acc.values())[-5]
    assert rows[2]["mean_accuracy"] == pytest.approx(np.mean(sorted(acc.values())[-5:]))
    assert rows[2]["mean_accuracy"] >= rows[0]["mean_accuracy"]
    assert all(r["n"] == 500 for r in rows)
    assert table1_rows(p, table1_subsets(p.num_models), n=10000)[0]["n"] == 10000
    # hand case: all three kept checkpoints, mean similarity of the 3 pairs
    hand = table1_rows(filter_by_accuracy(_hand(), 0.5), table1_subsets(3))
    assert hand[0]["mean_similarity"] == pytest.approx(np.mean([0.9, 0.6, 0.7]))
    assert hand[0]["mean_accuracy"] == pytest.approx(np.mean([0.9, 0.8, 0.5]))


def test_table1_rows_feed_the_bounds_table(search_predictions):
    """The rows go through holdout.bounds.study.table1 unchanged: SB and NBB gains over the union bound
    are >= 1 (similar models are never worse than the union bound) and grow with similarity."""
    p = filter_by_accuracy(search_predictions("cifar10_test", n=2000), 0.5)
    rows = table1_rows(p, table1_subsets(p.num_models), n=10000)
    t = bounds_table1(rows, eps=0.02, delta=0.05)
    assert t["name"].tolist() == [r["name"] for r in rows]
    assert (t["union_k"] > 0).all()
    assert (t["sb_gain"] >= 1).all() and (t["nbb_gain"] >= t["sb_gain"]).all()


def test_recht_comparison(search_predictions):
    orig = search_predictions("cifar10_test", seed=0)
    new = search_predictions("cifar10_1_v4", seed=1, n=400, difficulty_shift=0.1)
    t1, fit = recht_comparison(orig, new)
    assert t1["model"].tolist() == sorted(
        final_checkpoints(orig.model_names), key=lambda m: -orig.subset([m]).accuracies()[0]
    )
    assert (t1["new_n"] == 400).all() and (t1["orig_n"] == 500).all()
    # harder new set: every final checkpoint loses accuracy; the fit follows the points
    assert (t1["gap"] > 0).all()
    assert fit.n == 6 and fit.slope > 0 and fit.r_squared > 0.8
    _, fit_all = recht_comparison(orig, new, checkpoints="all", min_accuracy=0.5)
    assert fit_all.n == int((orig.accuracies() >= 0.5).sum())
    # only checkpoints present in both files
    t_some, _ = recht_comparison(orig, new.subset(list(new.model_names[:12])), checkpoints="all")
    assert set(t_some["model"]) == set(new.model_names[:12])
    with pytest.raises(ValueError, match="needs at least 3"):
        recht_comparison(orig, new.subset(list(new.model_names[:2])), checkpoints="all")
    with pytest.raises(ValueError, match="'final' or 'all'"):
        recht_comparison(orig, new, checkpoints="best")


def test_table1_gains_rows_below_independent_errors():
    """Mania et al. App. B: the similarity bounds need similarity >= mu^2 + (1 - mu)^2 at the mean error.
    A row below it gets k by the union bound only (NaN gains, bounds_apply False); the others are exactly
    holdout.bounds.study.table1's rows (order kept)."""
    from holdout.bounds.core import union_bound_k

    rows = [
        {"name": "similar", "n": 10000, "mean_accuracy": 0.968, "mean_similarity": 0.975, "num_models": 20},
        # mu = 0.1: independent errors give 0.82; 0.80 means negatively correlated mistakes
        {"name": "anti", "n": 10000, "mean_accuracy": 0.9, "mean_similarity": 0.80, "num_models": 5},
    ]
    t = table1_gains(rows, eps=0.01, delta=0.05)
    assert t["name"].tolist() == ["similar", "anti"] and t["num_models"].tolist() == [20, 5]
    assert t["bounds_apply"].tolist() == [True, False]
    np.testing.assert_allclose(t["independent_similarity"], [0.032**2 + 0.968**2, 0.82])
    ref = bounds_table1(rows[:1], eps=0.01, delta=0.05).iloc[0]
    for col in ("union_k", "similarity_k", "naive_bayes_k", "sb_gain", "nbb_gain"):
        assert t.loc[0, col] == ref[col], col
    assert t.loc[1, "union_k"] == union_bound_k(10000, 0.1, 0.01, 0.05) > 0
    assert t.loc[1, ["similarity_k", "naive_bayes_k", "sb_gain", "nbb_gain"]].isna().all()
    assert "paper_sb_gain" not in t.columns
    with pytest.raises(ValueError, match="below the independent-errors similarity"):  # what the guard avoids
        bounds_table1(rows[1:], eps=0.01, delta=0.05)


def test_search_table1_frame_and_markdown():
    """search_table1: the kept checkpoints' rows, their Markdown with the notes, and the kept count."""
    cfg = {"n_random": 2, "n_top": 2, "seed": 0, "n": None, "eps": 0.05, "delta": 0.05, "form": "literal"}
    df, md = search_table1(_hand(), 0.5, cfg)
    assert list(df["name"]) == ["all 3", "2 random", "2 highest scoring"]
    assert list(df["num_models"]) == [3, 2, 2]
    assert df["n"].tolist() == [10, 10, 10]
    assert "Our search on hand: 3 of 4 checkpoints with accuracy >= 0.5" in md
    assert "| Checkpoints | K | n |" in md
    top = df.iloc[2]
    assert top["mean_accuracy"] == pytest.approx(0.85)
    assert f"{100 * top['mean_accuracy']:.1f}%" in md


def test_eta_grid_and_search_figure3_with_its_figures(caplog):
    """eta_grid refuses min > max; search_figure3 = figure3 plus the log; the two figures of Fig. 3."""
    import logging

    from holdout.search_analysis.plots import search_figure3_figures

    etas = eta_grid({"min": 0.5, "max": 1.0, "num": 3})
    assert etas.tolist() == [0.5, 0.75, 1.0]
    with pytest.raises(ValueError, match="search_analysis.eta: min=0.9 is above max=0.5"):
        eta_grid({"min": 0.9, "max": 0.5, "num": 3})
    with caplog.at_level(logging.INFO, logger="t"):
        f3 = search_figure3(_hand(), 0.5, etas, logging.getLogger("t"))
    ref = figure3(_hand(), 0.5, etas)
    assert f3.summary == ref.summary and f3.pairs.equals(ref.pairs)
    assert "3 of 4 checkpoints (2 models) have accuracy >= 0.5" in caplog.text
    figs = search_figure3_figures(f3.pairs, f3.covering, "hand", 0.5)
    assert set(figs) == {"pairs", "covering"}
    assert "Our random search, hand" in figs["pairs"].axes[0].get_title()


def test_search_recht_table_fit_and_figure2_frames(search_predictions):
    """search_recht = recht_comparison plus Figure 2's points and line (fit, band, y = x)."""
    orig = search_predictions("cifar10_test", seed=0)
    new = search_predictions("cifar10_1_v4", seed=1, n=400, difficulty_shift=0.1)
    cfg = {"alpha": 0.05, "checkpoints": "final", "min_accuracy": 0.0, "fit_band_level": 0.9}
    t1, fit, points, line = search_recht(orig, new, cfg)
    ref_t1, ref_fit = recht_comparison(orig, new)
    assert t1.equals(ref_t1) and fit == ref_fit
    assert list(points["model"]) == list(t1["model"]) and "gap" not in points.columns
    assert len(line) == 201 and line["x"].iloc[0] == pytest.approx(t1["orig_ci_low"].min() - 1)
    assert line["x"].iloc[-1] == 100 and (line["band_low"] <= line["fit"]).all()
    np.testing.assert_allclose(line["fit"], fit.slope * line["x"] + fit.intercept)
