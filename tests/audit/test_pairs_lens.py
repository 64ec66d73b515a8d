"""The audit's paired lens: pairs.csv, ranks.csv, summary.json and the accuracy verdict, on
LiveCodeBench's 45 x 400 pass@1 matrix (the raw file in the data mirror) and on 0/1 predictions,
against scipy.stats computed here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.audit import AuditOptions, run_audit
from holdout.audit.cli import main
from holdout.audit.engines.pairs_lens import pairs_lens
from holdout.audit.report.verdicts import accuracy_verdict
from holdout.leaderboards.sources import livecodebench
from holdout.predictions import Predictions

PAIR_COLUMNS = ["model_a", "model_b", "n", "b", "c", "diff", "diff_low", "diff_high", "p_value", "p_holm"]
RANK_COLUMNS = ["model", "accuracy", "rank", "rank_low", "rank_high", "tied_with_best"]


@pytest.fixture(scope="module")
def lcb_csv(shared_data: Path, tmp_path_factory) -> Path:
    """LiveCodeBench's matrix (LiveCodeBench/livecodebench.github.io at 8ed5690) as a correctness CSV."""
    lcb = livecodebench(shared_data / "livecodebench/src/mocks/performances_generation.json")
    c = lcb.correctness
    path = tmp_path_factory.mktemp("lcb") / "livecodebench.csv"
    frame = pd.DataFrame(c.values, index=pd.Index(c.model_names, name="model"), columns=list(lcb.items))
    frame.to_csv(path)
    return path


def test_correctness_verdicts_on_livecodebench(lcb_csv: Path) -> None:
    """The fast half of the CLI test below: the verdicts of summary.json, without writing figures."""
    from holdout.audit.correctness import correctness_result, load_correctness
    from holdout.audit.run import summary_dict

    c = load_correctness(str(lcb_csv), None, 10)
    result = correctness_result(c, AuditOptions(lenses=("accuracy", "pairs"), rank_resamples=200), str(lcb_csv))
    summary = summary_dict(result)
    assert (
        "0 other model(s) are tied with the best: their simultaneous 95% rank interval reaches 1"
        in (summary["accuracy"]["verdict"])
    )
    assert "Beta-quantile interval on the mean pass rate" in summary["accuracy"]["verdict"]
    assert (
        "The closest to GPT-4-Turbo-2024-04-09, GPT-4-Turbo-1106, is 5.23 points behind" in summary["pairs"]["verdict"]
    )
    assert summary["pairs"]["tied_with_best"] == ["GPT-4-Turbo-2024-04-09"]


