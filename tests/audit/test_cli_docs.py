"""`holdout audit --help` grouped by input kind, and docs/audit.md's options tables generated from it."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from holdout.audit.cli import build_parser
from holdout.audit.cli_groups import GROUPS, options_markdown

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("update_cli_docs", REPO / "benchmarks" / "update_cli_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _audit_parser() -> argparse.ArgumentParser:
    return _script().audit_parser()


def test_docs_audit_md_is_generated_from_the_parser():
    """`python benchmarks/update_cli_docs.py --check` passes: the page's tables equal the parser's."""
    mod = _script()
    text = mod.PAGE.read_text(encoding="utf-8")
    assert mod.updated(text) == text, "docs/audit.md is out of date: run python benchmarks/update_cli_docs.py"


def test_check_fails_on_a_stale_page(tmp_path, monkeypatch):
    mod = _script()
    page = tmp_path / "audit.md"
    page.write_text(f"intro\n{mod.BEGIN}\n| `--old` | gone | |\n{mod.END}\nrest\n", encoding="utf-8")
    monkeypatch.setattr(mod, "PAGE", page)
    monkeypatch.setattr(mod, "REPO", tmp_path)
    assert mod.main(["--check"]) == 1
    assert mod.main([]) == 0 and mod.main(["--check"]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("intro\n") and text.endswith("rest\n") and "--old" not in text
    assert "| `--logs PATH [PATH ...]` |" in text


def test_help_groups_in_order_every_option_placed_once():
    p = _audit_parser()
    titles = [g.title for g in p._action_groups]
    assert titles == [t for t, _, _ in GROUPS], "every option is in a named group (none in 'other options')"
    grouped = [a for g in p._action_groups for a in g._group_actions]
    assert sorted(a.dest for a in grouped) == sorted(a.dest for a in p._actions)
    assert len(grouped) == len(p._actions)
    help_text = p.format_help()
    positions = [help_text.index(f"\n{t}:\n") for t in titles]
    assert positions == sorted(positions)
    assert "examples:\n  holdout audit config/examples/user_predictions.csv" in help_text


def test_markdown_row_names_option_meaning_and_default():
    md = options_markdown(_audit_parser())
    assert "| `--alpha ALPHA` | 1 - confidence of the Clopper-Pearson intervals | 0.05 |" in md
    assert "| `--chance R B` |" in md and "| `--date-format FMT` |" in md and "%d/%m/%Y" in md
    assert md.index("### common") < md.index("### predictions input") < md.index("### evaluation logs")


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "p.csv", "--labels", "y.npy", "--out", "o", "--eps", "0.05", "--search-size", "64"],
        ["audit", "--accuracies", "t.csv", "--columns", "a", "b", "--sizes", "10", "20", "--chance", "0.25", "0"],
        ["audit", "--logs", "a", "b", "--task", "t", "--metric", "m", "--filter", "f", "--strict"],
        ["audit", "c.csv", "--correctness", "--item-dates", "i.csv", "--model-dates", "m.csv", "--split", "2023-01-01"],
    ],
)
def test_grouping_changes_no_parsing(argv):
    """The same command lines parse to the same values as a parser built without the regrouping."""
    import holdout.audit.parser as parser

    grouped = vars(build_parser().parse_args(argv))
    orig = parser.group_options
    try:
        parser.group_options = lambda p: None
        plain = vars(build_parser().parse_args(argv))
    finally:
        parser.group_options = orig
    assert grouped == plain
