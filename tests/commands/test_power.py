"""``holdout power``: the resolution table against the library's closed forms, the planning mode
against Connor's formula by hand, the clustered columns on SWE-bench Verified's matrix, and one-line
errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.commands.power import main, resolution, summary_line
from holdout.stats import clustered_se, mcnemar_sample_size

SWE = "anchors/swebench/swebench_verified_resolved_matrix.csv"


def test_planning_prints_connors_n(capsys) -> None:
    assert main(["--accuracy", "0.80", "0.78", "--discordance", "0.15"]) == 0
    za, zb = stats.norm.isf(0.025), stats.norm.isf(0.2)
    n = math.ceil((za * math.sqrt(0.15) + zb * math.sqrt(0.15 - 0.02**2)) ** 2 / 0.02**2)
    assert capsys.readouterr().out.startswith(f"n = {n:,} items")


def test_planning_from_a_correlation(capsys) -> None:
    assert main(["--accuracy", "0.80", "0.78", "--correlation", "0.5", "--items", "500"]) == 0
    out = capsys.readouterr().out
    p11 = 0.8 * 0.78 + 0.5 * math.sqrt(0.8 * 0.2 * 0.78 * 0.22)
    n = math.ceil(mcnemar_sample_size(0.02, 0.8 + 0.78 - 2 * p11))
    assert f"n = {n:,} items" in out
    assert "on 500 items: the smallest detectable difference is" in out


def test_resolution_rows_follow_the_accuracy_order_and_the_closed_form() -> None:
    rng = np.random.default_rng(0)
    v = (rng.random((4, 300)) < np.array([[0.3], [0.6], [0.1], [0.85]])).astype(float)
    t = resolution(v, ["a", "b", "c", "d"])
    adj = t[t["comparison"] == "adjacent"]
    assert list(adj["model_a"]) == ["d", "b", "a"] and list(adj["model_b"]) == ["b", "a", "c"]
    assert list(t.loc[t["comparison"] == "vs_best", "model_b"]) == ["b", "a", "c"]
    row = adj.iloc[0]
    d = v[3] - v[1]
    assert row["diff"] == pytest.approx(100 * d.mean())
    assert row["discordance"] == pytest.approx(np.mean(d != 0))
    assert row["n_needed"] == pytest.approx(mcnemar_sample_size(d.mean(), np.mean(d != 0)))
    assert row["resolved"] == (row["n_needed"] <= 300)
    assert (t["resolved"] == (t["n_needed"] <= 300)).all()


def test_swebench_clustered_by_repository(shared_data, tmp_path, capsys) -> None:
    out = tmp_path / "power"
    args = [str(shared_data / SWE), "--correctness", "--cluster-pattern", "^(.+)-[0-9]+$", "--out", str(out)]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("this test set (500 items) resolves ")
    assert lines[1].startswith("this test set (clustered, 500 items) resolves ")
    table = pd.read_csv(out / "resolution.csv")
    assert len(table) == 2 * 133
    assert set(table["n_clusters"]) == {12}  # the 12 repositories of SWE-bench Verified
    m = pd.read_csv(shared_data / SWE, index_col=0)
    repos = m.columns.str.replace(r"-[0-9]+$", "", regex=True)
    row = table.iloc[5]
    d = m.loc[row["model_a"]].to_numpy(float) - m.loc[row["model_b"]].to_numpy(float)
    assert row["design_effect"] == pytest.approx(clustered_se(d, repos).design_effect, rel=1e-9)
    assert summary_line(table) == lines[0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--accuracy", "80", "78", "--discordance", "0.15"], "give accuracies as fractions"),
        (["--accuracy", "0.8", "0.78"], "needs one of --discordance or --correlation"),
        (["--accuracy", "0.8", "0.78", "--discordance", "0.01"], "exceeds the discordance"),
        (["--accuracy", "0.9", "0.2", "--correlation", "0.9"], "impossible for accuracies"),
        ([], "give a correctness matrix or evaluation logs"),
        (["missing.csv", "--correctness"], "missing.csv: correctness file not found"),
        (["x.csv", "--discordance", "0.1"], "go with --accuracy"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cluster_file_errors_name_the_item(shared_data, tmp_path, capsys) -> None:
    clusters = tmp_path / "clusters.csv"
    clusters.write_text("item,cluster\nastropy__astropy-12907,astropy\n")
    assert main([str(shared_data / SWE), "--correctness", "--clusters", str(clusters)]) == 2
    assert "499 of 500 items have no cluster (first: 'astropy__astropy-13033')" in capsys.readouterr().err


def test_cluster_file_with_a_header_equals_the_pattern(tmp_path) -> None:
    rng = np.random.default_rng(8)
    items = [f"repo{k % 4}__repo{k % 4}-{100 + k}" for k in range(40)]
    matrix = tmp_path / "m.csv"
    values = (rng.random((3, 40)) < [[0.3], [0.5], [0.8]]).astype(int)
    pd.DataFrame(values, index=["x", "y", "z"], columns=items).rename_axis("model").to_csv(matrix)
    clusters = tmp_path / "clusters.csv"
    rows = [f"{i},{i.rsplit('-', 1)[0]}" for i in items] + ["not-an-item,x"]
    clusters.write_text("instance_id,repository\n" + "\n".join(rows) + "\n")
    a, b = tmp_path / "a", tmp_path / "b"
    assert main([str(matrix), "--correctness", "--clusters", str(clusters), "--out", str(a)]) == 0
    assert main([str(matrix), "--correctness", "--cluster-pattern", "^(.+)-[0-9]+$", "--out", str(b)]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(a / "resolution.csv"), pd.read_csv(b / "resolution.csv"))
    assert set(pd.read_csv(a / "resolution.csv")["n_clusters"]) == {4}
    import json

    note = json.loads((a / "power.json").read_text())["clusters"]["source"]
    assert "1 ids there are not items here, ignored" in note


def test_pass_rates_use_the_paired_normal_form() -> None:
    from holdout.stats import paired_sample_size

    rng = np.random.default_rng(1)
    v = rng.integers(0, 11, size=(3, 200)) / 10
    t = resolution(v, ["x", "y", "z"])
    assert set(t["method"]) == {"paired normal"}
    row = t.iloc[0]
    a, b = ["x", "y", "z"].index(row["model_a"]), ["x", "y", "z"].index(row["model_b"])
    d = v[a] - v[b]
    assert row["sd_diff"] == pytest.approx(100 * d.std(ddof=1))
    assert row["n_needed"] == pytest.approx(paired_sample_size(d.mean(), d.std(ddof=1)))


def test_pass_rates_over_samples_get_the_variance_split(tmp_path, capsys) -> None:
    from holdout.stats import sample_variance_split_from_rates

    rng = np.random.default_rng(3)
    v = rng.integers(0, 11, size=(3, 80)) / 10
    matrix = tmp_path / "m.csv"
    pd.DataFrame(v, index=["x", "y", "z"], columns=[f"q{j}" for j in range(80)]).rename_axis("model").to_csv(matrix)
    assert main([str(matrix), "--correctness", "--samples", "10", "--out", str(tmp_path / "out")]) == 0
    assert "with 10 samples per item, within-item sampling noise is a median" in capsys.readouterr().out
    split = pd.read_csv(tmp_path / "out" / "samples.csv")
    want = sample_variance_split_from_rates(v[1], 10)
    assert split.loc[1, "var_within"] == pytest.approx(want.var_within)
    assert split.loc[1, "var_between"] == pytest.approx(want.var_between)
    assert split.loc[1, "m_negligible"] == want.m_negligible


def test_cluster_by_a_field_of_the_logs(shared_data, tmp_path, capsys) -> None:
    # Inspect's StarSim benchmark: 23 sub-steps of 6 problems (the sample metadata's problem_id)
    logs = shared_data / "evallogs/inspect_starsim"
    assert main([str(logs), "--cluster-by", "problem_id", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("this test set (clustered, 23 items)")
    assert set(pd.read_csv(tmp_path / "resolution.csv")["n_clusters"]) == {6}
    assert main([str(logs), "--cluster-by", "nope"]) == 2
    assert "available: problem_id, sub_step_id" in capsys.readouterr().err
    assert main([str(shared_data / SWE), "--correctness", "--cluster-by", "repo"]) == 2
    assert "a correctness matrix has no per-item fields" in capsys.readouterr().err
