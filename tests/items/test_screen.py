"""The screen end to end: items without a key, texts missing, evaluation logs, the leaderboard without flags."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from holdout.items import duplicate_groups, leaderboard_without_flagged, screen_items, screen_log_matrix
from holdout.logs import read_logs


def test_items_without_a_key_are_not_scored_and_the_rest_unchanged():
    rng = np.random.default_rng(5)
    ans = rng.integers(0, 3, (8, 30)).astype(object)
    key = rng.integers(0, 3, 30).astype(object)
    ans[:, 0] = 2
    key[0] = 1  # every model says 2: suspect
    holed = key.copy()
    holed[[3, 7]] = None
    whole = screen_items(ans.astype(str), key.astype(str))
    part = screen_items(ans.astype(str), np.where(holed == None, None, holed.astype(str)))  # noqa: E711
    keep = np.ones(30, bool)
    keep[[3, 7]] = False
    alone = screen_items(ans[:, keep].astype(str), key[keep].astype(str))
    assert np.isnan(part.scores.score[[3, 7]]).all() and (part.flag[[3, 7]] == "").all()
    np.testing.assert_allclose(part.scores.score[keep], alone.scores.score)
    assert part.flag[0] == whole.flag[0] == "suspect_key" and part.proposed_answer[0] == "2"
    frame = part.frame()
    assert list(frame.columns[:7]) == [
        "item", "key", "suspect_score", "proposed_answer", "models_for_proposed", "models_for_key", "models_answering",
    ]  # fmt: skip
    assert {"discrimination", "flagged", "duplicate_group"} <= set(frame.columns)


def test_items_without_text_are_in_no_duplicate_group():
    d = duplicate_groups(["same question here", None, "same question here", "", None], ["a", "b", "a", "c", "d"])
    assert d.group.tolist() == [0, -1, 0, -1, -1] and d.keys_agree[0] == 1.0
    assert d.pairs.tolist() == [] or set(d.pairs.ravel()) <= {0, 2}


def test_screen_of_an_every_eval_ever_log_matches_its_is_correct(shared_data: Path):
    """mmlu converted from HELM (Every Eval Ever, gpt2, 10 items): the models-for-key count is is_correct."""
    path = shared_data / "evallogs" / "eee_instance_level" / "mmlu__openai__gpt2__None_samples.jsonl"
    raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    screen = screen_log_matrix(read_logs(path))
    assert len(screen.items) == 10
    assert screen.scores.models_for_key.sum() == sum(r["evaluation"]["is_correct"] for r in raw)


def test_leaderboard_without_the_flagged_items():
    a = np.ones(100, bool)
    b = np.ones(100, bool)
    b[:10] = False  # B misses the ten flagged items only
    flagged = np.zeros(100, bool)
    flagged[:10] = True
    ch = leaderboard_without_flagged(np.vstack([b, a]), ["B", "A"], flagged)
    t = ch.table.set_index("model")
    assert t.loc["A", "rank"] == 1 and t.loc["B", "rank"] == 2  # 100% against 90%
    assert not t.loc["B", "tied_with_best"]  # McNemar: b = 10, c = 0, p = 2 / 2^10
    assert t.loc["B", "accuracy_without_flagged"] == 100 and t.loc["B", "tied_with_best_without_flagged"]
    assert t.loc["B", "rank_without_flagged"] == t.loc["A", "rank_without_flagged"] == 1  # equal: one rank
    assert ch.items_dropped == 10 and ch.top_group_changed and not ch.order_changed


def test_one_or_two_models_never_flag_and_few_models_give_no_discrimination_flag():
    ans = np.array([[1, 1, 0, 2], [1, 1, 0, 2]])
    key = np.array([0, 0, 0, 2])
    s = screen_items(ans, key, num_classes=3)
    assert (s.flag == "").all() and s.proposed_answer[0] == 1 and s.scores.models_for_proposed[0] == 2
    three = screen_items(np.vstack([ans, ans[:1]]), key, num_classes=3)
    assert three.flag[0] == "suspect_key"
