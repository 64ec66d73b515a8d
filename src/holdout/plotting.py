"""One way to save a figure: PNG + PDF, and the CSV of every plotted value beside them; and the
tick rules every figure shares (whole numbers on axes that count, plain numbers on log axes); and
names drawn as written ([`figure_text`][holdout.plotting.figure_text]).

Every study's ``plots.py`` builds a `matplotlib.figure.Figure` and its values; the
workflow scripts hand both to [`save_figure`][holdout.plotting.save_figure], so a reader can open the numbers behind
any figure without our code.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on the machines that run the workflow
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axis import Axis  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

#: resolution of every PNG the workflow writes
PNG_DPI = 150


def save_figure(
    fig: Figure,
    png: str | Path,
    pdf: str | Path | None = None,
    data: pd.DataFrame | None = None,
    csv: str | Path | None = None,
) -> None:
    """Write ``fig`` as PNG (150 dpi) and PDF, and ``data`` (the plotted values) as CSV; close it.

    ``pdf`` defaults to ``png`` with the suffix ``.pdf``; ``csv`` to the suffix ``.csv`` (only
    written when ``data`` is given). Parent folders are created.
    """
    png = Path(png)
    pdf = png.with_suffix(".pdf") if pdf is None else Path(pdf)
    for path in (png, pdf):
        path.parent.mkdir(parents=True, exist_ok=True)
    # One tight bounding box for both files, found at the PNG's resolution (bbox_inches="tight" would
    # draw the figure once more per file to find it): the same PNG, a PDF page within a fraction of
    # a point of its own tight box, a third less time per figure.
    dpi = fig.dpi
    fig.set_dpi(PNG_DPI)
    fig.draw_without_rendering()
    bbox = fig.get_tightbbox().padded(matplotlib.rcParams["savefig.pad_inches"])
    fig.set_dpi(dpi)
    fig.savefig(png, dpi=PNG_DPI, bbox_inches=bbox)
    fig.savefig(pdf, bbox_inches=bbox)
    plt.close(fig)
    if data is not None:
        csv = png.with_suffix(".csv") if csv is None else Path(csv)
        csv.parent.mkdir(parents=True, exist_ok=True)
        data.to_csv(csv, index=False)


def integer_ticks(axis: Axis) -> None:
    """Ticks at whole numbers only, with thousands separators: for an axis that counts things
    (models, pairs), never 0.5, 1.5 for three of them."""
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    axis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 2.5, 5, 10], min_n_ticks=2))
    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def _plain(value: float, _pos: object = None) -> str:
    """A log-axis tick as a plain number: 0.001, 0.5, 3, 1,000, 200,000; 10^k beyond a million."""
    if value <= 0:
        return ""
    exponent = np.log10(value)
    if value >= 1e7 or value < 1e-4:
        return f"$10^{{{exponent:.0f}}}$" if abs(exponent - round(exponent)) < 1e-9 else ""
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def plain_log_axis(axis: Axis, low: float, high: float) -> None:
    """A log axis from ``low`` to ``high`` labelled in plain numbers (1, 2, 5, 10, ... rather than
    2 x 10^0), with more labelled ticks where it spans few decades and fewer where it spans many."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    decades = np.log10(max(high, low * 1.0001) / low)
    subs = (1.0, 2.0, 3.0, 5.0) if decades < 1.5 else (1.0, 2.0, 5.0) if decades < 3.5 else (1.0,)
    numticks = 12 if decades < 12 else 8
    axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=numticks))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


#: control characters (C0, DEL, C1): drawn as their escapes
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def figure_text(text: object) -> str:
    """``text`` (a model or file name: any text) as matplotlib draws it as written: ``$`` escaped so
    that it is never read as mathtext (two of them would start a formula, or a traceback), control
    characters written as their escapes (``\\x1b``)."""
    escaped = _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))
    return escaped.replace("$", r"\$")
