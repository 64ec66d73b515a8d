"""The pieces of the site's pages: one stylesheet and a few lines of vanilla JavaScript, inline
(no network, opens from disk), sortable and filterable tables, numbers written as the audit's report
writes them, figures as inline PNGs."""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Column", "page", "table", "figure", "fmt_int", "fmt_pct", "esc"]

STYLE = """
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1180px;
padding:12px 16px;color:#1b1b1b}
p,li,h1,nav{overflow-wrap:anywhere}
h1{font-size:1.5em;margin:.4em 0}h2{font-size:1.2em;margin:1.4em 0 .4em}
a{color:#0b57a4}nav{font-size:.9em;margin-bottom:.5em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.88em;margin:.3em 0}
caption{text-align:left;font-weight:600;padding:.2em 0}
th,td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top;
overflow-wrap:break-word;min-width:4.5em;max-width:22em}
th{vertical-align:bottom}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;text-align:left}
th button::after{content:' \\2195';color:#999}
.tbl input{font:inherit;padding:.2em .4em;max-width:100%;width:18em}
.label{font-size:.75em;padding:0 .3em;border-radius:3px;background:#eef;color:#334;white-space:nowrap}
.label.theorem{background:#e6f4ea}.label.heuristic{background:#fdf0e0}
.note{color:#555;font-size:.9em}
img{max-width:100%;height:auto;display:block}
ul.verdicts li{margin:.3em 0}
"""

#: the browser itself refuses any request a page might make (inline style, script and images only)
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

SCRIPT = """
document.querySelectorAll('.tbl').forEach(box => {
  const table = box.querySelector('table'), body = table.tBodies[0];
  const input = box.querySelector('input');
  if (input) input.addEventListener('input', () => {
    const q = input.value.toLowerCase();
    for (const row of body.rows) row.hidden = q !== '' && !row.textContent.toLowerCase().includes(q);
  });
  table.querySelectorAll('th button').forEach((btn, col) => {
    let dir = 1;
    btn.addEventListener('click', () => {
      const rows = [...body.rows];
      const key = r => { const c = r.cells[col]; return c.dataset.v !== undefined ? c.dataset.v : c.textContent; };
      const num = rows.every(r => r.cells[col].dataset.v !== undefined);
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        if (num) { if (x === '') return 1; if (y === '') return -1; return dir * (Number(x) - Number(y)); }
        return dir * x.localeCompare(y);
      });
      rows.forEach(r => body.appendChild(r));
      dir = -dir;
    });
  });
});
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def fmt_int(v: Any) -> str:
    return f"{int(v):,}"


def fmt_pct(v: Any, digits: int = 1) -> str:
    return f"{float(v):.{digits}f}%"


def _missing(v: Any) -> bool:
    if v is None:
        return True
    try:
        return bool(math.isnan(float(v)))
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class Column:
    """A table column: its ``header``, the row ``key``, ``kind`` ('text', 'int', 'pct', 'float',
    'link': text with an href in ``key + '_href'``), and the text shown where a value is missing
    (or the row's ``key + '_missing'``); a text cell sorts by the row's number ``key + '_v'`` if given."""

    header: str
    key: str
    kind: str = "text"
    missing: str = "n/a"


def _cell(col: Column, row: dict[str, Any]) -> str:
    v = row.get(col.key)
    if col.kind in ("int", "pct", "float"):
        if _missing(v):
            return f'<td class="num" data-v="">{esc(row.get(col.key + "_missing", col.missing))}</td>'
        shown = {"int": fmt_int, "pct": fmt_pct, "float": lambda x: f"{float(x):.3g}"}[col.kind](v)
        return f'<td class="num" data-v="{float(v)!r}">{shown}</td>'
    text = esc(col.missing if v is None or v == "" else v)
    href, key = row.get(col.key + "_href"), row.get(col.key + "_v")
    td = "<td>" if key is None else f'<td data-v="{"" if _missing(key) else repr(float(key))}">'
    return f'{td}<a href="{esc(href)}">{text}</a></td>' if col.kind == "link" and href else f"{td}{text}</td>"


def table(caption: str, columns: Sequence[Column], rows: Sequence[dict[str, Any]], csv: str | None = None) -> str:
    """A sortable (click a column name), filterable (type in the box) table with every row."""
    head = "".join(f"<th><button type=button>{esc(c.header)}</button></th>" for c in columns)
    body = "\n".join("<tr>" + "".join(_cell(c, r) for c in columns) + "</tr>" for r in rows)
    link = f' <a href="{esc(csv)}" download>download CSV</a>' if csv else ""
    label = esc(f"filter {caption}")
    return (
        f'<div class="tbl"><input type="search" placeholder="filter rows" aria-label="{label}">{link}'
        f'<div class="scroll"><table><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>\n{body}\n</tbody></table></div></div>"
    )


def figure(png: Path, alt: str) -> str:
    """A PNG the audit drew, inline (the page stays one file)."""
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{esc(alt)}">'


def page(title: str, body: str, nav: str = "") -> str:
    """A whole page: inline style and script, nothing fetched."""
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>\n"
        f"<nav>{nav}</nav><h1>{esc(title)}</h1>\n{body}\n<script>{SCRIPT}</script></body></html>\n"
    )
