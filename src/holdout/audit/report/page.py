"""The pieces of the audit's HTML pages: numbers as a reader expects them, sortable and filterable
tables, figures sized for the page, the at-a-glance block (also as ``summary.md``), and the page
around them.

A page is one self-contained file that works offline: inline CSS, a few lines of inline JavaScript
(sorting and filtering; without it the tables are still there, whole), figures as base64 PNGs.
Links to the CSV files beside the page are relative, so the folder can be moved or zipped whole.
"""

from __future__ import annotations

import base64
import html
import math
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "LABELS",
    "MAX_TABLE_ROWS",
    "Glance",
    "count",
    "first_sentence",
    "glance_html",
    "glance_markdown",
    "figure_html",
    "page_html",
    "percent_decimals",
    "table_html",
]

#: what a lens's number is (the project's rule: say what a number is, never more)
LABELS = {
    "measured": "computed from your data: counts, intervals, fits, tests",
    "theorem": "a guarantee that holds under the paper's stated conditions",
    "heuristic": "a rule of thumb or an assumption the data cannot check",
}

#: tables keep every row up to this many (K <= 500 is the promise; the CSV always has all)
MAX_TABLE_ROWS = 2000

#: columns that count things: printed as integers with thousands separators when whole
COUNT_COLUMNS = frozenset(
    {"rank", "correct", "n", "k", "m", "delta_rank", "K", "n_models", "models", "num_models", "testable models"}
)

