"""``holdout audit --accuracies ... --reference-models`` (ConStat's reference-benchmark lens) and
``--new-predictions`` without ``--new-labels`` (agreement on the line), end to end and refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from holdout.audit.cli import main


def _table(tmp_path, offset=0.12):
    x = np.r_[np.linspace(0.3, 0.8, 10), 0.5, 0.6]
    y = x**1.5
    y[-1] += offset
    names = [f"ref{i}" for i in range(10)] + ["on_curve", "above"]
    path = tmp_path / "table.csv"
    pd.DataFrame({"model": names, "mathqa": 100 * x, "gsm8k": 100 * y}).to_csv(path, index=False)
    refs = tmp_path / "refs.txt"
    refs.write_text("\n".join(names[:10]) + "\n")
    return path, refs


@pytest.mark.slow
def test_reference_lens_from_a_table(tmp_path):
    table, refs = _table(tmp_path)
    out = tmp_path / "out"
    args = ["audit", "--accuracies", str(table), "--columns", "mathqa", "gsm8k", "--sizes", "2000", "1319"]
    assert main([*args, "--reference-models", str(refs), "--n-bootstrap", "300", "--out", str(out)]) == 0
    lens = pd.read_csv(out / "reference_lens.csv").set_index("model")
    expected = {"reference", "benchmark", "predicted", "delta", "delta_low", "delta_high", "p_value", "p_holm"}
    assert expected <= set(lens.columns) and list(lens.index) == ["on_curve", "above"]
    assert lens.loc["above", "delta"] == pytest.approx(12, abs=2)  # percent, as the table
    assert lens.loc["above", "p_holm"] < 0.05 and lens.loc["on_curve", "p_holm"] > 0.05
    summary = json.loads((out / "summary.json").read_text())
    assert summary["reference"]["bootstrap"] == "parametric binomial bootstrap"
    assert summary["reference"]["above_curve_holm"] == ["above"]
    html, md = (out / "report.html").read_text(), (out / "summary.md").read_text()  # the lens in the report
    assert "<h2 id='reference'>" in html and "href='reference_lens.csv' download" in html
    assert "- **Reference benchmark** (heuristic): 1 of 2 models above the curve" in md


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--reference-models", "missing.txt"], "--reference-models missing.txt: file not found"),
        (["--fit", "probit"], "--fit is an option of the reference lens: add --reference-models FILE"),
    ],
)
def test_reference_lens_refusals(tmp_path, capsys, monkeypatch, extra, message):
    table, _ = _table(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["audit", "--accuracies", str(table), "--columns", "mathqa", "gsm8k", "--sizes", "2000", "1319"]
    assert main([*args, *extra, "--out", str(tmp_path / "o")]) != 0
    assert message in capsys.readouterr().err


def test_reference_models_from_a_role_column(tmp_path, capsys):
    from holdout.audit.reference_lens import read_reference_models

    table, _ = _table(tmp_path)
    df = pd.read_csv(table)
    df["role"] = ["reference"] * 10 + ["test", "test"]
    df.to_csv(table, index=False)
    mask = read_reference_models("column:role", df["model"], str(table))
    assert mask.tolist() == [True] * 10 + [False, False]
    args = ["audit", "--accuracies", str(table), "--columns", "mathqa", "gsm8k", "--sizes", "2000", "1319"]
    assert main([*args, "--reference-models", "column:kind", "--out", str(tmp_path / "o")]) != 0
    assert "has no column 'kind'" in capsys.readouterr().err


def test_too_few_reference_models_refused(tmp_path, capsys):
    table, refs = _table(tmp_path)
    refs.write_text("ref0\nref1\nref2\nref3\n")
    args = ["audit", "--accuracies", str(table), "--columns", "mathqa", "gsm8k", "--sizes", "2000", "1319"]
    assert main([*args, "--reference-models", str(refs), "--out", str(tmp_path / "o")]) != 0
    assert "4 reference models; ConStat's test needs at least 5" in capsys.readouterr().err


def _predictions(tmp_path, rng, n, shift, name):
    labels = rng.integers(0, 10, n)
    skill = np.linspace(0.5, 0.9, 6) - shift
    preds = np.where(rng.random((6, n)) < skill[:, None], labels, rng.integers(0, 10, (6, n)))
    path = tmp_path / f"{name}.csv"
    pd.DataFrame(preds.T, columns=[f"m{i}" for i in range(6)]).to_csv(path, index=False)
    np.save(tmp_path / f"{name}_labels.npy", labels)
    return path, tmp_path / f"{name}_labels.npy"


@pytest.mark.slow
def test_aline_from_unlabeled_new_predictions(tmp_path):
    rng = np.random.default_rng(0)
    orig, labels = _predictions(tmp_path, rng, 3000, 0.0, "orig")
    new, new_labels = _predictions(tmp_path, rng, 2000, 0.1, "new")
    out = tmp_path / "out"
    assert main(["audit", str(orig), "--labels", str(labels), "--new-predictions", str(new), "--out", str(out)]) == 0
    a = pd.read_csv(out / "aline.csv")
    assert list(a.columns) == ["model", "accuracy_original", "aline_s", "aline_d"]
    assert (a["aline_d"] < a["accuracy_original"]).all()  # the new set is harder: predicted without labels
    assert "aline" in json.loads((out / "summary.json").read_text())
    out2 = tmp_path / "out2"
    argv = ["audit", str(orig), "--labels", str(labels), "--new-predictions", str(new), "--new-labels", str(new_labels)]
    assert main([*argv, "--out", str(out2)]) == 0
    assert "accuracy_new" in pd.read_csv(out2 / "aline.csv").columns


def test_unlabeled_new_predictions_of_other_models_refused(tmp_path, capsys):
    rng = np.random.default_rng(1)
    orig, labels = _predictions(tmp_path, rng, 300, 0.0, "orig")
    new, _ = _predictions(tmp_path, rng, 200, 0.1, "new")
    df = pd.read_csv(new).rename(columns={"m0": "other"})
    df.to_csv(new, index=False)
    assert (
        main(["audit", str(orig), "--labels", str(labels), "--new-predictions", str(new), "--out", str(tmp_path / "o")])
        != 0
    )
    assert "the models differ from PREDICTIONS'" in capsys.readouterr().err


def _matrices(tmp_path, rng):
    """Two 0/1 matrices of 8 models (the last one 15 points better on the benchmark than its skill)."""
    skill = np.linspace(0.3, 0.8, 8)
    bench_p = skill.copy()
    bench_p[-1] = min(bench_p[-1] + 0.15, 0.99)
    names = [f"m{i}" for i in range(8)]
    paths = []
    for name, p, n in (("ref", skill, 800), ("bench", bench_p, 600)):
        m = (rng.random((8, n)) < p[:, None]).astype(int)
        df = pd.DataFrame(m, columns=[f"item{j}" for j in range(n)])
        df.insert(0, "model", names)
        df.to_csv(tmp_path / f"{name}.csv", index=False)
        paths.append(tmp_path / f"{name}.csv")
    refs = tmp_path / "refs.txt"
    refs.write_text("\n".join(names[:6]))
    return (*paths, refs)


@pytest.mark.slow
def test_item_level_reference_lens_from_two_matrices(tmp_path):
    ref, bench, refs = _matrices(tmp_path, np.random.default_rng(3))
    out = tmp_path / "out"
    argv = ["audit", str(bench), "--correctness", "--reference-correctness", str(ref), "--reference-models", str(refs)]
    assert main([*argv, "--fit", "probit", "--n-bootstrap", "300", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["reference"]["bootstrap"] == "item bootstrap" and summary["reference"]["tested_models"] == 2
    assert "<h2 id='reference'>" in (out / "report.html").read_text()  # in the report with the other lenses
    assert "- **Reference benchmark** (heuristic): " in (out / "summary.md").read_text()
    lens = pd.read_csv(out / "reference_lens.csv").set_index("model")
    assert lens.loc["m7", "delta"] > 0.05 and lens.loc["m7", "delta_low"] > 0


def test_reference_correctness_needs_its_partners(tmp_path, capsys):
    ref, bench, refs = _matrices(tmp_path, np.random.default_rng(4))
    argv = ["audit", str(bench), "--correctness", "--reference-correctness", str(ref), "--out", str(tmp_path / "o")]
    assert main(argv) != 0
    assert "--reference-correctness: the reference-benchmark lens needs" in capsys.readouterr().err
