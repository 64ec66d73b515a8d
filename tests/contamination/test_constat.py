"""ConStat's published GSM8K and ARC tables (eth-sri/ConStat, commit e691cdd, ``tables/*.csv``)
reproduced from their own columns: deltas within 1 point, the same models flagged at p < 0.05
except the rows the study page explains."""

from __future__ import annotations

import pytest

from holdout.contamination.constat import read_constat_table, reproduce_constat, table_findings

TABLES = ["gsm8k_reference", "gsm8k_rephrase", "gsm8k_synthetic", "arc_reference", "arc_rephrase", "arc_synthetic"]
# Rows the study page explains: delta more than 1 point off (an extrapolation beyond the reference
# models), or flagged by ConStat (p < 0.05) and not by the table-level bootstrap, whose independent
# binomial draws are wider than ConStat's item bootstrap (models err on the same items).
DELTA_EXCEPTIONS = {("arc_reference", "zero-one-ai/Yi-34B")}
FLAG_EXCEPTIONS = {
    ("gsm8k_rephrase", "JasperDekoninck/contamination-models-gsm8k-default_with_ref"),
    ("arc_reference", "meta-llama/Llama-2-7b-chat-hf"),
    ("arc_reference", "meta-llama/Llama-2-13b-chat-hf"),
    ("arc_reference", "mistralai/Mixtral-8x22B-Instruct-v0.1"),
    ("arc_reference", "Qwen/Qwen1.5-7B-Chat"),
    ("arc_rephrase", "meta-llama/Meta-Llama-3-70B"),
    ("arc_rephrase", "stabilityai/stablelm-2-12b"),
    ("arc_synthetic", "meta-llama/Llama-2-7b-hf"),
    ("arc_synthetic", "internlm/internlm2-7b"),
    ("arc_synthetic", "stabilityai/stablelm-2-12b"),
    ("arc_synthetic", "zero-one-ai/Yi-6B"),
}


def _table(shared_data, name):
    root = shared_data / "anchors" / "constat"
    return read_constat_table(root / "tables" / f"{name}.csv", root / "model_roles.csv")


def test_table_reader_sizes_and_roles(shared_data):
    t = _table(shared_data, "gsm8k_synthetic")
    assert len(t.rows) == 65 and t.chance == (0.0, 0.0)
    assert t.rows["role"].value_counts().to_dict() == {"reference": 20, "test": 27, "contaminated": 18}
    # GSM8K test set (1,319 = 659 benchmark split + 660 no_cont), as the standard errors say
    assert set(t.rows.loc[t.rows["role"] != "contaminated", "n_benchmark"]) == {1319}
    assert set(t.rows.loc[t.rows["role"] == "contaminated", "n_benchmark"]) == {659}
    assert _table(shared_data, "arc_reference").chance == (0.25, 0.25)


def test_findings_name_the_duplicate_rows(shared_data):
    found = table_findings(_table(shared_data, "gsm8k_reference"))
    assert any("Mistral-7B-v0.3 and mistral-community/Mistral-7B-v0.2" in f for f in found)
    assert any("stablelm-2-1_6b: accuracy below random guessing" in f for f in found)


def test_gsm8k_synthetic_headline_rows(shared_data):
    """ConStat flags Mistral-7B-v0.1 on GSM8K (+8.25 points, p = 0.0015) and not
    Llama-3-70B-chat (p = 0.0939) (tables/gsm8k_synthetic.csv)."""
    out, _ = reproduce_constat(_table(shared_data, "gsm8k_synthetic"), n_bootstrap=200)
    row = out.set_index("model")
    mistral, llama = row.loc["mistralai/Mistral-7B-v0.1"], row.loc["meta-llama/Llama-3-70b-chat-hf"]
    assert mistral["delta"] == pytest.approx(0.08245, abs=1e-5) and mistral["p_value"] == 0.0015
    assert mistral["delta_ours"] == pytest.approx(0.0825, abs=0.01) and mistral["p_ours"] < 0.05
    assert llama["p_value"] == pytest.approx(0.0939) and llama["p_ours"] > 0.05
    assert (out["delta_diff"].abs() <= 0.01).all()


@pytest.mark.slow
@pytest.mark.parametrize("name", TABLES)
def test_published_table_reproduced(shared_data, name):
    out, _ = reproduce_constat(_table(shared_data, name), n_bootstrap=1000)
    far = {(name, m) for m in out.loc[out["delta_diff"].abs() > 0.01, "model"]}
    assert far <= DELTA_EXCEPTIONS
    differ = out[out["flag_published"] != out["flag_ours"]]
    assert not (differ["flag_ours"]).any()  # never flagged by us and not by ConStat
    assert {(name, m) for m in differ["model"]} <= FLAG_EXCEPTIONS
