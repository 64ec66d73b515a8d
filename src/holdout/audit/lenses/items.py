"""Which items are wrong ([`holdout.items`][holdout.items]): suspect keys, the answer the models propose,
discrimination and duplicates, from the models' own answers; and the leaderboard recomputed without the
flagged items. The engine is [`item_report`][holdout.items.summary.item_report]; this module runs it on
the audit's evidence and writes its files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from holdout.audit.evidence import Evidence, LensResult
from holdout.items.evaluate import measured_precision
from holdout.items.summary import ItemReport, item_report

if TYPE_CHECKING:
    from holdout.audit.result import AuditOptions

__all__ = ["items_lens", "items_summary", "lens", "write_items"]

#: the engine, by the name the audit's other lenses use
items_lens = item_report


def lens(e: Evidence, options: AuditOptions) -> LensResult | None:
    """The item screen where the evidence has the models' answers and the keys (None elsewhere)."""
    if e.answers is None or e.keys is None or e.matrix is None:
        return None
    k = None if e.predictions is None else e.predictions.num_classes
    r = item_report(
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


def items_summary(r: ItemReport) -> dict[str, object]:
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


def write_items(r: ItemReport, out: Path) -> None:
    """``items.csv`` (one row per item) and ``items_leaderboard.csv`` (with and without the flagged items)."""
    r.screen.frame().to_csv(out / "items.csv", index=False)
    if r.change is not None:
        r.change.table.to_csv(out / "items_leaderboard.csv", index=False)
