"""What a report says about an item screen: the flagged items side by side with their keys, and the verdict.

The verdict is labelled heuristic and quotes the precision the screen reached on published reviews
([`measured_precision`][holdout.items.evaluate.measured_precision]), never that an item is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from holdout.items.answers import normalise_answer
from holdout.items.evaluate import measured_precision
from holdout.items.leaderboard import LeaderboardChange, leaderboard_without_flagged
from holdout.items.screen import ItemScreen, screen_items

__all__ = ["ItemReport", "flagged_table", "item_report", "precision_sentence", "screen_verdict"]


@dataclass(frozen=True)
class ItemReport:
    """The screen (``items.csv``), the leaderboard with and without the flagged items, and the verdict."""

    screen: ItemScreen
    change: LeaderboardChange | None
    verdict: str


def _comparable(values: np.ndarray) -> np.ndarray:
    """Answers or keys as compared: ints as they are, anything else normalised (None = no answer)."""
    a = np.asarray(values)
    if a.dtype.kind in "iu":
        return a
    flat = [None if v is None or (isinstance(v, float) and v != v) else normalise_answer(v) or None for v in a.ravel()]
    return np.array(flat, dtype=object).reshape(a.shape)


def item_report(
    answers: np.ndarray,
    keys: np.ndarray,
    models: Sequence[str],
    correct: np.ndarray,
    *,
    item_ids: Sequence[str] = (),
    item_text: Sequence[str | None] | None = None,
    num_classes: int | None = None,
    alpha: float = 0.05,
) -> ItemReport:
    """Screen the items of K x n ``answers`` against ``keys`` (strings compared after
    [`normalise_answer`][holdout.items.answers.normalise_answer]); ``correct`` is the leaderboard's K x n
    matrix, ranked again without the flagged items (two models or more)."""
    screen = screen_items(
        _comparable(answers),
        _comparable(keys),
        list(models),
        items=list(item_ids) or None,
        num_classes=num_classes,
        texts=item_text,
    )
    change = None
    if len(models) >= 2:
        change = leaderboard_without_flagged(np.asarray(correct, dtype=float), models, screen.flagged, alpha=alpha)
    return ItemReport(screen, change, screen_verdict(screen, change))


def flagged_table(screen: ItemScreen, limit: int | None = None, width: int = 160) -> pd.DataFrame:
    """The flagged items, most suspect first: item, key and proposed answer side by side, how many models
    give each, the score, discrimination, the flag, and the question (cut to ``width`` characters) where known."""
    f = screen.frame()
    f = f[f["flagged"]].sort_values("suspect_score", ascending=False, kind="stable")
    cols = ["item", "key", "proposed_answer", "models_for_key", "models_for_proposed", "models_answering"]
    cols += ["suspect_score", "discrimination", "flag", "duplicate_group"]
    out = f[cols + (["question"] if "question" in f else [])].copy()
    if "question" in out:
        out["question"] = [q if q is None or len(q) <= width else q[: width - 1] + "…" for q in out["question"]]
    return out.head(limit) if limit is not None else out


def precision_sentence() -> str:
    """The screen's measured precision on the published reviews, with its date, in one sentence."""
    m = measured_precision()
    r = m["reviewed"]
    mmlu, cifar = r["mmlu_redux"], r["cifar10"]
    return (
        f"measured {m['date']}: on MMLU-Redux (experts' review) {_pct(mmlu['precision_any_error'])} of the "
        f"{mmlu['flagged_suspect_key']} flagged items had an error ({_pct(mmlu['precision_wrong_key'])} a wrong "
        f"key); on CIFAR-10 (crowd review) {_pct(cifar['precision_wrong_key'])} of the "
        f"{cifar['flagged_suspect_key_reviewed']} reviewed flagged images had a wrong label"
    )


def _pct(x: float | None) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.0f}%"


def screen_verdict(screen: ItemScreen, change: LeaderboardChange | None = None) -> str:
    """One paragraph: how many items were flagged and why, what the leaderboard does without them, and the
    screen's measured precision (a heuristic screen)."""
    n = len(screen.items)
    suspect = int((screen.flag == "suspect_key").sum())
    negative = int((screen.flag == "negative_discrimination").sum())
    text = (
        f"{suspect + negative} of {n:,} items flagged for review: {suspect} where at least 80% of the models "
        f"give one answer other than the key, {negative} where weaker models do better (negative "
        "discrimination)."
    )
    k = len(screen.scores.ability)
    if k < 10:
        text += f" With {k} models no item is flagged for discrimination (that needs at least 10 models)."
    if screen.duplicates is not None and screen.duplicates.num_groups:
        d = screen.duplicates
        disagree = len(set(d.group[d.keys_agree == 0]))
        text += f" {d.num_groups} groups of duplicate items ({disagree} whose keys disagree)."
    if change is not None and change.items_dropped:
        order = "changes" if change.order_changed else "keeps"
        top = "changes" if change.top_group_changed else "stays the same"
        text += f" Without the flagged items the leaderboard {order} its order and the group tied with the best {top}."
    return text + f" Heuristic screen, not a verdict on any item; {precision_sentence()}."
