"""``holdout audit``: one subcommand per input kind, each with its own options and ``--help``::

    holdout audit predictions FILE --labels L     holdout audit matrix FILE
    holdout audit accuracies TABLE --columns ...  holdout audit logs PATH ...

The spellings without a subcommand (``holdout audit FILE --labels L``, ``FILE --correctness``,
``--accuracies TABLE``, ``--logs PATH``) parse with the whole parser
([`build_parser`][holdout.audit.parser.build_parser]) to the same options and give the same outputs.
Bad input stops with one line on stderr naming the file (or option) and the problem, exit code 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from holdout.audit.cli_checks import expand_paths, search_size, typed_options
from holdout.audit.errors import AuditError
from holdout.audit.inputs import one_line
from holdout.audit.leaderboard_cli import run_leaderboard_audit
from holdout.audit.logs_cli import run_logs_audit
from holdout.audit.parser import SUBCOMMANDS, build_parser, overview, subcommand_parser
from holdout.audit.pipeline import audit_from_args
from holdout.audit.result import LENSES
from holdout.audit.safe_text import terminal_text

__all__ = ["build_parser", "main", "parse"]


def _whole(argv: list[str]) -> argparse.ArgumentParser:
    return next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["audit"]


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """``holdout audit ARGV`` as the whole parser's options (a subcommand's input and fixed options
    filled in, every other option at its default), with ``typed``: the options typed."""
    argv = list(argv)
    if argv[:1] and argv[0] in SUBCOMMANDS:
        name, rest = argv[0], argv[1:]
        args = argparse.Namespace(**vars(_whole(rest).parse_args([])))  # the defaults of every option
        vars(args).update(vars(subcommand_parser(name).parse_args(rest)))
        fixed = SUBCOMMANDS[name][1]
        vars(args).update(fixed)
        args.typed = typed_options(lambda: subcommand_parser(name), rest) | frozenset(fixed)
        return args
    if any(a in ("-h", "--help") for a in argv[: argv.index("--") if "--" in argv else len(argv)]):
        print(overview(), end="")
        raise SystemExit(0)
    args = build_parser().parse_args(["audit", *argv])
    args.typed = typed_options(build_parser, ["audit", *argv])  # told from defaults
    return args


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, a scheduler's time limit) handled like Ctrl-C: the partial output removed
    and what was left said, instead of a silent ``.out.partial-*`` folder."""

    def _raise(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, _raise)
    except ValueError:  # not the main thread: the default handling stays
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _audit(args: argparse.Namespace, on_fail: Callable[[str], None]) -> dict[str, object]:
    """The first audit that applies: evaluation logs, a leaderboard (matrix or accuracy table), predictions."""
    args.search_size = search_size(args.search_size)  # one check for every input
    for audit_of in (run_logs_audit, run_leaderboard_audit):
        if (summary := audit_of(args, on_fail)) is not None:
            return summary
    return audit_from_args(args, on_fail)


def run(args: argparse.Namespace) -> int:
    """The audit of parsed options: prints each lens's verdict; returns the exit code (2: bad input,
    130: interrupted)."""
    start = time.perf_counter()
    left: list[str] = []
    expand_paths(args)
    try:
        with _sigterm_as_interrupt():
            summary = _audit(args, left.append)
    except AuditError as exc:
        print(f"holdout audit: error: {terminal_text(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"holdout audit: error: {terminal_text(one_line(exc))}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            terminal_text(
                f"holdout audit: error: out of memory on {args.predictions}: audit fewer models or test points "
                f"at a time{'; ' + left[0] if left else ''}"
            ),
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(
            terminal_text(f"holdout audit: interrupted: {left[0] if left else f'{args.out}: nothing written'}"),
            file=sys.stderr,
        )
        return 130
    for note in summary.get("notes", ()):  # type: ignore[union-attr]
        if str(note).startswith(("Warning: ", "Skipped: ")):
            kind, text = str(note).split(": ", 1)
            print(terminal_text(f"holdout audit: {kind.lower()}: {text}"), file=sys.stderr)
    for lens in (*LENSES, "best_of_n", "adaptive", "contamination", "aline"):  # adaptive: the opt-in lens
        if lens in summary:
            print(terminal_text(f"[{lens}] {summary[lens]['verdict']}"))  # type: ignore[index]
    print(
        f"wrote {terminal_text(args.out)}/report.html and every number beside it in {time.perf_counter() - start:.1f} s"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``holdout audit ARGV`` (``argv``: what follows ``audit``). The whole program's command line, as the
    console script this was before ``holdout.cli`` (no ``argv``, or one starting with ``audit`` or
    ``plan``), still works: an input file is never named ``audit`` or ``plan`` (no suffix)."""
    if argv is None or (list(argv)[:1] and list(argv)[0] == "plan"):
        from holdout.cli import main as holdout_main

        return holdout_main(sys.argv[1:] if argv is None else list(argv))
    argv = list(argv)
    return run(parse(argv[1:] if argv[:1] == ["audit"] else argv))
