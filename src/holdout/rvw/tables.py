"""Arora & Zhang (2021) Tables 1 and 2: the Theorem 3.1 bound for each described model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from holdout.rvw.bound import rvw_bound
from holdout.rvw.description import EnglishRubric, description_length
from holdout.tables import markdown_table

__all__ = [
    "TABLE_COLUMNS",
    "rvw_table",
    "rvw_table_markdown",
]

# ---------------------------------------------------------------------------
# Tables 1 and 2
# ---------------------------------------------------------------------------

#: The paper's English rubric (Option 1, 1 bit per character), the default of
#: [`rvw_table`][holdout.rvw.tables.rvw_table].
_PAPER_ENGLISH = EnglishRubric()

TABLE_COLUMNS: tuple[str, ...] = (
    "name",
    "setting",
    "test_error",
    "n",
    "bits",
    "bits_source",
    "C",
    "delta",
    "bound",
    "paper_bits",
    "paper_bound",
    "bound_minus_paper",
)

"""Columns of [`rvw_table`][holdout.rvw.tables.rvw_table] (errors and bounds as fractions, bits in bits)."""


def rvw_table(
    rows: Sequence[Mapping[str, Any]],
    *,
    C: float = 5000,
    delta: float = 0.05,
    english: EnglishRubric = _PAPER_ENGLISH,
) -> list[dict[str, Any]]:
    """Arora & Zhang Tables 1-2: the Theorem 3.1 bound for each row.

    Each row has ``name``, ``test_error`` (fraction), ``n``, and either ``bits`` or
    ``description`` (a YAML file counted with [`description_length`][holdout.rvw.tables.description_length] under
    ``english``, rounded up to whole bits); optional ``setting``, ``paper_bits``,
    ``paper_bound`` are carried along for comparison. Returns one dict per row with
    the keys of [`TABLE_COLUMNS`][holdout.rvw.tables.TABLE_COLUMNS] (missing paper values are ``None``).
    """
    out = []
    for i, row in enumerate(rows):
        where = f"row {i} ({row.get('name', '?')})"
        for key in ("name", "test_error", "n"):
            if key not in row:
                raise ValueError(f"{where}: missing key {key!r}")
        if ("bits" in row) == ("description" in row):
            raise ValueError(f"{where}: give exactly one of 'bits' or 'description'")
        if "bits" in row:
            bits, source = float(row["bits"]), "given"
        else:
            bits, source = float(description_length(row["description"], english).bits), str(row["description"])
        try:
            bound = rvw_bound(float(row["test_error"]), bits, int(row["n"]), C=C, delta=delta)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        paper_bound = row.get("paper_bound")
        out.append(
            {
                "name": str(row["name"]),
                "setting": str(row.get("setting", "")),
                "test_error": float(row["test_error"]),
                "n": int(row["n"]),
                "bits": int(bits) if bits.is_integer() else bits,
                "bits_source": source,
                "C": float(C),
                "delta": float(delta),
                "bound": bound,
                "paper_bits": row.get("paper_bits"),
                "paper_bound": paper_bound,
                "bound_minus_paper": None if paper_bound is None else bound - float(paper_bound),
            }
        )
    return out


_MARKDOWN_COLUMNS = {
    "name": "Model",
    "setting": "Setting",
    "test_error": "Test error",
    "n": "N",
    "bits": "Desc. length (bits)",
    "bound": "Our bound",
    "bound4": "Our bound (4 d.p.)",
    "paper_bits": "Paper: length",
    "paper_bound": "Paper: bound",
    "same": "Same to 2 d.p.",
}


def _pct(x: float | None, digits: int = 2) -> str:
    return "" if x is None else f"{100 * float(x):.{digits}f} %"


def _num(x: float | None) -> str:
    return "" if x is None else f"{float(x):g}"


def rvw_table_markdown(table: Sequence[Mapping[str, Any]], title: str = "") -> str:
    """The rows of [`rvw_table`][holdout.rvw.tables.rvw_table] as a Markdown table, percentages to two decimals as in
    the paper."""
    lines = [f"### {title}", ""] if title else []
    if table:
        c, d = table[0]["C"], table[0]["delta"]
        lines += [f"C = {c:g}, delta = {d:g}; bound = fixed point of T(p), Theorem 3.1.", ""]
    shown = pd.DataFrame(
        [
            {
                "name": r["name"],
                "setting": r["setting"],
                "test_error": _pct(r["test_error"]),
                "n": r["n"],
                "bits": _num(r["bits"]),
                "bound": _pct(r["bound"]),
                "bound4": _pct(r["bound"], 4),
                "paper_bits": _num(r["paper_bits"]),
                "paper_bound": _pct(r["paper_bound"]),
                "same": ""
                if r["paper_bound"] is None
                else ("yes" if _pct(r["bound"]) == _pct(r["paper_bound"]) else "no"),
            }
            for r in table
        ],
        columns=list(_MARKDOWN_COLUMNS),
    )
    align = {c: "r" for c in list(_MARKDOWN_COLUMNS)[2:-1]} | {"same": "c"}
    text = "\n".join(lines) + ("\n" if lines else "") + markdown_table(shown, _MARKDOWN_COLUMNS, align)
    if any(r["paper_bound"] is not None and _pct(r["bound"]) != _pct(r["paper_bound"]) for r in table):
        text += (
            "\nRows marked 'no': the paper's printed bound and ours differ in the last printed "
            "digit; the 4-decimal column shows where the exact fixed point lies.\n"
        )
    return text
