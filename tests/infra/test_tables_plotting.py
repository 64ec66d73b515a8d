"""holdout.tables and holdout.plotting: the one table writer and the one figure saver."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from holdout.plotting import save_figure
from holdout.tables import markdown_table, write_table


def test_markdown_table_layout():
    df = pd.DataFrame({"a": ["x", "y"], "b": ["1", ""]})
    md = markdown_table(df, {"a": "", "b": "B"}, align={"b": "r"}, notes=["n1"], title="# T")
    assert md.splitlines() == ["# T", "", "| | B |", "|---|---:|", "| x | 1 |", "| y | |", "", "- n1"]
    assert markdown_table(df).splitlines()[:2] == ["| a | b |", "|---|---|"]


def test_write_table_csv_and_markdown(tmp_path):
    df = pd.DataFrame({"a": [1.23456789], "b": ["z"]})
    write_table(df, csv=tmp_path / "d" / "t.csv", markdown=tmp_path / "d" / "t.md")
    assert pd.read_csv(tmp_path / "d" / "t.csv")["a"].iloc[0] == 1.23456789
    assert (tmp_path / "d" / "t.md").read_text() == "| a | b |\n|---|---|\n| 1.23456789 | z |\n"
    write_table(df, markdown=tmp_path / "own.md", markdown_text="own\n")
    assert (tmp_path / "own.md").read_text() == "own\n"


def test_save_figure_writes_png_pdf_and_csv(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save_figure(fig, tmp_path / "f" / "fig.png", data=pd.DataFrame({"x": [0, 1], "y": [1, 0]}))
    assert (tmp_path / "f" / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "f" / "fig.pdf").read_bytes()[:4] == b"%PDF"
    assert pd.read_csv(tmp_path / "f" / "fig.csv")["y"].tolist() == [1, 0]
    assert not plt.fignum_exists(fig.number)
