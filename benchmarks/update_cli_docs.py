"""Write the options reference of ``docs/audit.md`` from the ``holdout audit`` parser.

The page holds the tables between two markers, invisible in the rendered page::

    <!-- cli-options: holdout audit -->
    ... one table per argument group of `holdout audit --help` (option, meaning, default) ...
    <!-- /cli-options -->

    python benchmarks/update_cli_docs.py           # rewrite the tables
    python benchmarks/update_cli_docs.py --check   # change nothing; exit 1 when the page is out of date

``tests/audit/test_cli_docs.py`` runs the check: an option added, renamed or regrouped without
rerunning this script fails it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "audit.md"
BEGIN, END = "<!-- cli-options: holdout audit -->", "<!-- /cli-options -->"


def audit_parser() -> argparse.ArgumentParser:
    """The parser of ``holdout audit`` (the subcommand's, as --help shows it)."""
    from holdout.audit.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["audit"]


def updated(text: str) -> str:
    """``text`` (the page) with the generated tables between the markers; ValueError without the markers."""
    from holdout.audit.cli_groups import options_markdown

    block = re.compile(re.escape(BEGIN) + r"\n.*?" + re.escape(END), re.S)
    if not block.search(text):
        raise ValueError(f"{PAGE}: no {BEGIN} ... {END} block")
    tables = options_markdown(audit_parser())
    return block.sub(lambda _: f"{BEGIN}\n{tables}{END}", text, count=1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when docs/audit.md is out of date")
    args = ap.parse_args(argv)
    text = PAGE.read_text(encoding="utf-8")
    new = updated(text)
    if args.check:
        if new != text:
            print(f"{PAGE.relative_to(REPO)} is out of date: run python benchmarks/update_cli_docs.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
