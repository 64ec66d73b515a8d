"""The options and the result of one audit: what [`run_audit`][holdout.audit.run.run_audit] takes and
returns, and what [`render_report`][holdout.audit.report.render.render_report] reads (both import it from here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from holdout.audit.engines.pairs_lens import PairsLens
from holdout.audit.errors import AuditError, check_open_unit
from holdout.audit.report import verdicts

if TYPE_CHECKING:
    from holdout.audit.engines.adaptive_lens import AdaptiveLens
    from holdout.audit.engines.adversarial_lens import AdversarialLens
    from holdout.audit.engines.best_of import BestOfN
    from holdout.audit.engines.core import BoundsLens, NewSetLens, RvwLens, SimilarityLens
    from holdout.items.summary import ItemReport
    from holdout.leaderboards.dates import Contamination

__all__ = ["LENSES", "AuditOptions", "AuditResult"]

#: every lens, in report order
LENSES = ("accuracy", "pairs", "new", "similarity", "bounds", "rvw", "adversarial", "items")


@dataclass(frozen=True)
class AuditOptions:
    """Settings of one audit (the CLI's options). ``rvw_bits`` / ``rvw_detail`` come from
    [`holdout.audit.selection_bits`][holdout.audit.selection_bits]; None skips the Rip van Winkle lens."""

    eps: float = 0.01
    delta: float = 0.05
    alpha: float = 0.05
    band_level: float = 0.95
    etas: tuple[float, ...] = tuple(np.round(np.linspace(0.5, 1.0, 51), 4))
    lenses: tuple[str, ...] = LENSES
    rvw_bits: int | None = None
    rvw_detail: str = ""
    rvw_C: float = 5000.0
    selected: str | None = None
    translations: str | None = None
    adaptive: bool = False  # the adaptive analyst lens (--adaptive): seconds to minutes, so opt-in
    mid_p: bool = False  # the pairs lens: McNemar mid-p instead of the exact p-value (--mid-p)
    rank_resamples: int = 1000  # the pairs lens: bootstrap resamples of the simultaneous rank sets
    all_pairs: bool = False  # the pairs lens: every pair in pairs.csv, not only those the report reads (--all-pairs)
    variants: int | None = None  # the best model is the best of N variants (--variants)
    families: str | None = None  # CSV (model, family): each family's best is the best of its models (--families)

    def __post_init__(self) -> None:
        for name in ("eps", "delta", "alpha", "band_level"):
            check_open_unit(f"--{name.replace('_', '-')}", getattr(self, name))
        if self.variants is not None and int(self.variants) < 2:
            raise AuditError(f"--variants must be at least 2 (the best of N >= 2 tries), got {self.variants}")
        if not 10 <= int(self.rank_resamples) <= 10**6:
            raise AuditError(f"--rank-resamples must be a whole number in [10, 1000000], got {self.rank_resamples}")
        if not self.lenses:
            raise AuditError(f"--lenses: no lens named; choose from {', '.join(LENSES)}")
        unknown = [lens for lens in self.lenses if lens not in LENSES]
        if unknown:
            raise AuditError(f"--lenses: unknown lens(es) {unknown}; choose from {', '.join(LENSES)}")


@dataclass(frozen=True)
class AuditResult:
    """Everything the audit computed; lenses that were not run (or lacked inputs) are None."""

    source: str
    test_set: str
    options: AuditOptions
    accuracy: pd.DataFrame
    new: NewSetLens | None = None
    new_source: str | None = None
    similarity: SimilarityLens | None = None
    bounds: BoundsLens | None = None
    rvw: RvwLens | None = None
    notes: tuple[str, ...] = field(default=())
    adversarial: AdversarialLens | None = None
    inputs: tuple[str, ...] = field(default=())
    warnings: tuple[str, ...] = field(default=())
    adaptive: AdaptiveLens | None = None
    pass_rates: bool = False  # a correctness matrix of pass rates: the verdicts say what their numbers are
    contamination: Contamination | None = None  # the split by date of a correctness matrix (--split)
    pairs: PairsLens | None = None
    best_of_n: tuple[BestOfN, ...] = field(default=())
    clusters: dict[str, object] | None = None  # --clusters / --cluster-by: the summary.json entry
    samples: pd.DataFrame | None = None  # pass rates over m samples: the between / within split per model
    items: ItemReport | None = None  # the item screen, where the answers and keys are known

    def verdicts(self) -> pd.DataFrame:
        """One row per lens that ran: its name and its plain-language verdict."""
        pr = self.pass_rates
        rows = [("accuracy", verdicts.accuracy_verdict(self.accuracy, self.options.alpha, self.pairs, pass_rates=pr))]
        rows += [("pairs", verdicts.pairs_verdict(self.pairs))] if self.pairs is not None else []
        rows += [("new", verdicts.new_set_verdict(self.new))] if self.new is not None else []
        sim = self.similarity
        rows += [("similarity", verdicts.similarity_verdict(sim, pass_rates=pr))] if sim is not None else []
        rows += [("bounds", verdicts.bounds_verdict(self.bounds, pass_rates=pr))] if self.bounds is not None else []
        rows += [("rvw", verdicts.rvw_verdict(self.rvw))] if self.rvw is not None else []
        return pd.DataFrame(rows, columns=["lens", "verdict"])

    def _repr_html_(self) -> str:
        """What a notebook shows under the cell: the verdicts, then the accuracy table."""
        rows = "".join(
            f"<tr><th style='text-align:left'>{escape(lens)}</th><td style='text-align:left'>{escape(text)}</td></tr>"
            for lens, text in self.verdicts().itertuples(index=False)
        )
        head = f"<b>{escape(self.test_set)}</b>: {len(self.accuracy)} models, n = {int(self.accuracy['n'].iloc[0]):,}"
        table = self.accuracy.to_html(index=False, float_format=lambda x: f"{x:.2f}")
        return f"<div>{head}<table>{rows}</table>{table}</div>"
