"""Which items are wrong (holdout.items): suspect keys, the answer the models propose, discrimination and
duplicates, from the models' own answers; and the leaderboard recomputed without the flagged items."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from holdout.audit.evidence import Evidence, LensResult
from holdout.items import leaderboard_without_flagged, screen_items
from holdout.items.answers import normalise_answer
from holdout.items.evaluate import measured_precision
from holdout.items.leaderboard import LeaderboardChange
from holdout.items.screen import ItemScreen
from holdout.items.summary import screen_verdict

if TYPE_CHECKING:
    from holdout.audit.result import AuditOptions

__all__ = ["ItemsLens", "items_lens", "items_summary", "lens", "write_items"]


@dataclass(frozen=True)
class ItemsLens:
    """The screen (``items.csv``), the leaderboard with and without the flagged items, and the verdict."""

    screen: ItemScreen
    change: LeaderboardChange | None
    verdict: str


def _text(values: np.ndarray) -> np.ndarray:
    """Answers or keys as compared: ints as they are, anything else normalised (None = no answer)."""
    a = np.asarray(values)
    if a.dtype.kind in "iu":
        return a
    flat = [None if v is None or (isinstance(v, float) and v != v) else normalise_answer(v) or None for v in a.ravel()]
    return np.array(flat, dtype=object).reshape(a.shape)


def items_lens(
    answers: np.ndarray,
    keys: np.ndarray,
    models: Sequence[str],
    correct: np.ndarray,
    *,
    item_ids: Sequence[str] = (),
    item_text: Sequence[str | None] | None = None,
    num_classes: int | None = None,
    alpha: float = 0.05,
) -> ItemsLens:
    """Screen the items of K x n ``answers`` against ``keys``; ``correct`` is the leaderboard's K x n matrix."""
    screen = screen_items(
        _text(answers),
        _text(keys),
        list(models),
        items=list(item_ids) or None,
        num_classes=num_classes,
        texts=item_text,
    )
    change = None
    if len(models) >= 2:
        change = leaderboard_without_flagged(np.asarray(correct, dtype=float), models, screen.flagged, alpha=alpha)
    return ItemsLens(screen, change, screen_verdict(screen, change))


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The item screen where the evidence has the models' answers and the keys (None elsewhere)."""
    if e.answers is None or e.keys is None or e.matrix is None:
        return None
    k = None if e.predictions is None else e.predictions.num_classes
    r = items_lens(
        e.answers,
        e.keys,
        e.model_ids,
        e.matrix,
        item_ids=e.item_ids,
        item_text=e.item_text,
        num_classes=k,
        alpha=options.alpha,
    )
    return LensResult("items", "heuristic", r.verdict, r.screen.frame(), r)


def items_summary(r: ItemsLens) -> dict[str, object]:
    """The ``items`` entry of ``summary.json``: counts, the leaderboard change, the measured precision."""
    s = r.screen
    d = s.duplicates
    out: dict[str, object] = {
        "verdict": r.verdict,
        "items": len(s.items),
        "flagged": int(s.flagged.sum()),
        "suspect_key": int((s.flag == "suspect_key").sum()),
        "negative_discrimination": int((s.flag == "negative_discrimination").sum()),
        "duplicate_groups": None if d is None else d.num_groups,
        "measured_precision": measured_precision(),
    }
    if r.change is not None:
        out["leaderboard"] = {
            "items_dropped": r.change.items_dropped,
            "order_changed": r.change.order_changed,
            "top_group_changed": r.change.top_group_changed,
        }
    return out


def write_items(r: ItemsLens, out: Path) -> None:
    """``items.csv`` (one row per item) and ``items_leaderboard.csv`` (with and without the flagged items)."""
    r.screen.frame().to_csv(out / "items.csv", index=False)
    if r.change is not None:
        r.change.table.to_csv(out / "items_leaderboard.csv", index=False)
