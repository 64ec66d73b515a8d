"""The docs speak to users: no page tells the project's own history ("an earlier version of this
page ...", "before this change", "the previous implementation") or cites an issue number; a page
says what is true now and, where a difference matters to a user, what differs and why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HISTORY = re.compile(
    r"\b(an? earlier version|previous (implementation|version)|before (this|the) (change|refactoring)"
    r"|after the refactoring|this page used to|issue #?\d+)\b",
    re.IGNORECASE,
)


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def test_history_pattern_finds_the_phrases():
    assert HISTORY.search("An earlier version of this page (then part of the README) cited")
    assert HISTORY.search("the path measured before this change") and HISTORY.search("see issue 12")
    assert not HISTORY.search("hysts' later yacs release differs: cosine to 1e-3 x base_lr")


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_page_tells_no_history(path):
    text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))  # a phrase may break across lines
    found = [m.group(0) for m in HISTORY.finditer(text)]
    assert not found, f"{path.relative_to(REPO)}: {found}: say what is true, and what differs for a user"
