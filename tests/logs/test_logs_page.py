"""docs/logs.md runs as written: its notebook session (every ``>>>`` line, outputs compared) on five
lm-eval runs written here in lm-eval's layout, and its claims about the mirror's files."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

from logfiles import five_lmeval_runs

from holdout.logs import read_logs

PAGE = Path(__file__).resolve().parents[2] / "docs" / "logs.md"


def test_the_notebook_session_of_the_page_runs_as_shown(tmp_path, monkeypatch):
    five_lmeval_runs(tmp_path / "lm_eval_results")
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"^```pycon\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.M | re.S)
    text = "\n".join(blocks)
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/logs.md", str(PAGE), 0)
    assert len(test.examples) >= 8
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    out: list[str] = []
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)


def test_the_pages_helm_split_claim(shared_data):
    """'--filter test takes 9' of the HELM MMLU fixture that mixes 9 test and 1 valid instance."""
    task = "mmlu:subject=philosophy,method=multiple_choice_joint"
    assert read_logs(shared_data / "evallogs" / "helm_eee_fixture", task=task, filter="test").shape == (1, 9)
    assert "`--filter test` takes 9" in PAGE.read_text(encoding="utf-8")
