"""Repeated samples in the audit: with pass rates over m >= 2 samples per item (``--samples m``, or
logs that say how many), the variance of each model's mean split into a between-item part, which
more samples do not shrink, and a within-item part, which they do (Miller 2024, "Adding error bars
to evals", Sec. 3; [`sample_variance_split_from_rates`][holdout.stats.sample_variance_split_from_rates]).

``samples.csv`` holds the split per model, as ``holdout power`` writes it
([`samples_table`][holdout.commands.power.samples_table]); ``summary.json`` gains ``samples`` and the
report one line: the split is measured, the number of samples per item that would make the within
part negligible is a rule (at most a tenth of the between part: the standard error then within 5%
of its limit for infinitely many samples).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from holdout.audit.result import AuditResult


__all__ = ["samples_entry", "with_samples"]


def with_samples(
    result: AuditResult, values: np.ndarray, model_names: Sequence[str], samples: int | None
) -> AuditResult:
    """``result`` with the between / within split of pass rates over ``samples`` per item and its
    report line; unchanged for 0/1 results or fewer than 2 samples per item."""
    v = np.asarray(values, dtype=float)
    if samples is None or samples < 2 or bool(((v == 0) | (v == 1)).all()):
        return result
    from holdout.commands.power import samples_table

    table = samples_table(v, [str(m) for m in model_names], int(samples))
    e = samples_entry(table)
    need = (
        ""
        if e["m_negligible_median"] is None
        else (
            f"; rule: a median {e['m_negligible_median']:g} samples per item would make it negligible "
            "(a tenth of the between-item part, samples.csv: m_negligible)"
        )
    )
    note = (
        f"Repeated samples (measured): with {samples} samples per item, the within-item sampling noise is a "
        f"median {100 * e['share_within_median']:.1f}% of a model's variance (samples.csv){need}."
    )
    return replace(result, samples=table, notes=(*result.notes, note))


def samples_entry(table: pd.DataFrame) -> dict[str, object]:
    """The ``samples`` entry of ``summary.json``: m, the median share of the within-item part
    (measured) and the median samples per item that make it negligible (rule)."""
    need = table["m_negligible"].dropna()
    return {
        "samples": int(table["samples"].iloc[0]),
        "share_within_median": float(table["share_within"].median()),
        "m_negligible_median": float(need.median()) if len(need) else None,
        "labels": {"share_within_median": "measured", "m_negligible_median": "rule"},
    }