@pytest.mark.slow  # renders the 45 x 45 heatmap and the rank figure as PNG + PDF
def test_correctness_audit_prints_the_paired_verdict_and_writes_ranks(lcb_csv: Path, tmp_path, capsys) -> None:
    """The referee's C1: the interval overlap names 3 models as inseparable from GPT-4-Turbo-2024-04-09;
    the paired t test on the same 400 items separates all of them (Holm over 44)."""
    out = tmp_path / "audit"
    argv = ["audit", str(lcb_csv), "--correctness", "--samples", "10", "--lenses", "accuracy,pairs"]
    assert main([*argv, "--rank-resamples", "200", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "[pairs] Paired on the same 400 items (paired t test over items" in printed
    assert "0 other model(s) are tied with the best: their simultaneous 95% rank interval reaches 1" in printed
    assert "3 other model(s) have 95% intervals overlapping the best's: a conservative screen" in printed
    assert "does not separate" not in printed
    pairs = pd.read_csv(out / "pairs.csv")
    ranks = pd.read_csv(out / "ranks.csv")
    assert set(PAIR_COLUMNS) <= set(pairs.columns) and len(pairs) == 45 * 44 // 2
    assert set(RANK_COLUMNS) <= set(ranks.columns) and len(ranks) == 45
    row = pairs[(pairs["model_a"] == "GPT-4-Turbo-2024-04-09") & (pairs["model_b"] == "Claude-3-Opus")].iloc[0]
    assert row["diff"] == pytest.approx(8.15, abs=1e-9)  # points: 32.6 / 400 more problems solved
    assert float(f"{row['p_value']:.1e}") == 1.7e-5
    assert ranks["tied_with_best"].tolist() == [True] + [False] * 44
    assert (ranks["rank_low"] <= ranks["rank"]).all() and (ranks["rank"] <= ranks["rank_high"]).all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pairs"]["best_model"] == "GPT-4-Turbo-2024-04-09"
    assert summary["pairs"]["num_tied_with_best"] == 0
    assert summary["pairs"]["verdict"].startswith("Paired on the same 400 items")
    assert (out / "rank_intervals.png").is_file() and (out / "pair_differences.png").is_file()


def _predictions(n: int = 300, seed: int = 0) -> Predictions:
    """Three models sharing most mistakes, and a fourth far behind (10 classes)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    hard = rng.random(n)
    right = np.vstack([hard < 0.80, hard < 0.78, (hard < 0.76) | (hard > 0.99), rng.random(n) < 0.5])
    preds = np.where(right, labels, (labels + 1) % 10)
    return Predictions.create(preds, labels, ["a", "b", "c", "d"], num_classes=10)


def test_predictions_audit_pairs_match_scipy_binomtest() -> None:
    preds = _predictions()
    result = run_audit(preds, AuditOptions(lenses=("accuracy", "pairs")))
    pairs = result.pairs.pairs
    right = 1 - preds.errors()
    for row in pairs.itertuples():
        x, y = right[preds.model_names.index(row.model_a)], right[preds.model_names.index(row.model_b)]
        b, c = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
        assert (row.b, row.c) == (b, c)
        want = 1.0 if b + c == 0 else stats.binomtest(b, b + c, 0.5).pvalue
        assert row.p_value == pytest.approx(want, rel=1e-10)
        assert row.diff == pytest.approx(100 * (x.mean() - y.mean()))
    ranks = result.pairs.ranks
    # a beats b on 6 items and loses none (McNemar p = 2^-5 = 0.031, Holm over all 6 pairs 0.094): b's
    # simultaneous rank interval reaches 1, so b is tied with the best; d is not
    ranks = ranks.set_index("model")
    assert ranks.loc["b", "tied_with_best"] and ranks.loc["b", "rank_low"] == 1
    assert not ranks.loc["d", "tied_with_best"]
    verdict = accuracy_verdict(result.accuracy, 0.05, result.pairs)
    assert "2 other model(s) are tied with the best (b and c): their simultaneous 95% rank interval" in verdict


def test_mid_p_option_and_one_model_note() -> None:
    preds = _predictions()
    mid = run_audit(preds, AuditOptions(lenses=("pairs",), mid_p=True, rank_resamples=50)).pairs
    assert (mid.pairs["test"] == "McNemar mid-p").all() and mid.test_words == "McNemar mid-p test"
    one = Predictions.create(preds.predictions[:1], preds.labels, ["a"], num_classes=10)
    result = run_audit(one, AuditOptions(lenses=("accuracy", "pairs")))
    assert result.pairs is None
    assert any("Paired comparisons: not applicable" in n for n in result.notes)
    assert "conservative screen" in accuracy_verdict(result.accuracy, 0.05)


def test_rank_resamples_option_is_checked(capsys, tmp_path) -> None:
    from holdout.audit import AuditError

    with pytest.raises(AuditError, match="--rank-resamples"):
        AuditOptions(rank_resamples=3)


def test_lens_on_identical_models_ties_everyone() -> None:
    x = (np.random.default_rng(1).random((1, 80)) < 0.6).astype(float)
    lens = pairs_lens(np.repeat(x, 3, axis=0), ["p", "q", "r"], resamples=50)
    assert lens.ranks["tied_with_best"].all() and (lens.ranks["rank"] == 1).all()
    assert (lens.pairs["p_value"] == 1.0).all() and (lens.ranks["tie_group"] == 1).all()
