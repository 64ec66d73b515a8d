"""The report's words on an item screen: the flagged table and the verdict with the measured precision."""

from __future__ import annotations

import numpy as np

from holdout.items import leaderboard_without_flagged, screen_items
from holdout.items.evaluate import measured_precision
from holdout.items.summary import flagged_table, precision_sentence, screen_verdict


def _screen():
    ans = np.array([[1, 0, 2, 1], [1, 0, 2, 1], [1, 0, 2, 0], [1, 1, 2, 0], [1, 0, 1, 0]])
    key = np.array([0, 0, 2, 1])  # item 0: every model says 1
    texts = ["What is one?", "Pick zero", "Two?", "What is one?"]
    return screen_items(ans, key, list("abcde"), items=["q0", "q1", "q2", "q3"], num_classes=3, texts=texts)


def test_flagged_table_puts_key_and_proposal_side_by_side():
    t = flagged_table(_screen())
    assert t["item"].iloc[0] == "q0" and t["key"].iloc[0] == 0 and t["proposed_answer"].iloc[0] == 1
    assert t["models_for_proposed"].iloc[0] == 5 and list(t.columns[:3]) == ["item", "key", "proposed_answer"]
    assert t["question"].iloc[0] == "What is one?"


def test_verdict_counts_and_quotes_the_measured_precision():
    s = _screen()
    change = leaderboard_without_flagged(s.scores.models_for_key[None] > -1, ["x"], s.flagged)
    text = screen_verdict(s, change)
    assert text.startswith(f"{int(s.flagged.sum())} of 4 items flagged") and "Heuristic screen" in text
    assert "1 groups of duplicate items (1 whose keys disagree)" in text
    m = measured_precision()
    assert m["date"] in precision_sentence()
    assert f"{100 * m['reviewed']['mmlu_redux']['precision_any_error']:.0f}%" in precision_sentence()
