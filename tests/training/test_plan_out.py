"""``holdout plan`` on bad input: its ``--out`` never replaces a file it does not own (the config it
reads, a user's file, a symlink), is written whole or not at all, and every config or option error
is one line naming the file, key or option."""

from __future__ import annotations

import sys
from dataclasses import fields, replace

import pandas as pd
import pytest

from holdout.audit.cli import main
from holdout.training import plan


def _plan(*args: str) -> int:
    return main(["plan", "--max-rows", "1", *args])


@pytest.fixture
def two_rows(monkeypatch):
    """plan_jobs returning two rows at once (the counts are tested in test_plan.py)."""
    row = plan.PlanRow(**{f.name: 1 for f in fields(plan.PlanRow)} | {"study": "search", "job": "m000"})
    monkeypatch.setattr(plan, "plan_jobs", lambda *args, **kw: [row, replace(row, job="m001")])


def _one_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("holdout plan: error: ") and "\n" not in err and "Traceback" not in err, err
    return err


def test_out_is_never_the_config_file_it_reads(repo, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    mine = tmp_path / "my.yaml"
    text = (repo / "config/offline.yaml").read_text()
    mine.write_text(text)
    assert _plan("--configfile", str(mine), "--out", str(mine)) == 2
    assert "is the config file" in _one_error(capsys) and mine.read_text() == text
    link = tmp_path / "link.csv"  # the same file through a symlink
    link.symlink_to(mine)
    assert _plan("--configfile", str(mine), "--out", str(link)) == 2
    assert "is the config file" in _one_error(capsys) and mine.read_text() == text and link.is_symlink()


def test_out_refuses_a_foreign_file_and_a_folder(repo, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    notes = tmp_path / "notes.csv"
    notes.write_text("a,b\n1,2\n")
    assert _plan("--configfile", "config/offline.yaml", "--out", str(notes)) == 2
    assert "not a table holdout plan wrote" in _one_error(capsys) and notes.read_text() == "a,b\n1,2\n"
    assert _plan("--configfile", "config/offline.yaml", "--out", str(tmp_path)) == 2
    assert "is a folder" in _one_error(capsys)


def test_out_follows_a_symlink_and_replaces_its_own_plan(two_rows, repo, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    target, link = tmp_path / "plans" / "plan.csv", tmp_path / "plan.csv"
    target.parent.mkdir()
    link.symlink_to(target)
    assert _plan("--configfile", "config/offline.yaml", "--out", str(link)) == 0
    assert link.is_symlink() and list(pd.read_csv(target).job) == ["m000", "m001"]
    assert _plan("--configfile", "config/offline.yaml", "--out", str(link)) == 0  # its own table: replaced
    assert link.is_symlink() and sorted(p.name for p in target.parent.iterdir()) == ["plan.csv"]
    capsys.readouterr()


def test_out_interrupted_mid_write_leaves_the_previous_plan(two_rows, repo, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    out = tmp_path / "plan.csv"
    assert _plan("--configfile", "config/offline.yaml", "--out", str(out)) == 0
    before = out.read_text()

    def half_then_interrupt(self, fh, **kw):
        fh.write("study,job\nsearch,")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        _plan("--configfile", "config/offline.yaml", "--out", str(out))
    assert out.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["plan.csv"]


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("search: [\n", "my.yaml, line 2"),
        ("!!python/object:os.system x\n", "could not determine a constructor"),
        ("- a\n- b\n", "must be a mapping"),
        ("serch:\n  enabled: false\n", "serch: unknown config key; did you mean 'search'?"),
        ("retraining:\n  scale: huge\n", "config key retraining.scale: 'huge' is not one of"),
    ],
)
def test_config_errors_are_one_line(repo, tmp_path, monkeypatch, capsys, text, expect):
    monkeypatch.chdir(repo)
    (tmp_path / "my.yaml").write_text(text)
    assert _plan("--configfile", str(tmp_path / "my.yaml")) == 2
    err = _one_error(capsys)
    assert expect in err and len(err) < 400, err


@pytest.mark.parametrize("tflops", ["nan", "inf", "0"])
def test_tflops_must_be_finite_and_positive(repo, monkeypatch, capsys, tflops):
    monkeypatch.chdir(repo)
    assert _plan("--configfile", "config/offline.yaml", "--tflops", tflops) == 2
    assert "--tflops" in _one_error(capsys)


def test_without_torch_says_to_install_the_training_extra(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ModuleNotFoundError
    monkeypatch.setattr(plan, "count_network", plan.count_network.__wrapped__)  # the counts, uncached
    assert _plan("--configfile", "config/offline.yaml") == 2
    err = _one_error(capsys)
    assert "needs torch" in err and "[train]" in err
