"""The best of N variants: how much picking the best of N tries on one test set can inflate its score.

When an entry is the best of N variants scored on the same n items (Singh et al. 2025, "The
Leaderboard Illusion", report providers testing up to 27 private variants and publishing the best),
its test accuracy is the maximum of N correlated accuracies. That is Mania et al.'s (2019) K-model
setting: with probability 1 - delta every one of the N test accuracies lies within eps of its
population accuracy, so the selected score exceeds its own population accuracy by at most eps.
Three numbers, each labelled:

* the union bound (2) at k = N: a **theorem at plug-in values** (for pass rates conservative, their
  losses lie in [0, 1]), at the variants' error closest to 1/2 (the least favourable), or with
  ``--variants`` alone the selected entry's error;
* the similarity bound (3)+(8): a **theorem at plug-in values** for 0/1 results, at the similarity of
  the family's least similar pair (the bound assumes every pair is at least that similar), or, with
  ``--variants`` alone, the mean similarity of the audited models as a stand-in (variants of one
  model agree more, so the stand-in overstates the bound); for pass rates a **heuristic** extension
  (expected agreement);
* a resampling estimate ([`best_of_n_resampled`][holdout.stats.ranks.best_of_n_resampled]):
  **measured**, the expected and 1 - delta largest inflation under equal true accuracies, with the
  variants' own correlation. It needs the variants' results (``--families``).
"""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.audit.errors import AuditError
from holdout.bounds.eps import best_of_n_bounds
from holdout.stats.ranks import PLUG_IN, best_of_n_resampled, least_favourable_plug_ins

__all__ = [
    "BestOfN",
    "best_of_n",
    "best_of_n_lens",
    "best_of_n_summary",
    "best_of_n_table",
    "best_of_n_verdict",
    "read_families",
]


@dataclass(frozen=True)
class BestOfN:
    """One selected entry, the best of ``variants`` tries on ``n`` items. Inflations in accuracy
    points; None where a number does not apply (similarity below independent errors, no variants' data)."""

    family: str
    selected: str
    variants: int
    n: int
    accuracy: float
    similarity: float
    similarity_source: str
    union_bound: float
    similarity_bound: float | None
    resampled_expected: float | None
    resampled_upper: float | None
    delta: float
    pass_rates: bool
    error: float = float("nan")  # the error rate the bounds are evaluated at (fraction)
    union_label: str = PLUG_IN
    similarity_label: str = PLUG_IN


def best_of_n(
    family: str,
    selected: str,
    values: np.ndarray | None,
    *,
    variants: int,
    n: int,
    accuracy: float,
    similarity: float,
    similarity_source: str,
    delta: float = 0.05,
    pass_rates: bool = False,
) -> BestOfN:
    """The three inflations of the best of ``variants`` (``values``: their N x n results, or None);
    ``accuracy`` of the selected entry in percent, ``similarity`` a fraction."""
    if variants < 2:
        raise AuditError(f"--variants must be at least 2 (the best of N >= 2 tries), got {variants}")
    error = min(max(1.0 - accuracy / 100, 1.0 / (2 * n)), 1.0 - 1.0 / (2 * n))  # the bounds need 0 < error < 1
    if values is not None:  # the variants at hand: their least favourable error and least similar pair
        error, similarity = least_favourable_plug_ins(values)
        similarity_source += " (least similar pair; error closest to 1/2)"
    b = best_of_n_bounds(n, variants, error, similarity, delta, pass_rates=pass_rates)
    resampled = None if values is None else best_of_n_resampled(values, delta, seed=0)
    return BestOfN(
        family,
        selected,
        int(variants),
        int(n),
        float(accuracy),
        float(similarity),
        similarity_source,
        100 * b.union,
        None if b.similarity_bound is None else 100 * b.similarity_bound,
        None if resampled is None else 100 * resampled.expected,
        None if resampled is None else 100 * resampled.upper,
        float(delta),
        pass_rates,
        float(error),
        b.union_label,
        b.similarity_label,
    )


