"""``holdout audit --correctness`` / ``--accuracies`` / the date options through the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.audit.cli import main
from holdout.similarity.core import pairwise_similarity


def _matrix(tmp_path, values, names=None):
    df = pd.DataFrame(values, columns=[f"q{i}" for i in range(values.shape[1])])
    df.insert(0, "model", names or [f"m{i}" for i in range(values.shape[0])])
    path = tmp_path / "c.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_correctness_audit_of_a_binary_matrix(tmp_path, capsys):
    rng = np.random.default_rng(0)
    v = (rng.random((5, 400)) < np.linspace(0.3, 0.8, 5)[:, None]).astype(int)
    path = _matrix(tmp_path, v)
    assert (
        main(["audit", str(path), "--correctness", "--eps", "0.1", "--search-size", "5", "--out", str(tmp_path / "o")])
        == 0
    )
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert s["num_models"] == 5 and s["n"] == 400
    sim = pairwise_similarity(v == 0)
    assert s["similarity"]["mean_similarity"] == pytest.approx(sim[np.triu_indices(5, 1)].mean())
    assert s["accuracy"]["best_model"] == "m4"
    assert s["bounds"]["union_k"] >= 1 and "rvw" in s
    assert (tmp_path / "o/report.html").is_file()
    assert "[similarity]" in capsys.readouterr().out


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_correctness_pass_rates_and_contamination(tmp_path, capsys):
    rng = np.random.default_rng(1)
    k, n = 10, 1000
    skill = np.r_[np.linspace(0.2, 0.8, 8), 0.4, 0.5]
    v = rng.binomial(10, np.broadcast_to(skill[:, None], (k, n))) / 10
    v[8:, :500] = 1.0  # two late models saw the early items
    path = _matrix(tmp_path, v)
    items = pd.DataFrame({"item": [f"q{i}" for i in range(n)], "date": ["2023-01-01"] * 500 + ["2023-09-01"] * 500})
    items.to_csv(tmp_path / "items.csv", index=False)
    models = pd.DataFrame({"model": [f"m{i}" for i in range(k)], "date": ["2022-01-01"] * 8 + ["2023-06-01"] * 2})
    models.to_csv(tmp_path / "models.csv", index=False)
    args = ["audit", str(path), "--correctness", "--samples", "10", "--out", str(tmp_path / "o"), "--eps", "0.05"]
    args += ["--item-dates", str(tmp_path / "items.csv"), "--model-dates", str(tmp_path / "models.csv")]
    assert main([*args, "--split", "2023-06-01"]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert s["contamination"]["below_line"] == ["m8", "m9"]
    assert s["contamination"]["line_models"] == 8
    assert "[contamination] 2 of 2" in capsys.readouterr().out
    # the verdicts say what their numbers are for pass rates
    assert "Beta-quantile interval on the mean pass rate" in s["accuracy"]["verdict"]
    assert "Clopper-Pearson" not in s["accuracy"]["verdict"]
    assert "expected number of failing models rounds to 0" in s["similarity"]["verdict"]
    assert "heuristic extension" in s["bounds"]["verdict"] and "conservative" in s["bounds"]["verdict"]
    assert "heuristic test" in s["contamination"]["verdict"]
    # expected agreement for pass rates
    p = v
    expected = np.mean(p[0] * p[1] + (1 - p[0]) * (1 - p[1]))
    pairs = pd.read_csv(tmp_path / "o/similarity_pairs.csv")
    assert pairs.loc[0, "similarity"] == pytest.approx(expected)


def test_accuracy_table_audit(tmp_path, capsys):
    x = np.linspace(60, 90, 20)
    y = 100 * stats.norm.cdf(0.95 * stats.norm.ppf(x / 100) - 0.3) + np.tile([0.2, -0.2], 10)
    pd.DataFrame({"model": [f"m{i}" for i in range(20)], "val": x, "v2": y}).to_csv(tmp_path / "t.csv", index=False)
    argv = ["audit", "--accuracies", str(tmp_path / "t.csv"), "--columns", "val", "v2", "--sizes", "50000", "10000"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert s["scale_read_as"] == "percent" and s["n_models"] == 20
    assert s["probit_fit"]["slope"] == pytest.approx(0.95, abs=0.02)
    assert set(s["linear_fit"]) >= {"slope", "intercept", "slope_se", "intercept_se", "n_models"}
    assert len(pd.read_csv(tmp_path / "o/models.csv")) == 20
    assert "[new] 20 models" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        ("model,q1,q2\na,1,0\nb,1,1.5\n", ["--correctness"], "outside [0, 1]"),
        ("model,q1,q2\na,1,0\nb,1\n", ["--correctness"], "row 3 has 1 values"),
        ("model,q1,q2\na,1,0\na,1,1\n", ["--correctness"], "duplicate model name 'a'"),
        ("model,q1,q2\na,1,0\nb,1,nan\n", ["--correctness"], "NaN or missing value"),
        ("model,q1,q2\na,0.5,0\nb,1,0.25\n", ["--correctness", "--samples", "2"], "not a multiple of 1/2"),
        ("model,q1,q2\na,1,0\nb,1,1\n", ["--correctness", "--split", "2023-01-01"], "go together"),
    ],
)
def test_bad_correctness_input_is_one_line(tmp_path, capsys, content, argv, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["audit", str(path), *argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("model,val,v2\na,70,60\nb,80,x\nc,75,65\n", "model 'b' has a missing or non-numeric accuracy"),
        ("model,val,v2\na,70,60\na,80,70\nc,75,65\n", "duplicate model name 'a'"),
        ("name,val,v2\na,70,60\n", "needs a 'model' column"),
        ("model,val\na,70\n", "no column 'v2'"),
        ("model,val,v2\na,70,60\nb,80,170\nc,75,65\n", "model 'b' has 170 in column 'v2'; accuracies in percent"),
    ],
)
def test_bad_accuracy_table_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "t.csv"
    path.write_text(content)
    argv = ["audit", "--accuracies", str(path), "--columns", "val", "v2", "--sizes", "100", "100"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(path) in err and "\n" not in err


@pytest.mark.slow
def test_npy_with_model_names_dates_by_item_number_and_adaptive(tmp_path, capsys):
    rng = np.random.default_rng(4)
    v = (rng.random((6, 300)) < np.linspace(0.4, 0.8, 6)[:, None]).astype(np.int8)
    np.save(tmp_path / "c.npy", v)
    pd.DataFrame({"item": range(1, 301), "date": ["2023-01-01"] * 150 + ["2023-06-01"] * 150}).to_csv(
        tmp_path / "items.csv", index=False
    )
    pd.DataFrame({"model": list("abcdef"), "date": ["2022-01-01"] * 5 + ["2023-09-01"]}).to_csv(
        tmp_path / "models.csv", index=False
    )
    argv = ["audit", str(tmp_path / "c.npy"), "--correctness", "--model-names", "a,b,c,d,e,f", "--adaptive"]
    argv += ["--item-dates", str(tmp_path / "items.csv"), "--model-dates", str(tmp_path / "models.csv")]
    assert main([*argv, "--split", "2023-03-01", "--eps", "0.1", "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert s["accuracy"]["best_model"] == "f" and "adaptive" in s
    assert s["contamination"]["line_models"] == 5 and s["contamination"]["n_original_items"] == 150
    assert "[adaptive]" in capsys.readouterr().out


@pytest.mark.slow
def test_pass_rates_skip_the_adaptive_lens_with_a_note(tmp_path):
    path = _matrix(tmp_path, np.array([[0.5, 1.0, 0.0], [0.0, 0.5, 1.0], [1.0, 0.5, 0.5]]))
    assert main(["audit", str(path), "--correctness", "--adaptive", "--eps", "0.3", "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert "adaptive" not in s and any("Adaptive analyst lens: not run" in n for n in s["notes"])


@pytest.mark.slow
def test_adaptive_with_fewer_models_than_its_subset_size(tmp_path, capsys):
    """3 models, fewer than the selective-ensembling attack's 5 per ensemble: the ensembles shrink
    to the 3 models (with a note), as in the predictions audit, instead of a traceback."""
    rng = np.random.default_rng(5)
    v = (rng.random((3, 200)) < np.array([[0.6], [0.7], [0.8]])).astype(int)
    path = _matrix(tmp_path, v)
    assert main(["audit", str(path), "--correctness", "--adaptive", "--eps", "0.2", "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert "adaptive" in s and (tmp_path / "o/adaptive/table.csv").is_file()
    assert any("votes over all 3 models" in n for n in s["notes"])
    assert "[adaptive]" in capsys.readouterr().out


def test_adaptive_with_an_accuracy_table_is_refused(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("model,a,b\nx,80,70\ny,85,76\nz,90,83\n")
    argv = ["audit", "--accuracies", str(path), "--columns", "a", "b", "--sizes", "1000", "1000", "--adaptive"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--adaptive needs per-item results" in err and "\n" not in err and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_bounds_verdict_names_the_eps_needed(tmp_path, capsys):
    """The correctness audit's bounds lens is the predictions audit's: the eps at which all K models
    are guaranteed (union bound, Mania et al. (2)) is computed, not printed as nan."""
    from holdout.audit.engines.bounds_eps import eps_needed

    rng = np.random.default_rng(6)
    v = (rng.random((2, 100)) < 0.7).astype(int)
    path = _matrix(tmp_path, v)
    assert main(["audit", str(path), "--correctness", "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    error = 1 - v.mean()
    sim = float((v[0] == v[1]).mean())
    assert s["bounds"]["union_eps"] == pytest.approx(eps_needed(100, error, sim, 2, 0.05).union)
    assert "nan" not in s["bounds"]["verdict"] and "nan" not in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("values", "why"),
    [
        (np.tile([[1, 0, 1, 1, 0, 1, 1, 1, 0, 1]], (3, 1)), "the models make identical mistakes"),
        (np.ones((3, 10), dtype=int), "every model is right on every test point"),
    ],
)
def test_degenerate_matrices_mark_the_bounds_not_applicable(tmp_path, capsys, values, why):
    path = _matrix(tmp_path, values)
    assert main(["audit", str(path), "--correctness", "--eps", "0.3", "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert "bounds" not in s
    assert any(n.startswith(f"Testable models (bounds): not applicable because {why}") for n in s["notes"])
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--labels", "y.npy", "--num-classes", "5"], "--labels, --num-classes: not read by --correctness"),
        (["--search-size", "1e400"], "--search-size must be a whole number of configurations in [1, 1e300], got 1e400"),
        (["--search-size", "abc"], "--search-size must be a whole number"),
        (["--search-size", "4", "--rvw-C", "nan"], "--rvw-C must be a finite number of bits >= 1"),
    ],
)
def test_correctness_options_checked_in_one_line(tmp_path, capsys, extra, message):
    path = _matrix(tmp_path, (np.random.default_rng(7).random((3, 50)) < 0.6).astype(int))
    assert main(["audit", str(path), "--correctness", *extra, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_correctness_search_size_in_scientific_notation(tmp_path):
    path = _matrix(tmp_path, (np.random.default_rng(8).random((3, 50)) < 0.6).astype(int))
    assert main(["audit", str(path), "--correctness", "--search-size", "1e6", "--out", str(tmp_path / "o")]) == 0
    assert json.loads((tmp_path / "o/summary.json").read_text())["rvw"]["bits"] == 20


def test_accuracy_table_refuses_options_it_does_not_read(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("model,a,b\nx,80,70\ny,85,76\nz,90,83\n")
    argv = ["audit", "--accuracies", str(path), "--columns", "a", "b", "--sizes", "1000", "1000", "--search-size", "4"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    assert "--search-size: not read by --accuracies" in capsys.readouterr().err
