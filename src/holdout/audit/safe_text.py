"""Names as the terminal shows them: a model name is any text (a file's column header, a log's model
field), so control characters (ANSI escapes that recolour or retitle the terminal, a newline that
breaks a line) are shown as their escapes, never sent. Figures draw names with
[`figure_text`][holdout.plotting.figure_text]."""

from __future__ import annotations

import re

__all__ = ["terminal_text"]

#: every C0 control (newline too: a terminal line is one line), DEL and the C1 controls
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # "\x1b", "\x07", "\n"


def terminal_text(text: object) -> str:
    """``text`` with every control character written as its escape (``\\x1b``, ``\\n``): one line,
    and nothing the terminal would act on."""
    return _CONTROL.sub(_escape, str(text))
