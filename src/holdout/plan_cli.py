"""``holdout plan ...``: the training plan of a set of config files
([`add_plan_parser`][holdout.training.plan.add_plan_parser]); torch is imported only when it runs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from holdout.training.plan import add_plan_parser

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An option error is one line (``--help`` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv: Sequence[str] | None = None) -> int:
    """``holdout plan ARGV``; returns the exit code."""
    parser = _Parser(prog="holdout")
    add_plan_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["plan", *([] if argv is None else argv)])
    return int(args.func(args))
