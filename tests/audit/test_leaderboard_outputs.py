"""The leaderboard inputs of holdout audit (--correctness, dates, --accuracies) write their --out like
the predictions audit: owned (a folder of other files or holding an input refused, --force moves it
aside), atomic (an interrupted write leaves the previous result or nothing), and a matrix too large
for memory is refused from its shape before it is read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from holdout.audit import accuracy_table
from holdout.audit import output as audit_output
from holdout.audit import run as audit_run
from holdout.audit.cli import main


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def _correctness(folder: Path) -> list[str]:
    """A 6 x 200 0/1 matrix with item and model dates: the correctness audit with its contamination lens."""
    rng = np.random.default_rng(0)
    v = (rng.random((6, 200)) < np.linspace(0.4, 0.8, 6)[:, None]).astype(int)
    df = pd.DataFrame(v, columns=[f"q{i}" for i in range(200)])
    df.insert(0, "model", list("abcdef"))
    df.to_csv(folder / "c.csv", index=False)
    pd.DataFrame({"item": df.columns[1:], "date": ["2023-01-01"] * 100 + ["2023-06-01"] * 100}).to_csv(
        folder / "items.csv", index=False
    )
    pd.DataFrame({"model": list("abcdef"), "date": ["2022-01-01"] * 5 + ["2023-09-01"]}).to_csv(
        folder / "models.csv", index=False
    )
    argv = ["audit", str(folder / "c.csv"), "--correctness", "--lenses", "accuracy,bounds", "--eps", "0.1"]
    return [*argv, "--item-dates", str(folder / "items.csv"), "--model-dates", str(folder / "models.csv")] + [
        "--split",
        "2023-03-01",
    ]


def _table(folder: Path) -> list[str]:
    (folder / "t.csv").write_text("model,a,b\nx,80,70\ny,85,76\nz,90,83\nw,70,58\n")
    return ["audit", "--accuracies", str(folder / "t.csv"), "--columns", "a", "b", "--sizes", "1000", "1000"]


INPUTS = {"correctness": _correctness, "accuracies": _table}


@pytest.mark.parametrize("kind", INPUTS)
def test_out_with_foreign_files_refused_unless_force(capsys, tmp_path, kind):
    argv = INPUTS[kind](tmp_path)
    out = tmp_path / "o"
    out.mkdir()
    (out / "models.csv").write_text("my own table\n")
    err = _error(capsys, [*argv, "--out", str(out)])
    assert "holds 1 file(s) that no audit wrote (models.csv)" in err and "--force" in err
    assert sorted(p.name for p in out.iterdir()) == ["models.csv"]
    assert main([*argv, "--out", str(out), "--force"]) == 0
    assert (out / "summary.json").is_file() and (out / ".holdout-manifest.json").is_file()
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("o.replaced-")]
    assert len(kept) == 1 and (kept[0] / "models.csv").read_text() == "my own table\n"  # moved, not deleted
    assert f"were moved to {kept[0]}" in capsys.readouterr().err


@pytest.mark.parametrize("kind", INPUTS)
def test_out_holding_the_input_is_refused(capsys, tmp_path, kind):
    argv = INPUTS[kind](tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for extra in ([], ["--force"]):
        err = _error(capsys, [*argv, "--out", str(tmp_path), *extra])
        assert f"--out {tmp_path}: holds the input" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _interrupt_after(module, name: str, monkeypatch) -> None:
    """``module.name`` does its work (some files written), then Ctrl-C."""
    real = getattr(module, name)

    def interrupted(*args, **kwargs):
        real(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(module, name, interrupted)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "module", "name"),
    [
        ("correctness", audit_run, "_write_figures"),
        ("correctness", audit_output, "write_contamination"),  # the last lens, just before summary.json
        ("accuracies", accuracy_table, "write_table"),
    ],
)
def test_interrupted_write_leaves_the_previous_result_or_nothing(capsys, tmp_path, monkeypatch, kind, module, name):
    data = tmp_path / "data"
    data.mkdir()
    argv = INPUTS[kind](data)
    out = tmp_path / "o"
    assert main([*argv, "--out", str(out)]) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    _interrupt_after(module, name, monkeypatch)
    capsys.readouterr()
    assert main([*argv, "--alpha", "0.1", "--out", str(out)]) == 130
    assert f"interrupted: {out}: left unchanged (the previous complete result)" in capsys.readouterr().err
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "o"]  # no partial folder beside it
    fresh = tmp_path / "fresh"
    assert main([*argv, "--out", str(fresh)]) == 130
    assert f"interrupted: {fresh}: nothing written" in capsys.readouterr().err
    assert not fresh.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["data", "o"]


@pytest.mark.slow
def test_contamination_is_in_the_manifest_and_summary(tmp_path):
    out = tmp_path / "o"
    assert main([*_correctness(tmp_path), "--out", str(out)]) == 0
    written = set(json.loads((out / ".holdout-manifest.json").read_text())["files"])
    assert {"contamination.png", "contamination.csv", "contamination.json", "summary.json", "summary.md"} <= written
    summary = json.loads((out / "summary.json").read_text())
    assert summary["contamination"]["verdict"].startswith("0 of 1 models with a cut-off on or after 2023-03-01")
    html = (out / "report.html").read_text()  # the lens in the report, said to be a heuristic
    assert "<h2 id='contamination'>" in html and "href='contamination.csv'" in html
    assert "- **Contamination** (heuristic): 0 of 1 models" in (out / "summary.md").read_text()
    assert "give --item-dates" not in html  # the note for audits without dates


def test_huge_correctness_matrix_refused_before_it_is_read(capsys, tmp_path):
    """100,000 models x 10 items (K^2 pairs: hundreds of GiB): refused from the line count."""
    path = tmp_path / "wide.csv"
    k = 100_000
    path.write_text(
        "model," + ",".join(f"q{i}" for i in range(10)) + "\n" + "".join(f"m{i},{'0,' * 9}1\n" for i in range(k))
    )
    err = _error(capsys, ["audit", str(path), "--correctness", "--out", str(tmp_path / "o")])
    assert "wide.csv: 100,000 models x 10 test points need about" in err and "--force" in err
    assert not (tmp_path / "o").exists()
