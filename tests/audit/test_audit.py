"""holdout audit: every lens against an independent computation, the CLI, bad input, no torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from holdout.audit import (
    AuditError,
    AuditOptions,
    new_set_lens,
    run_audit,
    selection_bits,
)
from holdout.audit.cli import main
from holdout.bounds import study as bounds_study
from holdout.predictions import Predictions, save_predictions
from holdout.rvw.core import rvw_bound

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PREDS = REPO / "config/examples/user_predictions.csv"
EXAMPLE_LABELS = REPO / "config/examples/user_labels.npy"


def _with_correct(counts: list[int], n: int, seed: int = 0) -> Predictions:
    """K models on n points of 10 classes; model k right on exactly counts[k] random points."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    preds = np.empty((len(counts), n), dtype=int)
    for k, c in enumerate(counts):
        right = np.zeros(n, bool)
        right[rng.permutation(n)[:c]] = True
        preds[k] = np.where(right, labels, (labels + 1 + rng.integers(0, 9, n)) % 10)
    return Predictions.create(preds, labels, [f"m{k}" for k in range(len(counts))], num_classes=10)


@pytest.mark.slow  # renders five figures as PNG + PDF: > 2 s on the 2-core AVX2 machine
def test_example_command_writes_every_output(tmp_path, capsys):
    out = tmp_path / "audit"
    assert (
        main(["audit", str(EXAMPLE_PREDS), "--labels", str(EXAMPLE_LABELS), "--out", str(out), "--search-size", "3"])
        == 0
    )
    for name in (
        "summary.json",
        "report.html",
        "accuracy.csv",
        "accuracy.png",
        "accuracy.pdf",
        "similarity_pairs.csv",
        "difficulty.png",
        "covering_numbers.csv",
        "bounds.csv",
        "rvw.csv",
        "testable_models.csv",  # the figure only where a bound supports a model at eps (not here)
    ):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    # independent computation from the raw files
    raw = np.loadtxt(EXAMPLE_PREDS, delimiter=",", skiprows=1, dtype=int).T
    labels = np.load(EXAMPLE_LABELS)
    acc = (raw == labels).mean(axis=1)
    assert summary["num_models"] == 3 and summary["n"] == 300
    assert summary["accuracy"]["best"]["accuracy"] == pytest.approx(100 * acc.max())
    wrong = raw != labels
    sims = [np.mean(wrong[i] == wrong[j]) for i, j in ((0, 1), (0, 2), (1, 2))]
    assert summary["similarity"]["mean_similarity"] == pytest.approx(np.mean(sims))
    tm = bounds_study.count_testable_models(300, 1 - acc.mean(), float(np.mean(sims)), 0.01, 0.05)
    assert (summary["bounds"]["union_k"], summary["bounds"]["similarity_k"]) == (tm.union_k, tm.similarity_k)
    assert summary["rvw"]["bits"] == 2  # ceil(log2 3)
    assert summary["rvw"]["bound"] == pytest.approx(rvw_bound(1 - acc.max(), 2, 300))
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 6  # accuracy, rank intervals, pair differences, 3 similarity
    # self-contained and offline: inline script and style only, no address outside the folder
    assert "<script src" not in html and "http://" not in html and "https://" not in html
    assert str(out) not in html and str(REPO) not in html  # the input by its file name only
    assert summary["predictions"] == str(EXAMPLE_PREDS)  # the full path in summary.json
    md = (out / "summary.md").read_text()
    assert md.startswith("# holdout audit: user_predictions\n") and "(measured)" in md and "(theorem)" in md
    assert "[accuracy]" in capsys.readouterr().out


def test_new_set_lens_recovers_an_exact_line():
    # new accuracy = 0.5 * original + 40 (percent) exactly: 600 -> 70, 700 -> 75, 800 -> 80, 900 -> 85
    orig = _with_correct([600, 700, 800, 900], 1000)
    new = _with_correct([140, 150, 160, 170], 200, seed=1)
    lens = new_set_lens(orig, new)
    assert lens.fit is not None
    assert lens.fit.slope == pytest.approx(0.5) and lens.fit.intercept == pytest.approx(40.0)
    assert lens.fit.r_squared == pytest.approx(1.0)
    t = lens.table.set_index("model")
    assert t.loc["m3", "gap"] == pytest.approx(90 - 85) and t.loc["m0", "gap"] == pytest.approx(60 - 70)
    assert t.loc["m0", "error_ratio"] == pytest.approx(30 / 40)
    assert lens.mean_gap == pytest.approx(np.mean([60 - 70, 70 - 75, 80 - 80, 90 - 85]))


