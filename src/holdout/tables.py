"""One table writer: a DataFrame as CSV (every digit) and as GitHub-flavoured Markdown (as printed)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd


def markdown_table(
    df: pd.DataFrame,
    columns: Mapping[str, str] | None = None,
    align: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
    title: str = "",
) -> str:
    """Markdown table of ``columns`` (column -> header; default: all, headers as named) of ``df``.

    ``align`` maps a column to ``"l"``, ``"r"`` or ``"c"`` (default left, ``---``); values are
    printed with ``str`` (format them first). ``notes`` become a bullet list under the table,
    ``title`` a heading line above it.
    """
    columns = dict(columns) if columns is not None else {c: str(c) for c in df.columns}
    align = dict(align or {})
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = [f"{title}", ""] if title else []
    lines.append(_markdown_row(columns.values()))
    lines.append("|" + "|".join(marks.get(align.get(c, ""), "---") for c in columns) + "|")
    for row in df[list(columns)].itertuples(index=False):
        lines.append(_markdown_row(row))
    if notes:
        lines.append("")
        lines.extend(f"- {note}" for note in notes)
    return "\n".join(lines) + "\n"


def _markdown_row(cells: Sequence[object]) -> str:
    """``| a | b |``; an empty cell is ``| |``."""
    return "|" + "|".join(f" {c} " if str(c) != "" else " " for c in cells) + "|"


def write_table(
    df: pd.DataFrame,
    csv: str | Path | None = None,
    markdown: str | Path | None = None,
    markdown_text: str | None = None,
) -> None:
    """Write ``df`` as CSV (no index) and/or a Markdown file.

    The Markdown is ``markdown_text`` when given (a study's own rendering in the paper's
    layout), else [`markdown_table`][holdout.tables.markdown_table] of ``df``. Parent folders are created.
    """
    if csv is not None:
        Path(csv).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(csv, index=False)
    if markdown is not None:
        Path(markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(markdown).write_text(markdown_text if markdown_text is not None else markdown_table(df))


def format_interval(value: float, low: float, high: float, digits: int = 1) -> str:
    """``"97.1 [96.8, 97.4]"`` (the paper's style), or ``"n/a"`` for NaN."""
    if any(pd.isna(v) for v in (value, low, high)):
        return "n/a"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def fmt_gain(value: object) -> str:
    """A gain as in Mania et al. Table 1: '9.6x' below 1000, '1.5e4x' above."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    v = float(value)  # type: ignore[arg-type]
    if v < 1000:
        return f"{v:.1f}x"
    mantissa, exponent = f"{v:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}x"
