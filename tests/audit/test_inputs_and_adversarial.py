"""Audit inputs as researchers have them (score and top-k arrays, 1-based labels, chance, bad
paths) and the adversarial lens from a translations file (Werpachowski et al. 2019)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from holdout.adversarial.stats import n_model_test, pairwise_test
from holdout.adversarial.translations_file import attacks_from_translations, read_translations
from holdout.audit.cli import main
from holdout.audit.engines.adversarial_lens import adversarial_lens

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_TRANSLATIONS = REPO / "config/examples/seeds_translations.npz"


def _error_line(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err, err
    return err


@pytest.fixture
def small(tmp_path):
    """2 models, 4 points, 3 classes; hand-made so that accuracies are 3/4 and 2/4."""
    labels = np.array([0, 1, 2, 1])
    np.save(tmp_path / "labels.npy", labels)
    return tmp_path, labels


def _summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def test_scores_array_argmax_and_report_says_so(small):
    tmp, labels = small
    scores = np.array(
        [
            [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7], [0.5, 0.4, 0.1]],  # argmax 0 1 2 0: 3/4
            [[0.1, 0.8, 0.1], [0.2, 0.7, 0.1], [0.6, 0.2, 0.2], [0.3, 0.6, 0.1]],  # argmax 1 1 0 1: 2/4
        ]
    )
    np.save(tmp / "scores.npy", scores)
    out = tmp / "out"
    argv = ["audit", str(tmp / "scores.npy"), "--labels", str(tmp / "labels.npy"), "--out", str(out)]
    assert main([*argv, "--lenses", "accuracy"]) == 0
    s = _summary(out)
    assert s["accuracy"]["best"]["accuracy"] == pytest.approx(75.0)
    assert "float scores" in s["inputs"][0] and "argmax" in s["inputs"][0]
    assert "argmax" in (out / "report.html").read_text()


def test_topk_array_uses_column_0(small):
    tmp, labels = small
    top2 = np.array([[[0, 1], [1, 0], [2, 1], [1, 2]], [[1, 0], [0, 1], [2, 0], [0, 1]]])  # top-1: 4/4, 1/4
    np.save(tmp / "top2.npy", top2)
    out = tmp / "out"
    assert main(["audit", str(tmp / "top2.npy"), "--labels", str(tmp / "labels.npy"), "--out", str(out),
                 "--lenses", "accuracy"]) == 0  # fmt: skip
    s = _summary(out)
    assert s["accuracy"]["best"]["accuracy"] == pytest.approx(100.0)
    assert "top-2" in s["inputs"][0] and "column 0" in s["inputs"][0]
    assert "at or below chance" in s["warnings"][0]  # model_1: 25% < 1/3
    assert "Warning:" in (out / "report.html").read_text()


def test_scores_option_refuses_integer_topk_and_2d(small, capsys):
    tmp, _ = small
    np.save(tmp / "p.npy", np.array([[0, 1, 2, 1]]))
    argv = ["audit", str(tmp / "p.npy"), "--labels", str(tmp / "labels.npy"), "--out", str(tmp / "o")]
    err = _error_line(capsys, [*argv, "--scores"])
    assert err.endswith("p.npy: expected a K x n x C score or K x n x k top-k array, got shape (1, 4)")


def test_one_based_labels_stop_with_the_cause(tmp_path, capsys):
    y0 = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9] * 3)
    preds = np.stack([y0, y0, np.roll(y0, 1)])  # accuracies 100%, 100%, 0% against 0-based labels
    np.save(tmp_path / "p.npy", preds)
    np.save(tmp_path / "labels1.npy", y0 + 1)  # 1..10
    err = _error_line(capsys, ["audit", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "labels1.npy"),
                               "--out", str(tmp_path / "o")])  # fmt: skip
    # by hand: against y0 + 1 no model is ever right (roll(y0, 1)[i] = y0[i] - 1 mod 10), so 0.0% as given;
    # against labels - 1 = y0 the accuracies are 1, 1, 0: mean 66.7%
    assert "labels look 1-based (1..10, no 0)" in err and "mean accuracy 0.0% as given, 66.7% with labels - 1" in err


def test_directory_and_unwritable_out_are_named(small, capsys):
    tmp, _ = small
    err = _error_line(capsys, ["audit", str(tmp), "--labels", str(tmp / "labels.npy"), "--out", str(tmp / "o")])
    assert err.endswith("is a directory, not a predictions file (give the .csv, .npy or .npz inside)")
    assert "predictions " in err
    np.save(tmp / "p.npy", np.array([[0, 1, 2, 1], [0, 1, 2, 0]]))
    err = _error_line(capsys, ["audit", str(tmp / "p.npy"), "--labels", str(tmp / "labels.npy"), "--out", "/proc/x"])
    assert err.startswith("holdout audit: error: --out /proc/x: cannot create or write this folder (")
    assert "Errno" not in err


def test_adversarial_lens_on_the_example_equals_the_stats_functions():
    """Every number of the lens is holdout.adversarial.stats on the attacks from the file."""
    data = read_translations(EXAMPLE_TRANSLATIONS)
    assert data.predictions.shape == (4, 300, 49) and data.eps == 1.0
    lens = adversarial_lens(EXAMPLE_TRANSLATIONS)
    assert set(lens.pairwise["aeg"]) == {"strongest", "nearest", "random", "random2"} and not lens.skipped
    ts = []
    for k, model in enumerate(data.models):
        res = attacks_from_translations(data, k)
        t = res.t_statistic("strongest")
        ts.append(t)
        row = lens.pairwise[(lens.pairwise["model"] == model) & (lens.pairwise["aeg"] == "strongest")].iloc[0]
        assert row["R_S"] == pytest.approx(res.losses.mean())
        assert row["p_value"] == pytest.approx(pairwise_test(t, 1.5, (-1.0, 0.5)).p_value)
        assert row["R_g"] - row["R_S"] == pytest.approx(t.mean())
    nm = lens.n_model[lens.n_model["aeg"] == "strongest"].iloc[0]
    assert nm["p_value"] == pytest.approx(n_model_test(np.stack(ts), 1.5, expected_range=(-1.0, 0.5)).p_value)


def test_audit_cli_with_translations(tmp_path):
    data = read_translations(EXAMPLE_TRANSLATIONS)
    centre = int(np.flatnonzero(np.all(data.vectors == 0, axis=1))[0])
    np.save(tmp_path / "p.npy", data.predictions[:, :, centre])
    np.save(tmp_path / "y.npy", data.labels)
    out = tmp_path / "out"
    argv = ["audit", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy"), "--out", str(out)]
    argv += ["--model-names", ",".join(data.models)]
    assert main([*argv, "--translations", str(EXAMPLE_TRANSLATIONS), "--lenses", "accuracy,adversarial"]) == 0
    s = _summary(out)
    assert s["adversarial"]["aegs"] == ["strongest", "nearest", "random", "random2"]
    assert (out / "adversarial_pvalues.png").is_file() and (out / "adversarial_n_model.csv").is_file()
    assert "Adversarial overfitting test" in (out / "report.html").read_text()


def test_translations_with_other_labels_refused(tmp_path, capsys):
    data = read_translations(EXAMPLE_TRANSLATIONS)
    np.save(tmp_path / "p.npy", data.predictions[:, :, 0])
    np.save(tmp_path / "y.npy", (data.labels + 1) % 10)
    err = _error_line(capsys, ["audit", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy"),
                               "--translations", str(EXAMPLE_TRANSLATIONS), "--lenses", "accuracy,adversarial",
                               "--model-names", ",".join(data.models), "--out", str(tmp_path / "o")])  # fmt: skip
    assert "its labels (fingerprint" in err and "differ from those of" in err
