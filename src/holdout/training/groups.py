"""The fused groups of a plan: which search and seeds jobs can train as one network, and what they cost.

With ``training.fused_members: N`` (N > 1), the jobs of the search and seeds studies that share a
[`fusion_key`][holdout.training.fused.fusion_key] (network, batch size, epochs, views, image size)
are taken N at a time, in the plan's order, as groups that
[`holdout.training.fused.train_group`][holdout.training.fused.train_group] trains as one network
([`fusion_groups`][holdout.training.groups.fusion_groups]). ``holdout plan`` prints them, and with a
calibration that holds fused throughput rows (``python -m holdout.training.throughput``) their hours:
a group of m members costs its members' measured one-job step time x steps x m / gain(m) plus one
start-up, where gain(m) is the measured images/s of the largest measured fused group of at most m
members over one eager job of the same cell. For any other cell that gain is a **projection** from
the measured cell, and the line says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from holdout.training.cost import STARTUP_S

__all__ = ["FusedGroup", "fused_gain", "fusion_groups", "group_lines"]

FUSED_STUDIES = ("search", "seeds")


@dataclass(frozen=True)
class FusedGroup:
    """Jobs of one study trained as one fused network (their shared key and their names)."""

    study: str
    key: str
    jobs: tuple[str, ...]


def fusion_groups(specs: Sequence[Any], max_members: int) -> list[FusedGroup]:
    """The search and seeds jobs of ``specs`` (plan order), grouped by study and fusion key, at most
    ``max_members`` per group (first come, first grouped)."""
    from holdout.training.fused import fusion_key

    if max_members < 1:
        raise ValueError(f"training.fused_members must be >= 1, got {max_members}")
    by_key: dict[tuple[str, str], list[str]] = {}
    for spec in specs:
        if spec.study in FUSED_STUDIES:
            by_key.setdefault((spec.study, fusion_key(spec.model, spec.train)), []).append(spec.job)
    groups = []
    for (study, key), jobs in by_key.items():
        groups += [FusedGroup(study, key, tuple(jobs[i : i + max_members])) for i in range(0, len(jobs), max_members)]
    return groups


def fused_gain(calibration: Mapping[str, Any] | None, members: int) -> tuple[float, str, int] | None:
    """(gain, measured cell, measured group size): the measured images/s together of the largest fused
    group of at most ``members`` over one eager job of that cell, from the calibration's
    ``throughput`` rows; None without such rows."""
    rows = (calibration or {}).get("throughput") or []
    eager = {r["cell"]: r["images_per_s"] for r in rows if r["mode"] == "eager"}
    fused = [r for r in rows if r["mode"] == "fused" and r["cell"] in eager and r["members"] <= members]
    if not fused:
        return None
    best = max(fused, key=lambda r: (r["members"], r["images_per_s"]))
    return best["images_per_s"] / eager[best["cell"]], best["cell"], int(best["members"])


def group_lines(
    cfg: Mapping[str, Any], df: Any, specs: Sequence[Any], calibration: Mapping[str, Any] | None
) -> list[str]:
    """``holdout plan``'s lines on the fused groups (none unless ``training.fused_members`` > 1)."""
    n = int((cfg.get("training") or {}).get("fused_members", 1))
    if n <= 1:
        return []
    groups = fusion_groups(specs, n)
    hours = dict(zip(df["job"].astype(str) + "@" + df["study"].astype(str), df["gpu_hours_calibrated"], strict=True))
    lines = []
    for study in FUSED_STUDIES:
        mine = [g for g in groups if g.study == study]
        if not mine:
            continue
        sizes = sorted((len(g.jobs) for g in mine), reverse=True)
        jobs = sum(sizes)
        line = f"  fused groups (training.fused_members {n}): {study}: {jobs} jobs in {len(mine)} groups"
        line += f" of {sizes[-1]}-{sizes[0]} members ({len(set(g.key for g in mine))} distinct fusion keys)"
        total, measured = 0.0, set()
        have_rows = fused_gain(calibration, 10**9) is not None
        for g in mine:
            gain = fused_gain(calibration, len(g.jobs)) or (1.0, "", 1)  # smaller than any measured group: no gain
            one = [hours.get(f"{j}@{study}", float("nan")) for j in g.jobs]
            if not have_rows or any(h != h for h in one):
                total = float("nan")
                break
            total += (sum(h * 3600.0 - STARTUP_S for h in one) / gain[0] + STARTUP_S) / 3600.0
            if gain[1]:
                measured.add(f"{gain[1]}, {gain[2]} members: {gain[0]:.2f}x")
        if total == total:
            line += f"; {total:,.1f} GPU-hours at the fused gain measured on {'; '.join(sorted(measured))}"
            line += " (a projection for every other cell; groups smaller than any measured one at 1x)"
        else:
            line += "; hours: not calibrated (the calibration has no fused throughput rows)"
        lines.append(line)
    return lines