#: CSS px per inch of figure: a 150-dpi PNG is shown pixel for pixel, so the widest figure (5.6 in) takes
#: 840 px, three quarters of the page's column, and 8-pt text is 16.7 px tall (scaled down on a phone)
CSS_PX_PER_INCH = 150

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1120px;margin:1.5em auto;
padding:0 1em;color:#222;line-height:1.45;overflow-wrap:anywhere}
h1{font-size:1.5em;margin-bottom:.2em} h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
.meta{color:#555} .verdict{background:#f3f6fa;border-left:4px solid #1f77b4;padding:.6em 1em;margin:.8em 0}
.note{color:#8a5a00}
.warn{color:#b00000;font-weight:bold;border:2px solid #b00000;padding:.5em 1em}
.glance{border:1px solid #ccd;border-radius:6px;padding:.4em 1em;background:#fafbfd}
.glance h2{border:0;margin:.3em 0} .glance ul{padding-left:1.1em;margin:.3em 0} .glance li{margin:.35em 0}
.label{display:inline-block;font-size:.75em;font-weight:bold;text-transform:uppercase;letter-spacing:.03em;
padding:0 .4em;border-radius:3px;color:#fff;vertical-align:.1em}
.label.measured{background:#1f6f3f} .label.theorem{background:#1f4f9f} .label.heuristic{background:#9a5b00}
.nums{display:block;font-size:.9em;color:#444;font-variant-numeric:tabular-nums}
.figs{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
figure{margin:.6em 0;max-width:100%} figure img{display:block;max-width:100%;height:auto}
figcaption{font-size:.8em;color:#555}
.tbl{margin:.6em 0} .tools{display:flex;flex-wrap:wrap;gap:.4em 1em;align-items:center;font-size:.85em}
.tools input{font:inherit;padding:2px 6px;min-width:12em;max-width:100%}
.scroll{overflow:auto;max-width:100%;max-height:40em}
table{border-collapse:collapse;font-size:.85em;margin:.3em 0;font-variant-numeric:tabular-nums}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap;overflow-wrap:normal}
th.t{text-align:left} td.t{text-align:left;white-space:normal;min-width:8em}
th{background:#f4f4f4;position:sticky;top:0} th button{all:unset;cursor:pointer}
th[aria-sort=ascending] button::after{content:" \\25B2"} th[aria-sort=descending] button::after{content:" \\25BC"}
th button:focus-visible{outline:2px solid #1f77b4}
@media (max-width:600px){body{padding:0 .5em} h1{font-size:1.25em} table{font-size:.78em} .glance{padding:.3em .6em}
.glance ul{padding-left:.9em}}
"""

#: sorting (click a column's name; again to reverse) and filtering (rows containing the text)
SCRIPT = """
document.querySelectorAll('.tbl').forEach(box => {
  const table = box.querySelector('table'), body = table.tBodies[0], input = box.querySelector('input');
  const shown = box.querySelector('.shown'), buttons = [...table.querySelectorAll('th button')];
  const key = (row, i) => { const c = row.cells[i], v = c.dataset.v;
    return v === undefined ? c.textContent.toLowerCase() : v === '' ? null : Number(v); };
  buttons.forEach((b, i) => b.addEventListener('click', () => {
    const up = b.parentNode.getAttribute('aria-sort') !== 'ascending';
    buttons.forEach(x => x.parentNode.removeAttribute('aria-sort'));
    b.parentNode.setAttribute('aria-sort', up ? 'ascending' : 'descending');
    const rows = [...body.rows].sort((r, s) => { const x = key(r, i), y = key(s, i);
      if (x === null || y === null) return (x === null) - (y === null);
      return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); });
    rows.forEach(r => body.appendChild(r));
  }));
  input.addEventListener('input', () => {
    const q = input.value.trim().toLowerCase(); let n = 0;
    for (const r of body.rows) { const ok = !q || r.textContent.toLowerCase().includes(q); r.hidden = !ok; n += ok; }
    shown.textContent = q ? `${n.toLocaleString('en')} of ${body.rows.length.toLocaleString('en')} rows` : '';
  });
});
"""


def count(value: float | int) -> str:
    """A whole count with thousands separators: 1234.0 -> '1,234'."""
    return f"{int(round(float(value))):,}"


def percent_decimals(widths: Iterable[float]) -> int:
    """Decimals a percentage can carry given the widths (in points) of its intervals: the last digit
    is at most a tenth of the narrowest width (0 to 3 decimals). 7.3 -> 1, 0.42 -> 2."""
    w = [float(x) for x in widths if np.isfinite(x) and x > 0]
    if not w:
        return 2
    return int(min(3, max(0, math.ceil(-math.log10(min(w))) + 1)))


def _number(value: float) -> str:
    """A real number in a table cell: 3 significant digits, thousands separators above 1,000."""
    a = abs(value)
    if a >= 1e7 or (0 < a < 1e-3):
        return f"{value:.3g}"
    if a >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if a < 100 else f"{value:.1f}"


def _cell(value: object, column: str, decimals: Mapping[str, int], na: str) -> str:
    """One ``<td>``: numbers right-aligned with their raw value in ``data-v`` (sorting), text left."""
    if isinstance(value, (bool, np.bool_)):
        return f"<td class='t'>{'yes' if value else 'no'}</td>"
    if value is None or (isinstance(value, (float, np.floating)) and not np.isfinite(value)):
        return f"<td data-v=''>{html.escape(na)}</td>"
    if isinstance(value, (int, np.integer, float, np.floating)):
        v = float(value)
        if column in decimals:
            text = f"{v:,.{decimals[column]}f}"
        elif isinstance(value, (int, np.integer)) or (column in COUNT_COLUMNS and v.is_integer()):
            text = count(v)
        else:
            text = _number(v)
        return f"<td data-v='{v!r}'>{text}</td>"
    return f"<td class='t'>{html.escape(str(value))}</td>"


def table_html(
    df: pd.DataFrame,
    caption: str,
    csv: str | None = None,
    *,
    decimals: Mapping[str, int] | None = None,
    na: Mapping[str, str] | None = None,
    max_rows: int = MAX_TABLE_ROWS,
) -> str:
    """``df`` as a sortable, filterable table with a "download CSV" link to ``csv`` (the file beside
    the page). ``decimals``: fixed decimals per column (percentages); ``na``: per column, why a value is
    missing (shown as ``n/a (why)``). Every row up to ``max_rows``; beyond, the first ``max_rows`` and a
    line saying that all are in the CSV."""
    decimals, na = dict(decimals or {}), dict(na or {})
    shown = df.head(max_rows)
    head = "".join(
        f"<th class='{'t' if _is_text(df[c]) else 'n'}' scope='col'><button type='button'>{html.escape(str(c))}"
        "</button></th>"
        for c in df.columns
    )
    why = {c: na.get(c, "n/a (not computed)") for c in df.columns}
    rows = [
        "<tr>" + "".join(_cell(v, c, decimals, why[c]) for c, v in zip(df.columns, r)) + "</tr>"
        for r in shown.itertuples(index=False, name=None)
    ]
    link = f"<a href='{html.escape(csv)}' download>download CSV ({html.escape(csv)})</a>" if csv else ""
    more = (
        f"<p class='meta'>The first {count(max_rows)} of {count(len(df))} rows; all of them in {html.escape(csv)}.</p>"
        if len(df) > max_rows and csv
        else ""
    )
    return (
        f"<div class='tbl'><div class='tools'><input type='search' placeholder='Filter rows' "
        f"aria-label='Filter the rows of {html.escape(caption)}'><span>{count(len(shown))} rows</span>"
        f"<span class='shown'></span>{link}</div><div class='scroll'><table><caption class='meta' "
        f"style='text-align:left'>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>"
        + "".join(rows)
        + f"</tbody></table></div>{more}</div>"
    )


def _is_text(column: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column))


def _png_size(data: bytes) -> tuple[int, int]:
    """(width, height) in pixels from a PNG's IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    return struct.unpack(">II", data[16:24])


def figure_html(path: Path, caption: str = "") -> str:
    """An inline PNG shown at ``CSS_PX_PER_INCH`` per figure inch (never wider than the page), with a
    caption naming the files beside the page that hold its values and its PDF."""
    data = Path(path).read_bytes()
    width, height = _png_size(data)
    css_w = round(width * CSS_PX_PER_INCH / 150)
    b64 = base64.b64encode(data).decode("ascii")
    files = f"values: {path.stem}.csv, vector figure: {path.stem}.pdf"
    text = f"{html.escape(caption)} ({html.escape(files)})" if caption else html.escape(files)
    return (
        f"<figure style='width:{css_w}px'><img alt='{html.escape(caption or path.stem)}' width='{css_w}' "
        f"height='{round(height * css_w / width)}' src='data:image/png;base64,{b64}'><figcaption>{text}"
        "</figcaption></figure>"
    )


#: abbreviations whose period does not end a sentence
_ABBREVIATIONS = re.compile(r"(?:\bet al|\be\.g|\bi\.e|\bFig|\bEq|\bSec|\bvs|\bcf)\.$")


def first_sentence(text: str) -> str:
    """The first sentence of a verdict (a period, '!' or '?' followed by a space and a capital letter,
    a digit or the end; never the period of 'et al.', 'Fig.', 'e.g.' or a decimal)."""
    for match in re.finditer(r"[.!?](?=\s+[A-Z0-9(]|\s*$)", text):
        head = text[: match.end()]
        if not _ABBREVIATIONS.search(head):
            return head.strip()
    return text.strip().rstrip(";,:") + "."  # a verdict without a final period


@dataclass(frozen=True)
class Glance:
    """One line of the at-a-glance block: a lens, what its number is, its first sentence, the
    headline numbers and the id of its section."""

    title: str
    label: str
    sentence: str
    numbers: str
    anchor: str

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"label {self.label!r}: one of {', '.join(LABELS)}")


def glance_html(lines: Sequence[Glance]) -> str:
    """The first block of a report: one line per lens, linked to its section."""
    items = "".join(
        f"<li><a href='#{g.anchor}'>{html.escape(g.title)}</a> "
        f"<span class='label {g.label}' title='{html.escape(LABELS[g.label])}'>{g.label}</span> "
        f"{html.escape(g.sentence)}"
        + (f" <span class='nums'>{html.escape(g.numbers)}</span>" if g.numbers else "")
        + "</li>"
        for g in lines
    )
    return f"<section class='glance' id='glance'><h2>At a glance</h2><ul>{items}</ul></section>"


def glance_markdown(title: str, meta: str, lines: Sequence[Glance], notes: Sequence[str] = ()) -> str:
    """The at-a-glance block as Markdown (``summary.md``), for pasting into a paper or an issue."""
    out = [f"# {title}", "", meta, ""]
    out += [f"- **{g.title}** ({g.label}): {g.sentence}" + (f" {g.numbers}" if g.numbers else "") for g in lines]
    out += [""] + [f"- {n}" for n in notes] + ([""] if notes else [])
    out += [
        "Labels: " + "; ".join(f"{k} = {v}" for k, v in LABELS.items()) + ".",
        "Every number is in the CSV files and summary.json beside report.html.",
    ]
    return "\n".join(out) + "\n"


def page_html(title: str, parts: Sequence[str]) -> str:
    """The whole page: ``parts`` (HTML) in a responsive body with the style and the table script."""
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
        + "\n".join(parts)
        + f"\n<script>{SCRIPT}</script></body></html>\n"
    )
