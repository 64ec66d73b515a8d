"""The site's numbers, read from the files ``holdout audit`` wrote for each benchmark (its
``summary.json``, ``ranks.csv``, ``pairs.csv``, ``models.csv``): nothing is recomputed here but
counts over those files (adjacent pairs, the size of the top tie group)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["BenchmarkResult", "adjacent_resolved", "read_benchmark", "model_rows", "index_table"]

#: index columns whose number is of this kind (the audit's labels: measured / theorem / heuristic)
LABELS = {
    "top_tie_group": "measured",
    "adjacent_resolved": "measured",
    "vouched_union": "theorem",
    "vouched_naive_bayes": "heuristic",
    "eps_all_union": "theorem",
    "contamination": "heuristic",
    "item_quality": "heuristic",
}
ITEM_KEYS = ("items", "item_quality", "itemquality")


@dataclass(frozen=True)
class BenchmarkResult:
    """One benchmark's row of the index (None where the input cannot give the number; ``why`` says why)."""

    name: str
    title: str
    kind: str
    k: int
    n: str
    best_model: str
    best_accuracy: float
    alpha: float
    eps: float | None
    top_tie_group: int | None
    adjacent_resolved: int | None
    adjacent_pairs: int | None
    vouched_union: int | None
    vouched_naive_bayes: int | None
    eps_all_union: float | None
    contamination: str
    item_quality: str
    ranked: bool
    why: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def adjacent_resolved(ranks: pd.DataFrame, pairs: pd.DataFrame, alpha: float) -> tuple[int, int]:
    """(resolved, K - 1): adjacent models in ``ranks.csv`` order whose paired difference is significant
    after Holm over all pairs (``pairs.csv``'s ``p_holm`` below ``alpha``)."""
    order = ranks["model"].astype(str).tolist()
    p = {
        (str(a), str(b)): float(v) for a, b, v in zip(pairs["model_a"], pairs["model_b"], pairs["p_holm"], strict=True)
    }
    hits = 0
    for a, b in zip(order[:-1], order[1:], strict=True):
        value = p.get((a, b), p.get((b, a), np.nan))
        hits += bool(value < alpha)
    return hits, max(len(order) - 1, 0)


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(": ")
    return (head if dot and len(head) < 220 else text.split(". ")[0]).strip().rstrip(".")


def _contamination(s: dict) -> str:
    c = s.get("contamination")
    if isinstance(c, dict) and "placed_models" in c:
        return f"{len(c.get('below_line', []))} of {c['placed_models']} later models below the line"
    er = s.get("effective_robustness")
    if isinstance(er, dict):
        return f"{er['significant_below']} below / {er['significant_above']} above the probit line"
    return ""


def _item_quality(s: dict) -> str:
    for key in ITEM_KEYS:
        if isinstance(s.get(key), dict) and s[key].get("verdict"):
            return _first_sentence(str(s[key]["verdict"]))
    return ""


def _ranked(name: str, title: str, kind: str, folder: Path, s: dict) -> BenchmarkResult:
    ranks = pd.read_csv(folder / "ranks.csv", dtype={"model": str})
    pairs = pd.read_csv(folder / "pairs.csv", dtype={"model_a": str, "model_b": str})
    alpha = float(s["options"]["alpha"])
    resolved, adjacent = adjacent_resolved(ranks, pairs, alpha)
    b = s.get("bounds", {})
    why = "" if b else next((x for x in s.get("notes", []) if "(bounds)" in x), "the bounds lens did not run")
    top = int((ranks["tie_group"] == ranks["tie_group"].iloc[0]).sum())
    return BenchmarkResult(
        name, title, kind, int(s["num_models"]), f"{int(s['n']):,}", str(ranks["model"].iloc[0]),
        float(ranks["accuracy"].iloc[0]), alpha, b.get("eps"), top, resolved, adjacent,
        b.get("union_k"), b.get("naive_bayes_k"), b.get("union_eps"),
        _contamination(s), _item_quality(s), True, why,
    )  # fmt: skip


def _table(name: str, title: str, kind: str, folder: Path, s: dict) -> BenchmarkResult:
    models = pd.read_csv(folder / "models.csv", dtype={"model": str})
    best = models.sort_values("orig_accuracy", ascending=False, kind="stable").iloc[0]
    why = "an accuracy table has no per-item results: no paired tests, rank intervals or bounds"
    n = f"{int(s['n_original']):,} / {int(s['n_new']):,}"
    return BenchmarkResult(
        name, title, kind, int(s["n_models"]), n, str(best["model"]), float(best["orig_accuracy"]),
        float(s.get("effective_robustness", {}).get("alpha", 0.05)), None, None, None, None, None, None, None,
        _contamination(s), "", False, why,
    )  # fmt: skip


def read_benchmark(name: str, title: str, kind: str, folder: Path) -> BenchmarkResult:
    """The index row of the audit written into ``folder``."""
    s = json.loads((folder / "summary.json").read_text())
    if (folder / "ranks.csv").is_file() and (folder / "pairs.csv").is_file():
        return _ranked(name, title, kind, folder, s)
    if (folder / "models.csv").is_file():
        return _table(name, title, kind, folder, s)
    raise ValueError(f"{folder}: the audit wrote neither ranks.csv nor models.csv")


def model_rows(result: BenchmarkResult, folder: Path, aliases: dict[str, str]) -> pd.DataFrame:
    """One row per model of a benchmark: ``model`` (after ``aliases``), its name there, accuracy
    (``accuracy_on``: the test set it is on; an accuracy table's new set in ``new_accuracy``) and,
    where the audit ranked the models, the rank, its simultaneous interval and tie group."""
    if result.ranked:
        t = pd.read_csv(folder / "ranks.csv", dtype={"model": str})
        t = t[["model", "accuracy", "rank", "rank_low", "rank_high", "tie_group"]]
        t.insert(2, "accuracy_on", "every item")
        t.insert(3, "new_accuracy", np.nan)
    else:
        s = json.loads((folder / "summary.json").read_text())
        t = pd.read_csv(folder / "models.csv", dtype={"model": str})[["model", "orig_accuracy", "new_accuracy"]]
        t = t.rename(columns={"orig_accuracy": "accuracy"})
        t.insert(2, "accuracy_on", str(s.get("original", "the original set")))
        for col in ("rank", "rank_low", "rank_high", "tie_group"):
            t[col] = pd.array([pd.NA] * len(t), dtype="Int64")
    out = t.rename(columns={"model": "name_on_benchmark"})
    out.insert(0, "model", out["name_on_benchmark"].map(lambda m: aliases.get(m, m)))
    out.insert(0, "benchmark", result.name)
    out["k"] = result.k
    return out


def index_table(results: list[BenchmarkResult]) -> pd.DataFrame:
    """The index as a frame (one row per benchmark), the CSV beside index.html."""
    return pd.DataFrame([r.as_dict() for r in results])
