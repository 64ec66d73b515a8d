"""Which lenses the audit has, what evidence each needs, and what kind of number each gives.

"Which lenses run on this input" is one lookup: [`lenses_for`][holdout.audit.registry.lenses_for]. A lens
is a module of ``holdout.audit.lenses`` with ``lens(evidence, options) -> LensResult``, imported only
when it runs; a new lens is that module and one line in ``LENSES``. Options a lens reads are those of
[`LensOptions`][holdout.audit.registry.LensOptions].
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass

from holdout.audit.evidence import LABELS, Evidence, LensResult
from holdout.audit.result import AuditOptions

__all__ = ["LENSES", "LensOptions", "LensSpec", "lenses_for", "run_lens", "spec"]


@dataclass(frozen=True)
class LensOptions(AuditOptions):
    """[`AuditOptions`][holdout.audit.AuditOptions] and the settings of the lenses that only the registry
    runs on an evidence (the command line passes these to its own writers)."""

    split: str | None = None  # YYYY-MM-DD: the contamination lens's split of the items by date (--split)
    reference_models: str | None = None  # the reference lens's models: a file, or column:NAME (--reference-models)
    fit: str = "spline"  # the reference lens's curve (--fit)
    chance: tuple[float, float] = (0.0, 0.0)  # random-guess accuracies, reference and benchmark (--chance)
    n_bootstrap: int = 1000  # the reference lens's bootstrap replicates (--n-bootstrap)


@dataclass(frozen=True)
class LensSpec:
    """A lens: its name (as ``--lenses`` writes it), its module, the evidence it needs
    ([`Evidence.provides`][holdout.audit.evidence.Evidence.provides]) and its label."""

    name: str
    module: str
    needs: frozenset[str]
    label: str
    title: str

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise ValueError(f"lens {self.name}: label {self.label!r} is not one of {', '.join(LABELS)}")


def _lens(name: str, needs: str, label: str, title: str) -> LensSpec:
    return LensSpec(name, f"holdout.audit.lenses.{name}", frozenset(needs.split()), label, title)


#: every lens, in report order
LENSES: tuple[LensSpec, ...] = (
    _lens("accuracy", "correctness", "measured", "accuracy with Clopper-Pearson intervals (Recht et al. 2018)"),
    _lens("pairs", "correctness", "measured", "paired comparisons and simultaneous rank intervals"),
    _lens("new_set", "new", "measured", "gap and linear fit on a newer test set (Recht et al.)"),
    _lens("similarity", "correctness", "measured", "similarity, covering numbers (Mania et al. 2019)"),
    _lens("bounds", "correctness", "theorem", "testable models under the union and similarity bounds"),
    _lens("rvw", "correctness", "theorem", "Rip van Winkle's Razor (Arora & Zhang 2021)"),
    _lens("adversarial", "predictions", "measured", "adversarial overfitting test (Werpachowski et al.)"),
    _lens("adaptive", "correctness binary", "heuristic", "an adaptive analyst against your models"),
    _lens("best_of_n", "correctness", "theorem", "inflation of a best-of-N pick"),
    _lens("reference", "accuracies", "heuristic", "ConStat's reference-benchmark test"),
    _lens("aline", "predictions new", "heuristic", "agreement on the line on an unlabeled newer set"),
    _lens("contamination", "correctness item_dates model_dates", "heuristic", "contamination by date"),
    _lens("items", "correctness answers keys", "heuristic", "which items are wrong: suspect keys, duplicates"),
)


def spec(name: str, registry: Sequence[LensSpec] | None = None) -> LensSpec:
    """The lens called ``name`` (of ``registry``, default ``LENSES``); ValueError naming the lenses there are."""
    registry = LENSES if registry is None else registry
    found = [s for s in registry if s.name == name]
    if not found:
        raise ValueError(f"unknown lens {name!r}; choose from {', '.join(s.name for s in registry)}")
    return found[0]


def lenses_for(
    evidence: Evidence, names: Sequence[str] | None = None, registry: Sequence[LensSpec] | None = None
) -> tuple[LensSpec, ...]:
    """The lenses (of ``names``, default every one of ``registry``, default ``LENSES``) whose needs
    ``evidence`` provides, in report order."""
    registry = LENSES if registry is None else registry
    chosen = registry if names is None else [spec(n, registry) for n in names]
    return tuple(s for s in chosen if s.needs <= evidence.provides)


def run_lens(lens: LensSpec, evidence: Evidence, options: LensOptions) -> LensResult | None:
    """``lens`` on ``evidence`` (its module imported now)."""
    return importlib.import_module(lens.module).lens(evidence, options)