def test_new_set_in_other_model_order_is_aligned(tmp_path):
    orig = _with_correct([600, 700, 800], 1000)
    new = _with_correct([150, 160, 170], 200, seed=1)
    shuffled = new.subset(["m2", "m0", "m1"])
    path = tmp_path / "new.npz"
    save_predictions(path, shuffled)
    result = run_audit(orig, AuditOptions(lenses=("accuracy", "new")), new=shuffled, new_source=str(path))
    t = result.new.table.set_index("model")
    assert t.loc["m2", "new_correct"] == 170 and t.loc["m0", "new_correct"] == 150


def test_rvw_bits_from_description_and_search():
    bits, detail = selection_bits(REPO / "config/rvw/batch_norm.yaml", 1000)
    from holdout.rvw.core import description_length

    assert bits == description_length(REPO / "config/rvw/batch_norm.yaml").bits + 10
    assert "grid of 1,000" in detail
    with pytest.raises(AuditError, match="--search-size G"):
        selection_bits()


def _error_line(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err, err
    return err


def test_bad_input_stops_with_one_line(tmp_path, capsys):
    short = tmp_path / "labels.npy"
    np.save(short, np.zeros(299, dtype=int))
    base = ["audit", str(EXAMPLE_PREDS), "--out", str(tmp_path / "o")]
    err = _error_line(capsys, base + ["--labels", str(short)])
    assert "labels.npy" in err and "300 predictions per model but" in err and "299" in err
    bad = tmp_path / "bad_labels.npy"
    np.save(bad, np.full(300, 12))
    err = _error_line(capsys, base + ["--labels", str(bad), "--num-classes", "10"])
    assert "bad_labels.npy" in err and "out of range" in err
    err = _error_line(capsys, base + ["--labels", str(EXAMPLE_LABELS), "--eps", "1.5"])
    assert "--eps must lie in (0, 1)" in err
    one = tmp_path / "one.csv"
    one.write_text("only\n" + "\n".join(str(v) for v in np.load(EXAMPLE_LABELS)) + "\n")
    assert (
        main(["audit", str(one), "--labels", str(EXAMPLE_LABELS), "--out", str(tmp_path / "p"), "--lenses", "accuracy"])
        == 0
    )
    err = _error_line(
        capsys,
        base + ["--labels", str(EXAMPLE_LABELS), "--new-predictions", str(one), "--new-labels", str(EXAMPLE_LABELS)],
    )
    assert "model names differ" in err
    err = _error_line(capsys, ["audit", str(tmp_path / "missing.csv"), "--labels", str(EXAMPLE_LABELS)])
    assert "missing.csv" in err and "not found" in err


def test_help_lists_options_with_defaults(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # one line per option
    with pytest.raises(SystemExit) as exc:
        main(["audit", "predictions", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option, default in (
        ("--eps", "0.01"),
        ("--delta", "0.05"),
        ("--rvw-C", "5000.0"),
        ("--out", "audit"),
        ("--lenses", "accuracy,pairs,new,similarity,bounds,rvw,adversarial,items"),
        ("--rank-resamples", "1000"),
    ):
        line = next(row for row in text.splitlines() if row.strip().startswith(option + " "))
        assert f"(default: {default})" in line, line
    assert "(default: None)" not in text


BLOCK_TORCH = """
import sys
class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('torch', 'torchvision'):
            raise ModuleNotFoundError(f'torch is blocked: {name}')
sys.meta_path.insert(0, _NoTorch())
from holdout.audit.cli import main
code = main(sys.argv[1:])
assert 'torch' not in sys.modules
sys.exit(code)
"""


@pytest.mark.slow
def test_runs_without_torch(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), MPLBACKEND="Agg")
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            BLOCK_TORCH,
            "audit",
            str(EXAMPLE_PREDS),
            "--labels",
            str(EXAMPLE_LABELS),
            "--out",
            str(tmp_path / "o"),
        ],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "o" / "report.html").is_file()


def test_bounds_lens_without_similarity_gain():
    """Models less similar than independent errors: only the union bound (2) applies."""
    from holdout.audit import bounds_lens
    from holdout.audit.report.verdicts import bounds_verdict
    from holdout.bounds.core import union_bound_k

    lens = bounds_lens(10_000, 0.8, 0.60, 0.05, 0.05, 5)  # independent errors: 0.2^2 + 0.8^2 = 0.68
    assert lens.similarity_k is None and lens.naive_bayes_k is None
    assert lens.union_k == union_bound_k(10_000, 1 - 0.8, 0.05, 0.05)
    assert np.isnan(lens.similarity_gain) and lens.covered_by() == "union"
    assert "do not apply" in bounds_verdict(lens) and "68.0%" in bounds_verdict(lens)
    with_gain = bounds_lens(10_000, 0.8, 0.90, 0.05, 0.05, 5)
    assert with_gain.similarity_k >= with_gain.union_k


def test_example_labels_npy_equals_csv():
    from holdout.data import read_user_labels

    assert np.array_equal(read_user_labels(EXAMPLE_LABELS), read_user_labels(REPO / "config/examples/user_labels.csv"))
