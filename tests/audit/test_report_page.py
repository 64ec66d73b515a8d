"""The report a person reads, without a browser: numbers as numbers, n/a with its reason, every row
up to K = 500 and beyond, the at-a-glance block and summary.md, figures sized from K with whole-number
and plain-number ticks. (tests/audit/test_report_browser.py opens the pages in Chromium.)"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from holdout.audit import AuditOptions, run_audit
from holdout.audit.engines.core import BoundsLens
from holdout.audit.report import page as pg
from holdout.audit.report.plots import MAX_ROWS, plot_accuracies, plot_testable_models
from holdout.audit.report.render import glance_lines, render_report, render_summary_md
from holdout.audit.run import summary_dict
from holdout.plotting import plain_log_axis
from holdout.predictions import Predictions
from holdout.similarity.plots import plot_covering_numbers, plot_difficulty, plot_pair_similarities


def _cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", html)


def test_table_counts_with_separators_percent_decimals_and_na_reason():
    df = pd.DataFrame(
        {
            "model": ["a", "b"],
            "correct": [396.0, 12345.0],
            "n": [500, 20000],
            "accuracy": [79.2, 61.725],
            "ratio": [1.23456, np.nan],
        }
    )
    html = pg.table_html(df, "t", "t.csv", decimals={"accuracy": 1}, na={"ratio": "n/a (no errors)"})
    assert _cells(html) == ["a", "396", "500", "79.2", "1.23", "b", "12,345", "20,000", "61.7", "n/a (no errors)"]
    assert "396.000" not in html and "nan" not in html.lower().replace("n/a", "")
    assert "href='t.csv' download" in html
    assert "data-v='12345.0'" in html  # the raw value the script sorts by


def test_table_keeps_every_row_up_to_the_limit_and_says_where_the_rest_are():
    df = pd.DataFrame({"model": [f"m{i}" for i in range(501)], "accuracy": np.linspace(0, 100, 501)})
    html = pg.table_html(df, "t", "acc.csv")
    assert html.count("<tr>") == 502 and "all of them in" not in html  # header + every row at K = 501
    short = pg.table_html(df, "t", "acc.csv", max_rows=100)
    assert short.count("<tr>") == 101 and "The first 100 of 501 rows; all of them in acc.csv." in short


@pytest.mark.parametrize(
    ("widths", "decimals"),
    [([7.3], 1), ([0.42, 3.0], 2), ([12.0], 0), ([0.05], 3), ([0.0001], 3), ([], 2), ([np.nan, 1.0], 1)],
)
def test_percent_decimals_follow_the_narrowest_interval(widths, decimals):
    assert pg.percent_decimals(widths) == decimals


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("A is 0.5. B.", "A is 0.5."),
        ("Mania et al. Fig. 4 shows it. Then more.", "Mania et al. Fig. 4 shows it."),
        ("Gap 1.2 points (e.g. this); no end", "Gap 1.2 points (e.g. this); no end."),
        ("n = 500. 20 others overlap.", "n = 500."),
    ],
)
def test_first_sentence(text, first):
    assert pg.first_sentence(text) == first


def test_glance_refuses_an_unknown_label():
    with pytest.raises(ValueError, match="label 'proved'"):
        pg.Glance("x", "proved", "s", "", "x")


def _preds(k: int, n: int, seed: int = 0) -> Predictions:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    skill = np.linspace(0.55, 0.9, k)[:, None]
    preds = np.where(rng.random((k, n)) < skill, labels, 1 - labels)
    return Predictions.create(preds, labels, [f"model_{i:03d}" for i in range(k)], num_classes=2)


def test_report_opens_with_one_labelled_line_per_lens_and_names_the_file_only(tmp_path):
    source = str(tmp_path / "home" / "someone" / "preds.csv")
    result = run_audit(_preds(4, 400), AuditOptions(etas=(0.9, 1.0), rvw_bits=3, rvw_detail="3 bits"), source=source)
    summary = summary_dict(result)
    lines = glance_lines(result, summary)
    assert [(g.title, g.label) for g in lines] == [
        ("Accuracy", "measured"),
        ("Paired comparisons", "measured"),
        ("Similarity", "measured"),
        ("Models supported", "theorem"),
        ("Rip van Winkle's Razor", "theorem"),
        ("Item screen", "heuristic"),
    ]
    for g in lines:
        assert str(summary[g.anchor]["verdict"]).startswith(g.sentence) and g.numbers
    html = render_report(result, summary, {})
    assert html.index("At a glance") < html.index("<h2 id='accuracy'>")
    assert "href='#bounds'" in html and "preds.csv" in html and "someone" not in html
    assert not re.search(r"\b(nan|NaN|None)\b", re.sub(r"<[^>]+>", " ", html))
    md = render_summary_md(result, summary)
    assert md.startswith("# holdout audit: ") and "- **Accuracy** (measured): " + lines[0].sentence in md
    assert "someone" not in md


def test_union_bound_at_zero_models_gives_reasons_not_nan():
    lens = BoundsLens(500, 0.5, 0.7, 0.01, 0.05, 0, 0, 0, 134, 0.08, 0.08, 0.077)
    assert np.isnan(lens.similarity_gain)  # what the old table printed as 'nan'
    from holdout.audit.report.render import _bounds_table
    from holdout.audit.result import AuditResult

    acc = pd.DataFrame({"model": ["a"], "rank": [1], "correct": [1], "n": [2], "accuracy": [50.0]})
    html = _bounds_table(AuditResult("x.csv", "x", AuditOptions(), acc, bounds=lens))
    assert "n/a (the union bound supports 0 models)" in html and "nan" not in html


def _texts(fig) -> list:
    return [t for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip() and t.get_visible()]


def _tick_labels(axis) -> list[str]:
    axis.figure.canvas.draw()
    lo, hi = axis.get_view_interval()
    return [t.get_text() for t, v in zip(axis.get_ticklabels(), axis.get_ticklocs()) if lo <= v <= hi]


@pytest.mark.parametrize("k", [3, 134])
def test_accuracy_figure_rows_from_k_and_the_rest_said_on_the_figure(k):
    acc = pd.DataFrame(
        {
            "model": [f"model_with_a_rather_long_name_number_{i:04d}" for i in range(k)],
            "accuracy": np.linspace(90, 10, k),
        }
    )
    acc["ci_low"], acc["ci_high"] = acc["accuracy"] - 3, acc["accuracy"] + 3
    fig = plot_accuracies(acc, "t")
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == min(k, MAX_ROWS) and len(set(labels)) == len(labels)  # shortened names stay distinct
    assert max(map(len, labels)) <= 38
    said = [t.get_text() for t in _texts(fig) if "not drawn" in t.get_text()]
    if k > MAX_ROWS:
        assert said == [f"{k - MAX_ROWS:,} models between these rows not drawn\n(all {k:,} in accuracy.csv)"]
        assert labels[0].endswith("0000") and labels[-1].endswith(f"{k - 1:04d}")  # the best and the worst
    else:
        assert not said
    width, height = fig.get_size_inches()
    assert width <= 5.6 and height <= 1.5 + 0.19 * (MAX_ROWS + 3) + 1e-9
    fig.canvas.draw()
    assert fig.get_tightbbox(fig.canvas.get_renderer()).width <= 5.6  # as saved (bbox_inches="tight")
    assert min(t.get_fontsize() for t in _texts(fig)) >= 8
    plt.close(fig)


def test_counting_axes_have_whole_ticks_and_log_axes_plain_numbers():
    sims = np.array([0.84, 0.87, 0.873])
    fig = plot_pair_similarities(sims, sims - 0.1, "t", 3)
    assert all(re.fullmatch(r"\d[\d,]*", s) for s in _tick_labels(fig.axes[0].xaxis))
    plt.close(fig)
    fig = plot_difficulty(np.array([0.743, 0.87, 0.95, 1.0]), "t", marks=[0, 2], n=300, unit="test points")
    assert _tick_labels(fig.axes[0].xaxis) == ["0", "1", "2", "3"]
    assert "the 300 test points" in fig.axes[0].get_ylabel()
    plt.close(fig)
    fig = plot_covering_numbers(np.linspace(0.5, 1, 11), np.r_[np.full(8, 2), np.full(3, 3)], 3, "t")
    assert _tick_labels(fig.axes[0].yaxis) == ["1", "2", "3"]
    plt.close(fig)
    fig, ax = plt.subplots()
    ax.set_yscale("log")
    ax.set_ylim(0.6, 3e5)
    plain_log_axis(ax.yaxis, 0.6, 3e5)
    assert _tick_labels(ax.yaxis) == ["1", "10", "100", "1,000", "10,000", "100,000"]
    plt.close(fig)


def test_testable_models_figure_writes_each_count():
    lens = BoundsLens(500, 0.5, 0.7, 0.01, 0.05, 0, None, 12_345, 134)
    fig = plot_testable_models(lens, 134, "t")
    texts = {t.get_text() for t in _texts(fig)}
    assert {"0", "does not apply", "12,345", "models evaluated K = 134"} <= texts
    assert all("10^" not in s and "\\times" not in s for s in _tick_labels(fig.axes[0].yaxis))
    plt.close(fig)


def test_figure_html_shows_150_css_px_per_inch(tmp_path):
    """A 150-dpi PNG shown pixel for pixel: a 4 x 3 in figure takes 600 x 450 CSS px."""
    fig, _ = plt.subplots(figsize=(4, 3))
    fig.savefig(tmp_path / "f.png", dpi=150)
    plt.close(fig)
    html = pg.figure_html(Path(tmp_path / "f.png"), "caption")
    assert "width='600'" in html and "height='450'" in html and "f.csv" in html
