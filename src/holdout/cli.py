"""The ``holdout`` command: ``holdout COMMAND ...``, each command a module with
``main(argv: list[str] | None = None) -> int`` (``argv``: what follows the command's name), imported
only when its command runs. A new command is one line in ``COMMANDS``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

__all__ = ["COMMANDS", "main"]

#: command -> (module with main(argv), one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("holdout.audit.cli", "every lens of the four papers on your own models, in one report"),
    "plan": ("holdout.plan_cli", "every training job of a set of config files, with projected GPU-hours"),
    "power": ("holdout.commands.power", "which comparisons a test set resolves, and how many items the rest need"),
    "compare": ("holdout.commands.compare", "a paired regression gate: 0 not worse, 1 worse, 3 inconclusive"),
    "site": ("holdout.commands.site", "many benchmarks audited and published side by side as a static site"),
}


def usage() -> str:
    """``holdout --help``: the commands, one line each."""
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items())
    return (
        f"usage: holdout {{{','.join(COMMANDS)}}} ...\n\nholdout: audits of test-set reuse.\n\n"
        f"commands:\n{rows}\n\nholdout COMMAND --help: the command's options and examples.\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``holdout ARGV``; returns the exit code (2: no or an unknown command)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        print(f"holdout: error: unknown command {argv[0]!r}; choose from {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[argv[0]][0])
    return int(module.main(argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
