"""holdout audit on careless or degenerate input, second probe: agreement on the line, paths on the
command line, the reference lens's degenerate tables, names that are not plain text, and the pairs
lens at scale. Each case: the right result, or one clear line (exit 2), no traceback, no file lost."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from holdout.audit.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from logfiles import five_lmeval_runs  # noqa: E402

ACC = ["--lenses", "accuracy"]


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


def _predictions(tmp_path: Path, k: int = 4, n: int = 300, n_new: int = 200, seed: int = 0) -> list[str]:
    """K models of rising skill on a labeled set (p.npy, y.npy) and on a newer, unlabeled one (new.npy)."""
    rng = np.random.default_rng(seed)
    y, y_new = rng.integers(0, 5, n), rng.integers(0, 5, n_new)
    skills = np.linspace(0.5, 0.8, k)
    p = np.stack([np.where(rng.random(n) < a, y, (y + 1 + rng.integers(0, 4, n)) % 5) for a in skills])
    q = np.stack(
        [np.where(rng.random(n_new) < a - 0.1, y_new, (y_new + 1 + rng.integers(0, 4, n_new)) % 5) for a in skills]
    )
    np.save(tmp_path / "p.npy", p)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "new.npy", q)
    np.save(tmp_path / "y_new.npy", y_new)
    return ["audit", str(tmp_path / "p.npy"), "--labels", str(tmp_path / "y.npy")]


# --- agreement on the line (--new-predictions without --new-labels) -----------------------------


def test_agreement_on_the_line_is_in_the_report_summary_and_terminal(tmp_path, capsys):
    argv = _predictions(tmp_path)
    out = tmp_path / "o"
    assert main([*argv, *ACC, "--new-predictions", str(tmp_path / "new.npy"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    md, html = (out / "summary.md").read_text(), (out / "report.html").read_text()
    assert "[aline] " in printed and "ALine-D" in printed
    assert "Agreement on the line" in md and "ALine-D" in md
    assert "New test set: not run" not in html and "ALine-D" in html
    assert "aline" in json.loads((out / "summary.json").read_text())


def test_agreement_on_the_line_with_two_models_says_why(tmp_path, capsys):
    argv = _predictions(tmp_path, k=2)
    out = tmp_path / "o"
    assert main([*argv, *ACC, "--new-predictions", str(tmp_path / "new.npy"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "agreement on the line needs at least 3 models" in printed
    assert "needs at least 3 models" in json.loads((out / "summary.json").read_text())["aline"]["skipped"]
    assert "needs at least 3 models" in (out / "summary.md").read_text()


def _degenerate(tmp_path: Path, case: str) -> list[str]:
    argv = _predictions(tmp_path)
    p, y, q = (np.load(tmp_path / f) for f in ("p.npy", "y.npy", "new.npy"))
    if case == "identical models":
        p, q = np.stack([p[0]] * 4), np.stack([q[0]] * 4)
    elif case == "every model at 100%":
        p = np.stack([y] * 4)
    elif case == "one-item new set":
        q = q[:, :1]
    np.save(tmp_path / "p.npy", p)
    np.save(tmp_path / "new.npy", q)
    return argv


@pytest.mark.parametrize("case", ["identical models", "every model at 100%", "one-item new set"])
def test_degenerate_agreement_line_gives_no_estimate(tmp_path, capsys, case):
    argv = _degenerate(tmp_path, case)
    out = tmp_path / "o"
    assert main([*argv, *ACC, "--new-predictions", str(tmp_path / "new.npy"), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    entry = json.loads((out / "summary.json").read_text())["aline"]
    assert "skipped" in entry and "mean_aline_d" not in entry, entry
    assert "nan" not in entry["skipped"] and "R^2 = nan" not in captured.out
    assert not (out / "aline.csv").exists()
    assert "RankWarning" not in captured.err and "Traceback" not in captured.err


# --- paths on the command line -----------------------------------------------------------------


def test_out_inside_a_logs_folder_is_refused_even_with_force(tmp_path, capsys):
    five_lmeval_runs(tmp_path / "logs", n=40)
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "logs").rglob("*"))
    for out in (tmp_path / "logs" / "org__model-a", tmp_path / "logs" / "audit", tmp_path / "logs"):
        err = _error(
            capsys, ["audit", "--logs", str(tmp_path / "logs"), "--metric", "acc", *ACC, "--out", str(out), "--force"]
        )
        assert "--out" in err and "inside the input" in err and str(tmp_path / "logs") in err
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "logs").rglob("*")) == before


def test_out_with_a_tilde_is_the_home_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    monkeypatch.chdir(tmp_path)
    argv = _predictions(tmp_path)
    assert main([*argv, *ACC, "--out", "~/audit"]) == 0
    assert (tmp_path / "home" / "audit" / "report.html").is_file() and not (tmp_path / "~").exists()
    labels = "~/" + os.path.relpath(tmp_path / "y.npy", tmp_path / "home")
    assert main(["audit", str(tmp_path / "p.npy"), "--labels", labels, *ACC, "--out", "~/audit2"]) == 0


def test_the_same_logs_folder_given_three_ways_is_read_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    five_lmeval_runs(tmp_path / "logs", n=40)
    argv = ["audit", "--logs", "logs", "./logs/", str(tmp_path / "logs"), "--metric", "acc", *ACC]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert "and 5 more" not in err  # the 5 aggregate files are named once each, not three times
    for k in "abcde":
        assert err.count(f"org__model-{k}/results_") <= 1
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["num_models"] == 5


def test_reference_models_beside_logs_refused(tmp_path, capsys):
    five_lmeval_runs(tmp_path / "logs", n=40)
    refs = tmp_path / "refs.txt"
    refs.write_text("org/model-a\n")
    argv = ["audit", "--logs", str(tmp_path / "logs"), "--metric", "acc", *ACC, "--out", str(tmp_path / "o")]
    err = _error(capsys, [*argv, "--reference-models", str(refs)])
    assert "--reference-models" in err and "--logs" in err
    assert not (tmp_path / "o").exists()


# --- the reference lens on degenerate tables ---------------------------------------------------


def _table(tmp_path: Path, tied: bool = False, bom: bool = False) -> list[str]:
    x = np.r_[np.linspace(0.3, 0.8, 10), 0.5, 0.6]
    if tied:
        x[:10] = 0.5
    y = x**1.5
    names = [f"ref{i}" for i in range(10)] + ["on_curve", "above"]
    pd.DataFrame({"model": names, "mathqa": 100 * x, "gsm8k": 100 * y}).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "refs.txt").write_text("\n".join(names[:10]) + "\n", encoding="utf-8-sig" if bom else "utf-8")
    return ["audit", "--accuracies", str(tmp_path / "t.csv"), "--columns", "mathqa", "gsm8k", "--n-bootstrap", "100"]


def test_reference_file_with_a_byte_order_mark(tmp_path):
    argv = _table(tmp_path, bom=True)
    refs = str(tmp_path / "refs.txt")
    assert main([*argv, "--sizes", "2000", "1319", "--reference-models", refs, "--out", str(tmp_path / "o")]) == 0
    assert json.loads((tmp_path / "o/summary.json").read_text())["reference"]["reference_models"] == 10


@pytest.mark.parametrize("fit", ["spline", "probit"])
def test_tied_reference_accuracies_named_from_the_table(tmp_path, capfd, fit):
    argv = _table(tmp_path, tied=True)
    refs = str(tmp_path / "refs.txt")
    rc = main(
        [*argv, "--sizes", "2000", "1319", "--fit", fit, "--reference-models", refs, "--out", str(tmp_path / "o")]
    )
    err = capfd.readouterr().err.strip()
    assert rc == 2 and "\n" not in err, err  # no LAPACK "On entry to DLASCL" lines
    assert "1 distinct mathqa accuracy" in err and "10 reference models" in err
    assert not (tmp_path / "o").exists()


def test_item_level_reference_lens_on_identical_rows(tmp_path, capfd):
    rng = np.random.default_rng(0)
    names = [f"m{i}" for i in range(8)]
    row = (rng.random(200) < 0.6).astype(int)
    for name, m in (("ref", np.stack([row] * 8)), ("bench", (rng.random((8, 150)) < 0.5).astype(int))):
        df = pd.DataFrame(m, columns=[f"i{j}" for j in range(m.shape[1])])
        df.insert(0, "model", names)
        df.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "refs.txt").write_text("\n".join(names[:6]))
    argv = ["audit", str(tmp_path / "bench.csv"), "--correctness", "--reference-correctness", str(tmp_path / "ref.csv")]
    rc = main(
        [*argv, "--reference-models", str(tmp_path / "refs.txt"), "--n-bootstrap", "100", "--out", str(tmp_path / "o")]
    )
    err = capfd.readouterr().err.strip()
    assert rc == 2 and "\n" not in err and "1 distinct" in err, err


# --- names that are not plain text ------------------------------------------------------------


def test_dollar_signs_in_model_names_are_drawn_as_written(tmp_path, capsys):
    argv = _predictions(tmp_path)
    out = tmp_path / "o"
    names = "m$_$1,b$^$,cost $5 vs $10,d"
    assert main([*argv, "--model-names", names, "--lenses", "accuracy,pairs", "--out", str(out)]) == 0
    assert "m$_$1" in pd.read_csv(out / "accuracy.csv")["model"].tolist()


def test_control_characters_in_names_never_reach_the_terminal(tmp_path, capsys):
    argv = _predictions(tmp_path)
    out = tmp_path / "o"
    names = "\x1b[31mred\x1b[0m,b,c,\x1b]0;title\x07d"
    assert main([*argv, "--model-names", names, "--lenses", "accuracy,pairs", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", stream), stream
    assert "\\x1b[31mred" in captured.out  # escaped, still recognisable
    assert "\x1b[31mred\x1b[0m" in pd.read_csv(out / "accuracy.csv")["model"].tolist()  # the files keep the name


# --- the pairs lens at scale: pairs.csv holds what the report reads unless --all-pairs -----------


@pytest.mark.slow
def test_pairs_csv_beyond_50_models_holds_the_pairs_the_report_reads(tmp_path):
    k, n = 60, 40
    rng = np.random.default_rng(2)
    m = (rng.random((k, n)) < np.linspace(0.2, 0.9, k)[:, None]).astype(int)
    df = pd.DataFrame(m, columns=[f"i{j}" for j in range(n)])
    df.insert(0, "model", [f"m{i:02d}" for i in range(k)])
    df.to_csv(tmp_path / "c.csv", index=False)
    argv = ["audit", str(tmp_path / "c.csv"), "--correctness", "--rows", "models", "--lenses", "accuracy,pairs"]
    argv += ["--rank-resamples", "50"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    pairs = pd.read_csv(tmp_path / "o" / "pairs.csv")
    order = pd.read_csv(tmp_path / "o" / "ranks.csv")["model"].tolist()
    assert len(pairs) == 2 * k - 3
    got = {frozenset(p) for p in zip(pairs["model_a"], pairs["model_b"])}
    expected = {frozenset((order[0], m)) for m in order[1:]} | {frozenset(p) for p in zip(order, order[1:])}
    assert got == expected
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())["pairs"]
    assert summary["num_pairs"] == k * (k - 1) // 2 and "--all-pairs writes every pair" in summary["pairs_csv"]
    assert main([*argv, "--all-pairs", "--out", str(tmp_path / "all")]) == 0
    assert len(pd.read_csv(tmp_path / "all" / "pairs.csv")) == k * (k - 1) // 2


# --- twenty more inputs of the same kind: each one clear line ------------------------------------


def _inputs(tmp_path: Path) -> None:
    """The files the cases below name, in ``tmp_path`` (the working folder)."""
    _predictions(tmp_path, n=60)
    p, y = np.load(tmp_path / "p.npy"), np.load(tmp_path / "y.npy")
    pd.DataFrame(p.T, columns=list("abcd")).to_csv(tmp_path / "p.csv", index=False)
    pd.DataFrame(p.T, columns=list("abcd")).to_csv(tmp_path / "p16.csv", index=False, encoding="utf-16")
    np.save(tmp_path / "y_nan.npy", np.where(np.arange(y.size) == 3, np.nan, y))
    np.save(tmp_path / "none.npy", np.zeros((0, y.size), dtype=int))
    np.save(tmp_path / "neg.npy", p - 2)
    np.save(tmp_path / "bool.npy", p > 1)
    (tmp_path / "y_head.csv").write_text("label\n")
    pd.DataFrame({"y": y, "z": y}).to_csv(tmp_path / "y2.csv", index=False)
    (tmp_path / "dup.csv").write_text("a,a,b\n" + "0,1,0\n" * y.size)
    acc = {"model": list("abcde"), "o": [50, 60, 70, 80, 90], "nw": [40, 50, 60, 70, 80]}
    pd.DataFrame(acc).to_csv(tmp_path / "acc.csv", index=False)
    pd.DataFrame(acc | {"model": list("abcda")}).to_csv(tmp_path / "acc_dup.csv", index=False)
    pd.DataFrame(acc | {"o": [50, 60, None, 80, 90]}).to_csv(tmp_path / "acc_nan.csv", index=False)
    (tmp_path / "folder").mkdir()


P = ["p.npy", "--labels", "y.npy"]
TABLE = ["--columns", "o", "nw", "--sizes", "100", "100"]
MORE_INPUTS = [
    ("labels with a NaN", ["p.npy", "--labels", "y_nan.npy"], "labels contain NaN"),
    ("labels CSV with a header only", ["p.csv", "--labels", "y_head.csv"], "a header but no data rows"),
    ("labels CSV of two columns", ["p.csv", "--labels", "y2.csv"], "exactly one column"),
    ("two model columns of one name", ["dup.csv", "--labels", "y.npy"], "duplicate model names: a"),
    ("--lenses naming none", [*P, "--lenses", ","], "--lenses: no lens named"),
    ("--lenses in capitals", [*P, "--lenses", "Accuracy"], "unknown lens(es) ['Accuracy']"),
    ("--model-names too few", [*P, "--model-names", "a,b"], "4 models (rows) but 2 names in --model-names"),
    ("--model-names with an empty name", [*P, "--model-names", ",b,c,d"], "but 3 names in --model-names"),
    ("--model-names against a CSV header", ["p.csv", "--labels", "y.npy", "--model-names", "w,x,y,z"], "--model-names"),
    ("--selected not a model", [*P, "--lenses", "rvw", "--selected", "nope", "--search-size", "4"], "--selected nope"),
    ("--out an existing file", [*P, "--out", "p.csv"], "--out p.csv: is a file"),
    ("--out empty", [*P, "--out", ""], "is the working folder"),
    ("negative classes", ["neg.npy", "--labels", "y.npy"], "negative: an abstention?"),
    ("zero models", ["none.npy", "--labels", "y.npy"], "none.npy: no models (0 rows)"),
    ("booleans for classes", ["bool.npy", "--labels", "y.npy"], "predictions are booleans"),
    ("UTF-16 predictions", ["p16.csv", "--labels", "y.npy"], "not UTF-8 text"),
    ("a folder for PREDICTIONS", ["folder", "--labels", "y.npy"], "is a directory"),
    ("--num-classes below the labels", [*P, "--num-classes", "1"], "labels out of range [0, 1)"),
    ("--translations missing, lens not run", [*P, "--translations", "nope.npz"], "--translations nope.npz: file not"),
    ("--families missing", [*P, "--families", "nope.csv"], "--families nope.csv: file not found"),
    (
        "--columns naming one column twice",
        ["--accuracies", "acc.csv", "--columns", "o", "o", "--sizes", "9", "9"],
        "twice",
    ),
    ("a model twice in the table", ["--accuracies", "acc_dup.csv", *TABLE], "duplicate model name 'a'"),
    ("an empty cell in the table", ["--accuracies", "acc_nan.csv", *TABLE], "model 'c' has a missing"),
]


@pytest.mark.parametrize(("case", "argv", "message"), MORE_INPUTS, ids=[c[0] for c in MORE_INPUTS])
def test_more_inputs_give_one_clear_line(tmp_path, capsys, monkeypatch, case, argv, message):
    _inputs(tmp_path)
    monkeypatch.chdir(tmp_path)
    out = [] if "--out" in argv else ["--out", "o"]
    err = _error(capsys, ["audit", *argv, *out])
    assert message in err, err
    assert not (tmp_path / "o").exists()


def test_a_newline_in_a_model_name_stays_on_its_line(tmp_path, capsys):
    _predictions(tmp_path, n=60)
    p = np.load(tmp_path / "p.npy")
    pd.DataFrame(p.T, columns=["a\nb", "c", "d", "e"]).to_csv(tmp_path / "p.csv", index=False)
    argv = ["audit", str(tmp_path / "p.csv"), "--labels", str(tmp_path / "y.npy"), "--lenses", "accuracy,pairs"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [x[:9] for x in lines[:2]] == ["[accuracy", "[pairs] P"] and len(lines) == 3
    assert "a\\nb" in lines[1]


def test_memory_estimate_counts_the_rank_resamples_and_the_pairs():
    """Above the peaks measured by benchmarks/bench_audit_scale.py: 4 x 2,000,000 (the rank intervals'
    block of item resamples, 14x above the older estimate) and 6,000 x 50 (18 million pairs)."""
    from holdout.audit.inputs import estimate_memory

    measured = json.loads((Path(__file__).resolve().parents[2] / "docs/measurements/audit_scale.json").read_text())
    for run in measured["runs"].values():
        assert estimate_memory(run["models"], run["items"]) / 2**30 >= run["peak_memory_gib"], run
    assert estimate_memory(4, 2_000_000) > 4 * 2**30
