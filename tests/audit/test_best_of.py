"""The best of N variants in the audit: the union bound against exact binomial tails computed here,
the similarity bound never above it, the resampling against the library, the CLI and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from holdout.audit import AuditError, AuditOptions, run_audit
from holdout.audit.cli import main
from holdout.audit.engines.best_of import best_of_n, best_of_n_verdict, read_families
from holdout.predictions import Predictions
from holdout.stats.ranks import best_of_n_resampled


def _union_probability(n: int, error: float, eps: float, k: int) -> float:
    """Mania et al. (2) with exact tails: k [P(X >= n(mu + eps)) + P(X < n(mu - eps))]."""
    right = stats.binom.sf(math.ceil(n * (error + eps)) - 1, n, error)
    left = stats.binom.cdf(math.ceil(n * (error - eps)) - 1, n, error)
    return k * (right + left)


def test_union_bound_is_the_smallest_eps_with_exact_tails() -> None:
    r = best_of_n("", "m", None, variants=27, n=400, accuracy=43.5, similarity=0.85, similarity_source="given")
    eps = r.union_bound / 100
    assert _union_probability(400, 0.565, eps + 1e-9, 27) <= 0.05
    assert _union_probability(400, 0.565, eps - 1 / 400, 27) > 0.05
    assert r.similarity_bound is not None and r.similarity_bound <= r.union_bound + 1e-9
    text = best_of_n_verdict((r,))
    assert text.startswith("Picking m as the best of N = 27 variants on n = 400 items can inflate its score by up to")
    assert "theorem at plug-in values" in text and "resampling" not in text


def _family_predictions(n: int = 500, seed: int = 0) -> Predictions:
    """Six variants of one model (sharing most answers) and two other models."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 5, n)
    base = rng.random(n) < 0.7
    right = [base ^ (rng.random(n) < 0.05) for _ in range(6)] + [rng.random(n) < 0.6, rng.random(n) < 0.5]
    preds = np.where(np.array(right), labels, (labels + 1) % 5)
    names = [f"v{i}" for i in range(6)] + ["other_a", "other_b"]
    return Predictions.create(preds, labels, names, num_classes=5)


def test_families_measure_similarity_and_resample_the_variants(tmp_path) -> None:
    preds = _family_predictions()
    fam = tmp_path / "families.csv"
    fam.write_text("model,family\n" + "".join(f"v{i},org\n" for i in range(6)) + "other_a,solo\n")
    result = run_audit(preds, AuditOptions(lenses=("accuracy",), families=str(fam)))
    (r,) = result.best_of_n
    assert (r.family, r.variants, r.n) == ("org", 6, 500)
    correct = 1.0 - preds.errors()[:6]
    want = best_of_n_resampled(correct, 0.05, seed=0)
    assert r.resampled_expected == pytest.approx(100 * want.expected)
    assert r.selected == f"v{int(np.argmax(correct.mean(axis=1)))}"
    assert r.similarity > 0.85 and r.similarity_source.startswith(
        "measured among the family's models (least similar pair"
    )
    agree = [np.mean(correct[i] == correct[j]) for i in range(6) for j in range(i + 1, 6)]
    assert r.similarity == pytest.approx(np.min(agree), abs=1e-12)  # the least similar pair (Mania et al. (3)+(8))


def test_variants_option_uses_the_mean_similarity_as_stand_in(tmp_path, capsys) -> None:
    preds = _family_predictions()
    result = run_audit(preds, AuditOptions(lenses=("accuracy",), variants=27))
    (r,) = result.best_of_n
    assert r.variants == 27 and r.resampled_expected is None
    assert "stand-in" in r.similarity_source


def test_bad_families_and_variants_are_one_line(tmp_path) -> None:
    names = ["a", "b"]
    bad = tmp_path / "f.csv"
    bad.write_text("model,family\nzzz,org\n")
    with pytest.raises(AuditError, match=r"--families .*not in the audit, e.g. 'zzz'"):
        read_families(bad, names)
    with pytest.raises(AuditError, match="--variants"):
        AuditOptions(variants=1)
    with pytest.raises(AuditError, match="--families .*cannot read"):
        read_families(tmp_path / "missing.csv", names)


def test_cli_prints_the_best_of_n_verdict(tmp_path, capsys) -> None:
    from holdout.predictions import save_predictions

    path = tmp_path / "p.npz"
    save_predictions(path, _family_predictions())
    out = tmp_path / "audit"
    argv = ["audit", str(path), "--lenses", "accuracy", "--variants", "27", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "[best_of_n] Picking v" in printed and "best of N = 27 variants on n = 500 items" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["best_of_n"]["results"][0]["variants"] == 27
    assert (out / "best_of_n.csv").is_file()
