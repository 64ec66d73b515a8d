"""The public contamination anchors recomputed from their published files (each number names its
source); what is off in the files is found, not fixed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.contamination import anchors as A


@pytest.fixture(scope="module")
def root(shared_data):
    return shared_data / "anchors"


def test_gsm1k_correlation_from_the_published_files(root):
    """scaleapi/gsm1k_eval (commit 39294c6) loglikelihood/scale_diff.csv + averages.tsv: 58 + 59 rows,
    52 models with both after dropping repeats. The paper reports a Spearman r^2 of 0.32 (v1) / 0.36
    (v4); these files give r = 0.288, r^2 = 0.083 (the study page explains)."""
    df, found = A.read_gsm1k(root / "gsm1k" / "scale_diff.csv", root / "gsm1k" / "averages.tsv")
    assert len(df) == 52
    assert any("6 names appear more than once (identical values)" in f for f in found)
    assert any(
        "no gap for 4 models: Mistral-7B-Instruct-v0.2, Smaug-2-72B, Xwin-Math-70B-V1.0, grok-1" in f for f in found
    )
    summary, per_model = A.gsm1k_anchor(df)
    assert summary["spearman_r"] == pytest.approx(0.2876, abs=1e-4)
    assert summary["spearman_r2"] == pytest.approx(0.0827, abs=1e-4)
    # independent: Spearman = Pearson of the ranks
    r = np.corrcoef(stats.rankdata(df["gap"]), stats.rankdata(df["loglik"]))[0, 1]
    assert summary["spearman_r"] == pytest.approx(r)
    top = per_model.iloc[0]
    assert top["model"] == "math-shepherd-mistral-7b-rl" and top["gap"] == pytest.approx(0.134, abs=5e-4)
    assert top["significant"] and not per_model.set_index("model").loc["llemma_34b", "significant"]


def test_mmlu_cf_findings_and_gaps(root):
    """microsoft/MMLU-CF README (commit fd89eef) leaderboard, 44 models: Mixtral-8x7B-instruct's
    5-shot delta is printed -1.2 where test - validation = 58.3 - 57.1 = +1.2; Gemma-2-2B's 0-shot
    delta +0.9 where 30.5 - 29.4 = +1.1; Qwen2.5-0.5B-instruct's MMLU 24.1 is below chance."""
    df, found = A.read_mmlu_cf(root / "mmlu_cf" / "mmlu_cf_leaderboard.csv")
    assert len(df) == 44
    assert any(
        f.startswith("Mixtral-8x7B-instruct-v0.1: cf_delta_5shot = -1.2") and "sign disagrees" in f for f in found
    )
    assert any(f.startswith("Gemma-2-2B: cf_delta_0shot = +0.9") for f in found)
    assert any(f.startswith("Qwen2.5-0.5B-instruct: below random guessing") for f in found)
    assert not any("GPT-4-Turbo" in f for f in found)  # 68.9 - 68.7 vs +0.1: within rounding
    summary, gaps = A.mmlu_cf_anchor(df, "5shot")
    assert (summary["positive"], summary["negative"], summary["zero"]) == (29, 12, 3)
    exact = 2 * stats.binom.cdf(12, 41, 0.5)  # independent: the two-sided exact sign test by hand
    assert summary["sign_test_p"] == pytest.approx(exact)
    assert summary["significant_gaps"] == 0  # no single gap is significant with 10,000 + 10,000 items
    row = gaps.set_index("model").loc["Mixtral-8x7B-instruct-v0.1"]
    assert row["gap"] == pytest.approx(1.2)


def test_obsscaling_table_and_lens(root):
    """ryoungj/ObsScaling (commit 4d6e1e4) eval_results/base_llm_benchmark_eval.csv: 148 base models
    with MMLU and GSM8K; the probit lens on a small bootstrap runs and finds models above the curve."""
    df, found = A.read_obsscaling(root / "obsscaling" / "eval_results" / "base_llm_benchmark_eval.csv", "MMLU", "GSM8K")
    assert len(df) == 148 and not found
    lens = A.obsscaling_anchor(df, (14042, 1319), (0.25, 0.0), 100, 0, "probit")
    assert len(lens.models) == 148
    assert (lens.models["delta"] > 0.1).any()


def test_matharena_findings_and_dates(root):
    """eth-sri/matharena configs (HEAD e927660): aime_2025_I dated 2024-02-12, placeholder 2200
    dates, API ids with several dates."""
    models, comps, found = A.read_matharena(
        root / "matharena" / "model_release_dates.csv", root / "matharena" / "competition_dates.csv"
    )
    assert len(models) == 111
    assert any("aime_2025_I.yaml: dated 2024-02-12, before the year 2025" in f for f in found)
    assert sum("placeholder date 2200" in f for f in found) == 8
    assert any("'gemini-2.5-pro' carries several release dates" in f for f in found)
    table = A.matharena_dates(models, comps)
    row = table.set_index("competition").loc["usamo_2026"]
    released = pd.to_datetime(models["date"])
    assert row["models_released_on_or_after"] == int((released >= "2026-03-22").sum())
    assert (table["models_released_before"] + table["models_released_on_or_after"] == 111).all()


def test_swebench_verified_spot_checks(root):
    """dariakryvosheieva/agent-psychometrics data/swebench_verified/responses.jsonl: the public
    leaderboard's 22.4 % (SWE-agent + GPT-4), 33.6 % (SWE-agent + Claude 3.5 Sonnet) and 53.0 %
    (OpenHands CodeAct 2.1) recomputed from the upstream JSONL and from the matrix derived from it."""
    import json

    lines = (root / "swebench" / "upstream" / "swebench_verified__responses.jsonl").read_text().splitlines()
    upstream = {r["subject_id"]: r["responses"] for r in map(json.loads, lines)}
    matrix = pd.read_csv(root / "swebench" / "swebench_verified_resolved_matrix.csv", index_col=0)
    assert matrix.shape == (134, 500) and len(upstream) == 134
    for subject, rate in (
        ("20240402_sweagent_gpt4", 0.224),
        ("20240620_sweagent_claude3.5sonnet", 0.336),
        ("20241029_OpenHands-CodeAct-2.1-sonnet-20241022", 0.530),
    ):
        assert np.mean(list(upstream[subject].values())) == pytest.approx(rate)
        assert matrix.loc[subject].mean() == pytest.approx(rate)
