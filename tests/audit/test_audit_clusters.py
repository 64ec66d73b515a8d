"""``holdout audit --clusters FILE`` / ``--cluster-by FIELD``: the clustered columns against an
independent computation, every input kind and spelling, the one-line errors, and an audit without
them that is the audit of today (the clustered run changes only the files and columns it names)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from holdout.audit.cli import main

REPO = Path(__file__).resolve().parents[2]
PREDS = ["audit", str(REPO / "config/examples/user_predictions.csv"), "--labels"]
PREDS += [str(REPO / "config/examples/user_labels.npy")]
FAST = ["--lenses", "accuracy,pairs", "--rank-resamples", "200"]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory) -> tuple[Path, Path, np.ndarray, np.ndarray]:
    """4 models x 60 items in 12 clusters of 5 (a shared cluster effect), and its clusters CSV."""
    rng = np.random.default_rng(3)
    root = tmp_path_factory.mktemp("clusters")
    clusters = np.repeat(np.arange(12), 5)
    effect = rng.normal(0, 1.2, 12)[clusters]
    x = (rng.normal(0, 1, (4, 60)) + effect + np.array([0.8, 0.5, 0.3, 0.0])[:, None] > 0).astype(int)
    ids = [f"q{j}" for j in range(60)]
    pd.DataFrame(x, index=[f"m{i}" for i in range(4)], columns=ids).rename_axis("model").to_csv(root / "m.csv")
    pd.DataFrame({"item": ids, "cluster": [f"c{c}" for c in clusters]}).to_csv(root / "c.csv", index=False)
    return root / "m.csv", root / "c.csv", x.astype(float), clusters


def _se_clustered(v: np.ndarray, clusters: np.ndarray) -> float:
    """Miller (2024) App. A times sqrt(C / (C - 1)), written out: sum over clusters of the summed residuals."""
    c, n = len(set(clusters)), v.size
    resid = pd.Series(v - v.mean()).groupby(clusters).sum().to_numpy()
    return float(np.sqrt(c / (c - 1) * (resid**2).sum()) / n)


@pytest.fixture(scope="module")
def clustered(tmp_path_factory, matrix) -> Path:
    """The matrix audit with --clusters (one run for the tests below)."""
    out = tmp_path_factory.mktemp("clustered") / "o"
    assert main(["audit", "matrix", str(matrix[0]), "--clusters", str(matrix[1]), *FAST, "--out", str(out)]) == 0
    return out


def test_matrix_with_clusters_against_an_independent_computation(clustered, matrix) -> None:
    _, _, x, clusters = matrix
    acc = pd.read_csv(clustered / "accuracy.csv").set_index("model")
    for i in range(4):
        row = acc.loc[f"m{i}"]
        assert row["se_clustered"] == pytest.approx(100 * _se_clustered(x[i], clusters), rel=1e-9)
        assert row["se"] == pytest.approx(100 * x[i].std(ddof=1) / np.sqrt(60), rel=1e-9)
        assert row["design_effect"] == pytest.approx((row["se_clustered"] / row["se"]) ** 2, rel=0.2)
    pairs = pd.read_csv(clustered / "pairs.csv")
    for _, p in pairs.iterrows():
        d = x[int(p["model_a"][1:])] - x[int(p["model_b"][1:])]
        assert p["se_diff_clustered"] == pytest.approx(100 * _se_clustered(d, clusters), rel=1e-9)
    assert set(pairs["clustered_test"]) == {"randomization"}  # 12 clusters: under 30
    assert (pairs["p_clustered"] >= pairs["p_value"] - 0.5).all() and pairs["p_clustered"].between(0, 1).all()
    summary = json.loads((clustered / "summary.json").read_text())
    c = summary["clusters"]
    assert (c["n_clusters"], c["label"], c["form"]) == (12, "measured", "finite-cluster (C / (C - 1))")
    ranks = pd.read_csv(clustered / "ranks.csv")
    assert {"rank_low_items", "tied_with_best_items", "p_clustered_vs_best"} <= set(ranks.columns)
    assert c["tied_with_best"] == list(ranks.loc[ranks["tied_with_best"], "model"])
    report = (clustered / "report.html").read_text()
    assert "Clustered items (measured): 12 clusters from" in report and "bootstrap over whole clusters" in report


@pytest.mark.slow  # over a second of the fast loop; the lines it checks stay covered by fast tests beside it
def test_without_clusters_only_the_named_outputs_change(tmp_path, matrix, clustered) -> None:
    plain = tmp_path / "plain"
    assert main(["audit", str(matrix[0]), "--correctness", *FAST, "--out", str(plain)]) == 0  # the old spelling
    named = {"accuracy.csv", "pairs.csv", "ranks.csv", "summary.json", "report.html", "summary.md"}
    files = sorted(p.name for p in plain.iterdir() if p.suffix in (".csv", ".json", ".md", ".html"))
    assert files == sorted(p.name for p in clustered.iterdir() if p.suffix in (".csv", ".json", ".md", ".html"))
    for name in set(files) - named - {"rank_intervals.csv"}:
        assert (plain / name).read_bytes() == (clustered / name).read_bytes(), name
    for name in ("accuracy.csv", "pairs.csv"):
        a, b = pd.read_csv(plain / name), pd.read_csv(clustered / name)
        pd.testing.assert_frame_equal(b[list(a.columns)], a)
    a, b = pd.read_csv(plain / "ranks.csv"), pd.read_csv(clustered / "ranks.csv")
    for col in ("rank_low", "rank_high", "tied_with_best"):
        assert (b[f"{col}_items"] == a[col]).all()
    s = json.loads((plain / "summary.json").read_text())
    assert "clusters" not in s and "cluster" not in (plain / "accuracy.csv").read_text()


def test_predictions_clustered_by_position(tmp_path) -> None:
    n = len(np.load(REPO / "config/examples/user_labels.npy"))
    pd.DataFrame({"item": range(n), "cluster": np.arange(n) // 50}).to_csv(tmp_path / "c.csv", index=False)
    argv = [*PREDS, "--clusters", str(tmp_path / "c.csv"), "--lenses", "accuracy", "--out", str(tmp_path / "p")]
    assert main(argv) == 0
    assert json.loads((tmp_path / "p/summary.json").read_text())["clusters"]["n_clusters"] == -(-n // 50)
    assert {"se", "se_clustered", "design_effect"} <= set(pd.read_csv(tmp_path / "p/accuracy.csv").columns)


@pytest.mark.slow
def test_logs_clustered_by_a_field(tmp_path, shared_data) -> None:
    logs = str(shared_data / "evallogs/inspect_starsim")
    argv = ["audit", "logs", logs, "--cluster-by", "problem_id", "--lenses", "accuracy", "--out", str(tmp_path / "l")]
    assert main(argv) == 0
    assert set(pd.read_csv(tmp_path / "l/accuracy.csv")["n_clusters"]) == {6}


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_one_line_errors(tmp_path, capsys, matrix, shared_data) -> None:
    path, csv, _, _ = matrix
    rows = pd.read_csv(csv)
    out = ["--out", str(tmp_path / "o"), *FAST]
    rows.assign(item=rows["item"].replace("q3", "q999")).to_csv(tmp_path / "unknown.csv", index=False)
    assert "not items of this input (first: 'q999'" in _error(
        capsys, ["audit", "matrix", str(path), "--clusters", str(tmp_path / "unknown.csv"), *out]
    )
    rows.iloc[1:].to_csv(tmp_path / "missing.csv", index=False)
    assert "1 of 60 items have no cluster (first: 'q0')" in _error(
        capsys, ["audit", "matrix", str(path), "--clusters", str(tmp_path / "missing.csv"), *out]
    )
    (tmp_path / "header.csv").write_text("item;cluster\n" + "\n".join(f"{i},{c}" for i, c in rows.to_numpy()))
    assert "line 1 has 1 field" in _error(
        capsys, ["audit", "matrix", str(path), "--clusters", str(tmp_path / "header.csv"), *out]
    )
    rows.assign(cluster="all").to_csv(tmp_path / "one.csv", index=False)
    assert "every item is in one cluster" in _error(
        capsys, ["audit", "matrix", str(path), "--clusters", str(tmp_path / "one.csv"), *out]
    )
    assert "file not found" in _error(capsys, ["audit", str(path), "--correctness", "--clusters", "nope.csv", *out])
    assert "only logs carry per-item fields" in _error(
        capsys, ["audit", str(path), "--correctness", "--cluster-by", "topic", *out]
    )
    logs = str(shared_data / "evallogs/inspect_starsim")
    assert "available: problem_id, sub_step_id, test_cases" in _error(
        capsys, ["audit", "logs", logs, "--cluster-by", "topic", *out]
    )
    assert "give one of them" in _error(
        capsys, ["audit", "logs", logs, "--cluster-by", "problem_id", "--clusters", str(csv), *out]
    )
    table = tmp_path / "t.csv"
    pd.DataFrame({"model": ["a", "b"], "v1": [90.0, 80.0], "v2": [85.0, 70.0]}).to_csv(table, index=False)
    argv = ["audit", "--accuracies", str(table), "--columns", "v1", "v2", "--sizes", "100", "100"]
    assert "no per-item results to cluster" in _error(
        capsys, [*argv, "--clusters", str(csv), "--out", str(tmp_path / "t")]
    )
    assert not (tmp_path / "o").exists() and not (tmp_path / "t").exists()


def test_repeated_samples_split_against_a_direct_computation(tmp_path) -> None:
    rng = np.random.default_rng(5)
    m, n = 4, 80
    rates = rng.binomial(m, rng.beta(2, 2, (3, n))) / m  # pass rates over 4 samples per item
    path = tmp_path / "rates.csv"
    pd.DataFrame(rates, index=["a", "b", "c"], columns=[f"q{j}" for j in range(n)]).rename_axis("model").to_csv(path)
    argv = ["audit", "matrix", str(path), "--samples", str(m), "--lenses", "accuracy", "--out", str(tmp_path / "o")]
    assert main(argv) == 0
    split = pd.read_csv(tmp_path / "o/samples.csv").set_index("model")
    for name, p in zip("abc", rates):
        within = (m / (m - 1) * p * (1 - p)).mean()  # each item's sample variance of its m 0/1 samples
        between = p.var(ddof=1) - within / m
        assert split.loc[name, "var_within"] == pytest.approx(within, rel=1e-9)
        assert split.loc[name, "var_between"] == pytest.approx(between, rel=1e-9)
        assert split.loc[name, "m_negligible"] == int(np.ceil(within / (0.1 * between) - 1e-12))
    entry = json.loads((tmp_path / "o/summary.json").read_text())["samples"]
    assert entry["samples"] == m and entry["labels"] == {
        "share_within_median": "measured",
        "m_negligible_median": "rule",
    }
    assert "Repeated samples (measured): with 4 samples per item" in (tmp_path / "o/report.html").read_text()
    plain = tmp_path / "plain"
    assert main(["audit", "matrix", str(path), "--lenses", "accuracy", "--out", str(plain)]) == 0
    assert not (plain / "samples.csv").exists() and "samples" not in json.loads((plain / "summary.json").read_text())