def read_families(path: str | Path, names: list[str]) -> dict[str, list[str]]:
    """``--families FILE``: a CSV with a header and two columns (model, family); every model of the
    file must be an audited model. Families with one model are left out (nothing was picked)."""
    p = Path(path)
    try:
        with open(p, newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.reader(fh) if any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(f"--families {p}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    if len(rows) < 2 or any(len(r) < 2 for r in rows):
        raise AuditError(f"--families {p}: expected a header and rows of (model, family)")
    known = set(names)
    unknown = [r[0].strip() for r in rows[1:] if r[0].strip() not in known]
    if unknown:
        raise AuditError(f"--families {p}: {len(unknown)} model(s) not in the audit, e.g. {unknown[0]!r}")
    families: dict[str, list[str]] = {}
    for model, fam, *_ in rows[1:]:
        families.setdefault(fam.strip(), []).append(model.strip())
    return {f: m for f, m in families.items() if len(m) >= 2}


def _mean_similarity(values: np.ndarray) -> float:
    """Mean over pairs i < j of the (expected) agreement 1 - a_i - a_j + 2 (X X^T)_ij / n of their
    results: Mania et al.'s similarity for 0/1 rows, its expectation for pass rates."""
    x = np.asarray(values, dtype=float)
    a = x.mean(axis=1)
    sim = 1.0 - a[:, None] - a[None, :] + 2.0 * (x @ x.T) / x.shape[1]
    return float(sim[np.triu_indices(len(a), k=1)].mean())


def family_results(
    values: np.ndarray, names: list[str], families: dict[str, list[str]], delta: float, pass_rates: bool
) -> tuple[BestOfN, ...]:
    """One [`BestOfN`][holdout.audit.engines.best_of.BestOfN] per family of at least 2 audited models, the
    similarity measured among them, the inflation resampled from their results."""
    pos = {m: i for i, m in enumerate(names)}
    out = []
    for fam, members in families.items():
        x = values[[pos[m] for m in members]]
        acc = 100 * x.mean(axis=1)
        best = members[int(np.argmax(acc))]
        out.append(
            best_of_n(
                fam,
                best,
                x,
                variants=len(members),
                n=x.shape[1],
                accuracy=float(acc.max()),
                similarity=_mean_similarity(x),
                similarity_source="measured among the family's models",
                delta=delta,
                pass_rates=pass_rates,
            )
        )
    return tuple(sorted(out, key=lambda b: -b.variants))


def best_of_n_table(results: tuple[BestOfN, ...]) -> pd.DataFrame:
    """``best_of_n.csv``: one row per selected entry."""
    return pd.DataFrame([asdict(r) for r in results])


def _pts(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def best_of_n_verdict(results: tuple[BestOfN, ...]) -> str:
    """The plain-words verdict, one sentence per selected entry (the largest N first, at most 5)."""
    parts = []
    for r in results[:5]:
        text = (
            f"Picking {r.selected} as the best of N = {r.variants} variants on n = {r.n:,} items can inflate its "
            f"score by up to {_pts(r.union_bound)} points (union bound at error {r.error:.3f}, {r.union_label}, "
            f"probability {1 - r.delta:g}), {_pts(r.similarity_bound)} (similarity bound at similarity "
            f"{r.similarity:.2f}, {r.similarity_source}; {r.similarity_label})"
        )
        if r.resampled_expected is not None:
            text += (
                f"; resampling (measured, equal true accuracies): {_pts(r.resampled_expected)} expected, "
                f"{_pts(r.resampled_upper)} at the {100 * (1 - r.delta):.0f}th percentile"
            )
        parts.append(text + ".")
    more = f" {len(results) - 5} more in best_of_n.csv." if len(results) > 5 else ""
    return " ".join(parts) + more


def best_of_n_lens(
    values: np.ndarray,
    names: list[str],
    *,
    variants: int | None,
    families: str | None,
    delta: float,
    pass_rates: bool,
) -> tuple[BestOfN, ...]:
    """``--families FILE`` (every family of at least 2 models) and ``--variants N`` (the most accurate
    model is the best of N untested variants; their similarity stood in for by the audited models')."""
    out: list[BestOfN] = []
    if families is not None:
        out += family_results(values, names, read_families(families, names), delta, pass_rates)
    if variants is not None:
        acc = 100 * values.mean(axis=1)
        best = int(np.argmax(acc))
        stand_in = _mean_similarity(values) if len(names) >= 2 else 1.0
        out.append(
            best_of_n(
                "",
                names[best],
                None,
                variants=int(variants),
                n=values.shape[1],
                accuracy=float(acc[best]),
                similarity=stand_in,
                similarity_source="stand-in: the mean similarity of the audited models (variants agree more)",
                delta=delta,
                pass_rates=pass_rates,
            )
        )
    return tuple(out)


def best_of_n_summary(results: tuple[BestOfN, ...]) -> dict[str, object]:
    """The ``best_of_n`` entry of ``summary.json``."""
    return {"results": [asdict(r) for r in results], "verdict": best_of_n_verdict(results)}
