"""One way to save a figure: PNG + PDF, and the CSV of every plotted value beside them.

Every study's ``plots.py`` builds a `matplotlib.figure.Figure` and its values; the
workflow scripts hand both to [`save_figure`][holdout.plotting.save_figure], so a reader can open the numbers behind
any figure without our code.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on the machines that run the workflow
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
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
    fig.savefig(png, dpi=PNG_DPI, bbox_inches="tight")
    fig.savefig(pdf, bbox_inches="tight")
    plt.close(fig)
    if data is not None:
        csv = png.with_suffix(".csv") if csv is None else Path(csv)
        csv.parent.mkdir(parents=True, exist_ok=True)
        data.to_csv(csv, index=False)
