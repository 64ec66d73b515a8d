"""The audit in a notebook.

- Evidence in, one frame per lens out: ``read_predictions`` / ``read_matrix`` / ``read_accuracies``
  ([`holdout.audit.readers`][holdout.audit.readers]) return an
  [`Evidence`][holdout.audit.evidence.Evidence]; [`audit`][holdout.audit.notebook.audit] runs the lenses
  the [registry][holdout.audit.registry] finds for it and returns [`Lenses`][holdout.audit.notebook.Lenses]
  (``result["accuracy"]``, ``result.frames``, ``result.verdicts()``).
- Logs: [`read_logs`][holdout.logs.read_logs] gives the K x n correctness matrix of the logs (with its
  runs and item ids); ``audit`` on it runs every correctness lens as ``holdout audit logs`` does and
  returns an [`AuditResult`][holdout.audit.AuditResult] (``accuracy``, ``similarity.pairs``,
  ``verdicts()``), shown in a notebook as its verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from html import escape
from types import SimpleNamespace

import pandas as pd

from holdout.audit.correctness import contamination_of, correctness_result
from holdout.audit.engines.core import selection_bits
from holdout.audit.evidence import Evidence, LensResult
from holdout.audit.registry import LensOptions, lenses_for, run_lens
from holdout.audit.result import AuditOptions, AuditResult
from holdout.leaderboards import CorrectnessMatrix
from holdout.logs import LogMatrix, read_logs

__all__ = ["Lenses", "audit", "read_logs"]

#: the lenses that need only correctness
CORRECTNESS_LENSES = ("accuracy", "pairs", "similarity", "bounds", "rvw")


@dataclass(frozen=True)
class Lenses:
    """The lenses that ran on one evidence, by name, in report order."""

    evidence: Evidence
    results: dict[str, LensResult]

    @property
    def frames(self) -> dict[str, pd.DataFrame]:
        """One DataFrame per lens."""
        return {name: r.frame for name, r in self.results.items()}

    def __getitem__(self, lens: str) -> pd.DataFrame:
        return self.results[lens].frame

    def verdicts(self) -> pd.DataFrame:
        """One row per lens: its name, what kind of number it gives and its verdict."""
        rows = [(r.lens, r.label, r.verdict) for r in self.results.values()]
        return pd.DataFrame(rows, columns=["lens", "label", "verdict"])

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{escape(n)}</th><td>{escape(lab)}</td>"
            f"<td style='text-align:left'>{escape(v)}</td></tr>"
            for n, lab, v in self.verdicts().itertuples(index=False)
        )
        k, n = self.evidence.shape
        return f"<div><b>{escape(self.evidence.test_set)}</b>: {k} models, n = {n:,}<table>{rows}</table></div>"


def _audit_evidence(
    evidence: Evidence, lenses: Sequence[str] | None, bits: int | None, detail: str, **options
) -> Lenses:
    opts = LensOptions(rvw_bits=bits, rvw_detail=detail, **options)
    results = {s.name: run_lens(s, evidence, opts) for s in lenses_for(evidence, lenses)}
    return Lenses(evidence, {k: v for k, v in results.items() if v is not None})


def _options(kind: type, options: dict[str, object]) -> dict[str, object]:
    """``options`` checked against the fields of ``kind`` (AuditOptions or LensOptions): a TypeError
    naming the keywords there are (the command line's options, by their Python names)."""
    known = {f.name for f in fields(kind)} - {"lenses", "rvw_bits", "rvw_detail"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"audit() got unknown option(s) {unknown}; the options are {', '.join(sorted(known))}")
    if "etas" in options:
        options = options | {"etas": tuple(options["etas"])}  # type: ignore[arg-type]
    return options


def audit(
    matrix: CorrectnessMatrix | Evidence,
    *,
    lenses: Sequence[str] | None = None,
    eps: float = 0.01,
    delta: float = 0.05,
    alpha: float = 0.05,
    search_size: int | None = None,
    rvw_description: str | None = None,
    selected: str | None = None,
    name: str | None = None,
    item_dates: str | None = None,
    model_dates: str | None = None,
    split: str | None = None,
    date_format: str | None = None,
    **options: object,
) -> AuditResult | Lenses:
    """Every lens of ``lenses`` on the input, with the command line's options as keywords (their Python
    names: ``mid_p=True`` for ``--mid-p``, ``rank_resamples``, ``variants``, ``families``,
    ``adaptive``, ``band_level``, ``rvw_C``, ``etas``; ``search_size`` / ``rvw_description`` for
    ``--search-size`` / ``--rvw-description``; ``item_dates``, ``model_dates`` (CSV files), ``split`` and
    ``date_format`` for the split by date of a correctness matrix). Writing it:
    [`write_audit`][holdout.audit.write_audit].

    An [`Evidence`][holdout.audit.evidence.Evidence] (from ``read_predictions``, ``read_matrix``,
    ``read_accuracies``): the lenses the registry finds for it (``lenses``: a subset, by name), with the
    options of [`LensOptions`][holdout.audit.registry.LensOptions] as keywords; returns
    [`Lenses`][holdout.audit.notebook.Lenses], one DataFrame per lens that ran.

    A correctness matrix (as ``holdout audit logs`` / ``matrix``): accuracy with intervals, pairs,
    similarity, the bounds at ``eps`` / ``delta`` and, with ``search_size`` or ``rvw_description``
    (the selected model is the best of that many configurations, or has that description),
    Rip van Winkle's Razor; one model: its accuracy, the lenses that compare models skipped with a note;
    returns an [`AuditResult`][holdout.audit.AuditResult]."""
    given = rvw_description is not None or search_size is not None
    bits, detail = selection_bits(rvw_description, search_size) if given else (None, "")
    if isinstance(matrix, Evidence):
        kw = dict(eps=eps, delta=delta, alpha=alpha, selected=selected, **_options(LensOptions, options))
        return _audit_evidence(matrix, lenses, bits, detail, **kw)
    chosen = tuple(CORRECTNESS_LENSES if lenses is None else lenses)
    opts = AuditOptions(
        eps=eps,
        delta=delta,
        alpha=alpha,
        lenses=chosen,
        rvw_bits=bits,
        rvw_detail=detail,
        selected=selected,
        **_options(AuditOptions, options),  # type: ignore[arg-type]
    )
    task = str(matrix.runs["task"].iloc[0]) if isinstance(matrix, LogMatrix) and len(matrix.runs) else None
    title = name or task or "correctness matrix"
    when = SimpleNamespace(
        item_dates=item_dates, model_dates=model_dates, split=split, date_format=date_format, alpha=alpha
    )
    dates = contamination_of(matrix, SimpleNamespace(**vars(when), band_level=opts.band_level))
    result = correctness_result(matrix, opts, title, dates)
    extra = matrix.notes if isinstance(matrix, LogMatrix) else ()
    return replace(result, test_set=title, notes=(*result.notes, *extra))
