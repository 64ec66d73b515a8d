"""The audit's figures laid out for any K and any name length, measured on the figures themselves as
the command line writes them: no text outside the figure or over another text (the heatmap's title
over its colour bar), model names shortened so that they stay distinct, the plot area at least
two fifths of the figure's width, no text under 8 pt, the accuracy chart's note inside its plot
area, and the reversed rank axis with a tick at 1. (The browser test checks the page at 1,400 and
390 px.)"""

from __future__ import annotations

from pathlib import Path

import matplotlib.figure
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from holdout.audit.cli import main

LONG = [
    "anthropic/claude-3-5-sonnet-20240620",
    "anthropic/claude-3-opus-20240229",
    "organisation-with-a-long-name/model-family-variant-2024-06-20-instruct-a",
    "organisation-with-a-long-name/model-family-variant-2024-06-20-instruct-b",
    "mistralai/mixtral-8x22b-instruct-v0.1",
    "meta/llama-3-70b-chat",
    "x",
    "qwen/qwen2-72b-instruct",
    "openai/gpt-4-turbo-2024-04-09",
]


def _texts(fig: matplotlib.figure.Figure) -> list[tuple[str, Text]]:
    """(role, text) of every visible non-empty text: role 'tick:<axis id>' for tick labels."""
    out = []
    axes = fig.findobj(matplotlib.axis.Axis)
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or t.figure is None:
            continue
        axis = next((a for a in axes if t in a.get_ticklabels(which="both")), None)
        if axis is not None:  # a tick label is drawn only where its tick lies in the view
            lo, hi = sorted(axis.get_view_interval())
            loc = t.get_position()[0 if isinstance(axis, matplotlib.axis.XAxis) else 1]
            if not lo - 1e-9 * max(1.0, abs(hi)) <= loc <= hi + 1e-9 * max(1.0, abs(hi)):
                continue
        out.append((f"tick:{id(axis)}" if axis is not None else "text", t))
    return out


def _measure(fig: matplotlib.figure.Figure) -> dict:
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    page = fig.bbox
    texts = [(role, t, t.get_window_extent(r)) for role, t in _texts(fig)]
    outside = [
        t.get_text() for _, t, b in texts if b.x0 < page.x0 - 1 or b.x1 > page.x1 + 1 or b.y0 < -1 or b.y1 > page.y1 + 1
    ]
    overlaps = [
        (a.get_text(), c.get_text())
        for i, (ra, a, ba) in enumerate(texts)
        for rc, c, bc in texts[i + 1 :]
        if not (ra == rc and ra.startswith("tick")) and ba.overlaps(bc) and ba.width > 0 and bc.width > 0
    ]
    axes = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    main = max(axes, key=lambda a: a.get_window_extent(r).width * a.get_window_extent(r).height)
    mb = main.get_window_extent(r)
    ticks = {
        "y": [t.get_text() for role, t in _texts(fig) if role == f"tick:{id(main.yaxis)}"],
        "x": [t.get_text() for role, t in _texts(fig) if role == f"tick:{id(main.xaxis)}"],
    }
    lo, hi = sorted(main.get_xlim())
    return {
        "outside": outside,
        "overlaps": overlaps,
        "plot_fraction": mb.width / page.width,
        "smallest_pt": min(t.get_fontsize() for _, t, _ in texts),
        "ticks": ticks,
        "xticks_in_view": [v for v in main.get_xticks() if lo - 1e-9 <= v <= hi + 1e-9],
        "x_inverted": main.xaxis_inverted(),
        "main_x": (mb.x0, mb.x1),
        "notes": [(t.get_text(), b.x0, b.x1) for _, t, b in texts if "not drawn" in t.get_text()],
    }


@pytest.fixture
def figures(monkeypatch) -> dict[str, dict]:
    """PNG stem -> the measurements of the figure written there, for every figure the audit saves."""
    seen: dict[str, dict] = {}
    original = matplotlib.figure.Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        if str(fname).endswith(".png"):
            seen[Path(fname).stem] = _measure(self)
        return original(self, fname, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return seen


def _audit(tmp_path: Path, names: list[str], n: int, lenses: str, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    p = np.linspace(0.9, 0.3, len(names))
    x = (rng.random((len(names), n)) < p[:, None]).astype(int)
    csv = tmp_path / "m.csv"
    pd.DataFrame(x, index=pd.Index(names, name="model"), columns=[f"i{j}" for j in range(n)]).to_csv(csv)
    argv = ["audit", str(csv), "--correctness", "--lenses", lenses]
    argv += ["--rank-resamples", "100"] if "pairs" in lenses else []
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0


def _common(name: str, m: dict) -> None:
    assert not m["outside"], (name, m["outside"])
    assert not m["overlaps"], (name, m["overlaps"])
    assert m["smallest_pt"] >= 8, name
    assert m["plot_fraction"] >= 0.4, (name, m["plot_fraction"])


def test_figures_with_long_names(tmp_path: Path, figures: dict[str, dict]) -> None:
    _audit(tmp_path, LONG, 100, "accuracy,pairs")
    assert {"accuracy", "rank_intervals", "pair_differences"} <= set(figures)
    for name, m in figures.items():
        _common(name, m)
    for name in ("accuracy", "rank_intervals", "pair_differences"):
        labels = figures[name]["ticks"]["y"]
        assert len(labels) == len(LONG) and len(set(labels)) == len(LONG), (name, labels)
    rank = figures["rank_intervals"]
    assert rank["x_inverted"] and 1 in [round(v) for v in rank["xticks_in_view"]]


@pytest.mark.slow  # 70 models: the accuracy chart's best and worst 30 with the note between them
def test_accuracy_chart_note_stays_in_the_plot(tmp_path: Path, figures: dict[str, dict]) -> None:
    names = [f"organisation-{i % 7}/a-rather-long-model-name-variant-{i:03d}" for i in range(70)]
    _audit(tmp_path, names, 80, "accuracy")
    m = figures["accuracy"]
    _common("accuracy", m)
    ((note, x0, x1),) = m["notes"]
    assert m["main_x"][0] - 1 <= x0 and x1 <= m["main_x"][1] + 1, (note, x0, x1, m["main_x"])
    assert len(set(m["ticks"]["y"])) == len(m["ticks"]["y"]) == 60
