"""holdout.bounds.study: the setting file, the tables of Fig. 1b / Fig. 2 / Table 1."""

from __future__ import annotations

import json

import pytest

from holdout.bounds import core as B
from holdout.bounds import study as S


def test_load_measured_setting(tmp_path):
    path = tmp_path / "setting.json"
    path.write_text(json.dumps({"n": 50000, "mean_accuracy": 0.756, "mean_similarity": 0.85}))
    s = S.load_measured_setting(path)
    assert (s.n, s.mean_accuracy, s.similarity, s.source) == (50000, 0.756, 0.85, str(path))
    assert s.error == pytest.approx(0.244)


@pytest.mark.parametrize(
    "content,match",
    [
        ('{"n": 50000, "mean_accuracy": 0.756}', "missing key 'mean_similarity'"),
        ("[1, 2]", "expected a JSON object"),
        ("{not json", "not valid JSON"),
        ('{"n": 0, "mean_accuracy": 0.756, "mean_similarity": 0.85}', "n must be a positive integer"),
        ('{"n": 10, "mean_accuracy": 1.5, "mean_similarity": 0.85}', "mean_accuracy must lie"),
        ('{"n": 10, "mean_accuracy": 0.5, "mean_similarity": "high"}', "'mean_similarity' must be a number"),
    ],
)
def test_load_measured_setting_errors_name_file_and_key(tmp_path, content, match):
    path = tmp_path / "setting.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=match) as err:
        S.load_measured_setting(path)
    assert "setting" in str(err.value)


def test_load_measured_setting_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="measured setting not found"):
        S.load_measured_setting(tmp_path / "nope.json")


def test_figure1b_table_imagenet_mania_fig1b():
    """Mania et al. Fig. 1b at the ImageNet setting: union bound 257,397 models, SB ~4x."""
    t = S.figure1b_table(S.Setting(n=50000, mean_accuracy=0.756, similarity=0.85), eps=0.01, delta=0.05)
    assert t["testable_models"].iloc[0] == 257_397
    assert 3.9 < t["gain_over_union"].iloc[1] < 4.5
    assert t["testable_models"].iloc[2] > 1e8


def test_gain_grid_parallel_equals_serial():
    kw = dict(n=3000, error=0.2, similarities=[0.75, 0.85, 0.95], eps_values=[0.03], delta=0.05)
    serial = S.gain_grid(threads=1, **kw)
    parallel = S.gain_grid(threads=2, **kw)
    assert serial.equals(parallel)
    assert serial["union_k"].iloc[0] == B.union_bound_k(n=3000, error=0.2, eps=0.03, delta=0.05)


def test_table1_rows_and_markdown():
    rows = [{"name": "a", "n": 3000, "mean_accuracy": 0.9, "mean_similarity": 0.95, "paper_sb": 2.0}]
    t = S.table1(rows, eps=0.02, delta=0.05)
    md = S.table1_markdown(t, ["note one"])
    assert "| a | 3,000 | 90.0% | 95.0% |" in md and "- note one" in md and "| 2.0x |" in md
    with pytest.raises(ValueError, match=r"rows\[0\]: missing key 'mean_similarity'"):
        S.table1([{"name": "a", "n": 10, "mean_accuracy": 0.9}], eps=0.02, delta=0.05)


@pytest.mark.parametrize("value,text", [(9.558, "9.6x"), (15307.2, "1.5e4x"), (None, "–")])
def test_fmt_gain_as_in_table1(value, text):
    assert S.fmt_gain(value) == text


def test_setting_round_trip_and_from_config(tmp_path):
    s = S.Setting.from_config({"n": 50000, "mean_accuracy": 0.756, "similarity": 0.85})
    assert s.source == "config"
    S.save_setting(s, tmp_path / "setting.json")
    data = json.loads((tmp_path / "setting.json").read_text())
    assert data["error"] == pytest.approx(0.244)
    assert S.load_setting(tmp_path / "setting.json") == s


def test_figure2_panel_grids_similarity_or_eps():
    s = S.Setting(n=3000, mean_accuracy=0.8, similarity=0.85, source="here")
    sim = S.figure2_panel(s, "similarity", {"start": 0.75, "stop": 0.95, "num": 3}, eps=0.03, delta=0.05)
    assert sim["similarity"].tolist() == pytest.approx([0.75, 0.85, 0.95]) and set(sim["eps"]) == {0.03}
    assert set(sim["setting_source"]) == {"here"} and set(sim["form"]) == {"literal"}
    eps = S.figure2_panel(s, "eps", {"start": 0.02, "stop": 0.04, "num": 2}, eps=0.03, delta=0.05)
    assert eps["eps"].tolist() == [0.02, 0.04] and set(eps["similarity"]) == {0.85}
    assert eps["union_k"].iloc[0] == B.union_bound_k(n=3000, error=s.error, eps=0.02, delta=0.05)
    with pytest.raises(ValueError, match="panel must be"):
        S.figure2_panel(s, "delta", {"start": 0.02, "stop": 0.04, "num": 2}, eps=0.03, delta=0.05)


def test_table1_markdown_layout_title_and_notes():
    rows = [{"name": "a", "n": 3000, "mean_accuracy": 0.9, "mean_similarity": 0.95, "paper_sb": 2.0, "paper_nbb": 30.0}]
    t = S.table1(rows, eps=0.02, delta=0.05)
    notes = S.table1_notes(t, 0.02, 0.05, "literal")
    assert len(notes) == 2 and "a: paper 2.0x / 30.0x, here" in notes[1]
    md = S.table1_markdown(t, notes, title="# T").splitlines()
    assert md[:2] == ["# T", ""]
    assert md[3] == "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    assert md[-2].startswith("- Gains in the number of testable models over the union bound (2), eps = 0.02")
