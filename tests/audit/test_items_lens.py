"""The audit's items lens: items.csv, the report section and the leaderboard without the flagged items,
from predictions with labels and from lm-eval logs of a multiple-choice task."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from logfiles import lmeval_run

from holdout.audit.cli import main
from holdout.items.evaluate import measured_precision
from holdout.predictions import Predictions, save_predictions

COLUMNS = ["item", "suspect_score", "proposed_answer", "models_for_proposed", "discrimination", "flagged"]


def _predictions(tmp_path: Path) -> Path:
    """Five models on 60 items of 4 classes; item 0 keyed 3 where every model says 1."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, 60)
    preds = np.where(rng.random((5, 60)) < np.linspace(0.6, 0.9, 5)[:, None], labels, (labels + 1) % 4)
    preds[:, 0], labels[0] = 1, 3
    path = tmp_path / "preds.npz"
    save_predictions(path, Predictions.create(preds, labels, [f"m{k}" for k in range(5)], num_classes=4))
    return path


def test_predictions_audit_writes_items_csv_and_the_report_section(tmp_path):
    out = tmp_path / "audit"
    assert main(["audit", str(_predictions(tmp_path)), "--out", str(out), "--lenses", "accuracy,items"]) == 0
    items = pd.read_csv(out / "items.csv")
    assert set(COLUMNS) <= set(items.columns) and "duplicate_group" in items.columns and len(items) == 60
    first = items.iloc[0]
    assert first["item"] == 0 and first["flagged"] and first["proposed_answer"] == 1
    assert first["key"] == 3 and first["models_for_proposed"] == 5
    board = pd.read_csv(out / "items_leaderboard.csv")
    assert {"accuracy", "accuracy_without_flagged", "rank", "rank_without_flagged"} <= set(board.columns)
    summary = json.loads((out / "summary.json").read_text())
    s = summary["items"]
    assert s["flagged"] == int(items["flagged"].sum()) and "heuristic" in s["verdict"].lower()
    assert s["measured_precision"]["date"] == measured_precision()["date"]
    html = (out / "report.html").read_text()
    assert "id='items'" in html and "proposed_answer" in html
    assert not re.search(r"\b(nan|NaN|None)\b", re.sub(r"<[^>]+>", " ", html))


def mc_row(doc_id: int, chosen: int, key: int) -> dict:
    choices = ["red", "green", "blue"]
    lls = [-3.0, -3.0, -3.0]
    lls[chosen] = -0.1
    return {
        "doc_id": doc_id,
        "doc": {"question": f"Colour number {doc_id}?", "choices": choices, "answer": key},
        "target": key,
        "arguments": {f"gen_args_{j}": {"arg_0": "Q", "arg_1": f" {c}"} for j, c in enumerate(choices)},
        "resps": [[[ll, "False"]] for ll in lls],
        "filtered_resps": [[ll, "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc"],
        "acc": int(chosen == key),
    }


@pytest.mark.slow  # over a second of the fast loop; the lines it checks stay covered by fast tests beside it
def test_lmeval_logs_audit_writes_items_csv(tmp_path):
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 3, 20)
    keys[0] = 0
    for m in range(4):
        chosen = np.where(rng.random(20) < 0.8, keys, (keys + 1) % 3)
        chosen[0] = 2  # every model answers blue where the key says red
        rows = [mc_row(i, int(chosen[i]), int(keys[i])) for i in range(20)]
        lmeval_run(tmp_path / "logs" / f"m{m}", "colours", rows, model=f"org/m{m}")
    out = tmp_path / "audit"
    assert main(["audit", "--logs", str(tmp_path / "logs"), "--out", str(out)]) == 0
    items = pd.read_csv(out / "items.csv", dtype={"item": str, "proposed_answer": str})
    row = items[items["item"] == "0"].iloc[0]
    assert row["flagged"] and str(row["proposed_answer"]) == "2" and row["models_for_proposed"] == 4
    assert "colour number 0" in str(row["question"])
    html = (out / "report.html").read_text()
    assert "Which items are wrong" in html and "colour number 0" in html


def test_notebook_audit_returns_the_items_frame(tmp_path):
    """holdout.audit.audit(evidence): the registry runs the items lens where answers and keys exist."""
    import holdout.audit as ha

    path = _predictions(tmp_path)
    e = ha.read_predictions(path)
    result = ha.audit(e, lenses=["accuracy", "items"])
    frame = result.frames["items"]
    assert len(frame) == 60 and bool(frame["flagged"].iloc[0]) and frame["proposed_answer"].iloc[0] == 1
    from dataclasses import replace

    from holdout.audit.registry import lenses_for

    assert "items" not in {s.name for s in lenses_for(replace(e, answers=None, keys=None))}  # a matrix alone
