"""The size rules of the developers' guide: no module of ``src/holdout`` over 500 lines, no module of
``src/holdout/audit/`` over 400, no workflow script over 45 code lines (the work goes in the library).

A module's size is its number of lines, as ``wc -l`` counts them. A script's code lines are its lines
that are neither blank nor a comment alone: docstrings count as code lines (they are read before the
work starts, and a long one is a sign of work that belongs in the library).
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "holdout"
SCRIPTS = REPO / "workflow" / "scripts"

MODULE_LINES, AUDIT_MODULE_LINES, SCRIPT_CODE_LINES = 500, 400, 45


def module_lines(path: Path) -> int:
    """Lines of a file, as ``wc -l`` counts them (a last line without a newline counts too)."""
    return len(path.read_text(encoding="utf-8").splitlines())


def code_lines(text: str) -> int:
    """Lines that are not blank and not a comment alone; a docstring's lines count."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


def test_code_lines_counts_docstrings_and_code_but_not_blanks_or_comments():
    text = '"""Doc\nstring."""\n\n# a comment\nimport os  # trailing comment\n\n    # indented comment\nx = 1\n'
    assert code_lines(text) == 4


def test_module_lines_counts_like_wc(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("a = 1\n\nb = 2")
    assert module_lines(path) == 3


def test_no_module_over_its_limit():
    over = []
    for path in sorted(SRC.rglob("*.py")):
        limit = AUDIT_MODULE_LINES if (SRC / "audit") in path.parents else MODULE_LINES
        n = module_lines(path)
        if n > limit:
            over.append(f"{path.relative_to(REPO)}: {n} lines (at most {limit}: split it by topic)")
    assert not over, "\n".join(over)


def test_no_workflow_script_over_45_code_lines():
    scripts = sorted(SCRIPTS.glob("*.py"))
    assert len(scripts) > 20, scripts
    over = [
        f"{path.relative_to(REPO)}: {n} code lines (at most {SCRIPT_CODE_LINES}: move the work into src/holdout/)"
        for path in scripts
        if (n := code_lines(path.read_text(encoding="utf-8"))) > SCRIPT_CODE_LINES
    ]
    assert not over, "\n".join(over)
