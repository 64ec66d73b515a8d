"""Names as the terminal and matplotlib show them: a model name is any text (a file's column
header, a log's model field), so control characters (ANSI escapes that recolour or retitle the
terminal) are shown escaped, never sent, and a ``$`` is drawn as a dollar sign, never read as
matplotlib's mathtext."""

from __future__ import annotations

import re

__all__ = ["figure_text", "terminal_text"]

#: every C0 control (newline too: a terminal line is one line), DEL and the C1 controls
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # "\x1b", "\x07", "\r"


def terminal_text(text: object) -> str:
    """``text`` with every control character written as its escape (``\\x1b``, ``\\n``): one line,
    and nothing the terminal would act on."""
    return _CONTROL.sub(_escape, str(text))


def figure_text(text: object) -> str:
    """``text`` as a figure label: control characters escaped, ``$`` escaped so that it is drawn."""
    return terminal_text(text).replace("$", r"\$")
