"""The bounds study of Mania et al. (2019): Figure 1b, Figure 2 and Table 1 as tables.

Pure functions over [`holdout.bounds`][holdout.bounds]; the workflow scripts call them and the plotting
functions in `holdout.plots_bounds` draw their results.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from holdout.bounds.core import (
    naive_bayes_bound_k,
    similarity_bound_k,
    union_bound_k,
)
from holdout.stats import independent_similarity
from holdout.tables import fmt_gain, markdown_table

__all__ = [
    "Setting",
    "load_measured_setting",
    "check_similarity_above_independent",
    "ModelCounts",
    "count_testable_models",
    "testable_model_counts",
    "gain_grid",
    "figure1b_table",
    "figure2_panel",
    "load_setting",
    "save_setting",
    "table1_notes",
    "table1",
    "table1_markdown",
    "fmt_gain",
]


@dataclass(frozen=True)
class Setting:
    """A test set and a family of models: size n, mean accuracy and mean pairwise similarity.

    ``source`` says where the numbers come from ("config" or the measured JSON's path).
    """

    n: int
    mean_accuracy: float
    similarity: float
    source: str = "config"

    def __post_init__(self) -> None:
        self._check_ranges()
        check_similarity_above_independent(self.similarity, self.error, f"setting ({self.source}) similarity")

    def _check_ranges(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"setting ({self.source}): n must be a positive integer, got {self.n!r}")
        if not 0.0 < float(self.mean_accuracy) < 1.0:
            raise ValueError(
                f"setting ({self.source}): mean_accuracy must lie strictly between 0 and 1, got {self.mean_accuracy!r}"
            )
        if not 0.0 < float(self.similarity) <= 1.0:
            raise ValueError(f"setting ({self.source}): similarity must lie in (0, 1], got {self.similarity!r}")

    @property
    def error(self) -> float:
        """The population error rate mu = 1 - mean accuracy."""
        return 1.0 - float(self.mean_accuracy)

    def to_json(self) -> dict[str, object]:
        return asdict(self) | {"error": self.error}

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> Setting:
        """The setting of config ``bounds.setting`` (keys n, mean_accuracy, similarity)."""
        return cls(
            n=int(cfg["n"]),
            mean_accuracy=float(cfg["mean_accuracy"]),
            similarity=float(cfg["similarity"]),
            source="config",
        )


def save_setting(setting: Setting, path: str | Path) -> None:
    """Write ``setting`` as the JSON that the bounds rules read (``results/bounds/setting.json``)."""
    with open(path, "w") as fh:
        json.dump(setting.to_json(), fh, indent=2)
        fh.write("\n")


def load_setting(path: str | Path) -> Setting:
    """Read the JSON written by [`save_setting`][holdout.bounds.study.save_setting] back into a
    [`Setting`][holdout.bounds.study.Setting]."""
    data = json.loads(Path(path).read_text())
    return Setting(
        n=data["n"], mean_accuracy=data["mean_accuracy"], similarity=data["similarity"], source=data["source"]
    )


def check_similarity_above_independent(similarity: float, error: float, what: str) -> None:
    """Raise ``ValueError`` naming ``what`` when ``similarity`` < mu^2 + (1 - mu)^2 (mu = ``error``).

    The similarity and naive-Bayes bounds of Mania et al. rest on the coupling of Appendix B,
    which exists only when the models' errors are not negatively correlated, i.e. when the
    similarity is at least that of independent errors (Sec. 5.1).
    """
    floor = independent_similarity(error)
    if not float(similarity) >= floor - 1e-12:
        raise ValueError(
            f"{what} = {float(similarity)!r} is below the independent-errors similarity "
            f"mu^2 + (1 - mu)^2 = {floor:.6g} at error mu = {float(error):.6g} (accuracy {1 - float(error):.6g}); "
            "the bounds of Mania et al. need a similarity at least that large"
        )


def load_measured_setting(path: str | Path) -> Setting:
    """Read the measured ImageNet setting: JSON with keys ``n``, ``mean_accuracy``, ``mean_similarity``.

    Written by the similarity stage (``results/similarity/imagenet/setting.json``). Errors
    name the file and the key.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: measured setting not found (bounds.setting_from: measured)") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object with keys n, mean_accuracy, mean_similarity")
    for key in ("n", "mean_accuracy", "mean_similarity"):
        if key not in data:
            raise ValueError(f"{path}: missing key {key!r} (need n, mean_accuracy, mean_similarity)")
    n = data["n"]
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    for key in ("mean_accuracy", "mean_similarity"):
        if isinstance(data[key], bool) or not isinstance(data[key], (int, float)):
            raise ValueError(f"{path}: key {key!r} must be a number, got {data[key]!r}")
    return Setting(
        n=n,
        mean_accuracy=float(data["mean_accuracy"]),
        similarity=float(data["mean_similarity"]),
        source=str(path),
    )


@dataclass(frozen=True)
class ModelCounts:
    """The number of testable models under the three bounds (Mania et al. Sec. 5.1)."""

    n: int
    error: float
    similarity: float
    eps: float
    delta: float
    union_k: int
    similarity_k: int
    naive_bayes_k: int

    @property
    def similarity_gain(self) -> float:
        """Multiplicative gain of the similarity bound over the union bound (Fig. 2, Table 1 'SB')."""
        return _ratio(self.similarity_k, self.union_k)

    @property
    def naive_bayes_gain(self) -> float:
        """Multiplicative gain of the naive-Bayes bound over the union bound ('NBB')."""
        return _ratio(self.naive_bayes_k, self.union_k)


def _ratio(a: int, b: int) -> float:
    return math.nan if b == 0 else a / b


def count_testable_models(
    n: int, error: float, similarity: float, eps: float, delta: float, form: str = "literal"
) -> ModelCounts:
    """The k of [`union_bound_k`][holdout.bounds.study.union_bound_k],
    [`similarity_bound_k`][holdout.bounds.study.similarity_bound_k] and
    [`naive_bayes_bound_k`][holdout.bounds.study.naive_bayes_bound_k]."""
    return ModelCounts(
        n=n,
        error=error,
        similarity=similarity,
        eps=eps,
        delta=delta,
        union_k=union_bound_k(n=n, error=error, eps=eps, delta=delta),
        similarity_k=similarity_bound_k(
            n=n,
            error=error,
            similarity=similarity,
            eps=eps,
            delta=delta,
            form=form,  # type: ignore[arg-type]
        ),
        naive_bayes_k=naive_bayes_bound_k(n=n, error=error, similarity=similarity, eps=eps, delta=delta),
    )


def testable_model_counts(
    n: int, error: float, similarity: float, eps: float, delta: float
) -> tuple[int, int | None, int | None]:
    """(union_k, similarity_k, naive_bayes_k) of [`count_testable_models`][holdout.bounds.study.count_testable_models]
    for measured models.

    The similarity and naive-Bayes counts are None when ``similarity`` is below the
    independent-errors similarity mu^2 + (1 - mu)^2 at ``error`` = mu: the coupling behind both
    bounds (Mania et al. App. B) needs at least that much, and then only the union bound applies.
    """
    if similarity >= independent_similarity(error):
        tm = count_testable_models(n, error, similarity, eps, delta)
        return tm.union_k, tm.similarity_k, tm.naive_bayes_k
    return union_bound_k(n=n, error=error, eps=eps, delta=delta), None, None


def _count_testable_models_kw(kw: dict[str, object]) -> ModelCounts:
    return count_testable_models(**kw)  # type: ignore[arg-type]


def _row(tm: ModelCounts) -> dict[str, object]:
    return {
        "n": tm.n,
        "error": tm.error,
        "similarity": tm.similarity,
        "eps": tm.eps,
        "delta": tm.delta,
        "union_k": tm.union_k,
        "similarity_k": tm.similarity_k,
        "naive_bayes_k": tm.naive_bayes_k,
        "similarity_gain": tm.similarity_gain,
        "naive_bayes_gain": tm.naive_bayes_gain,
    }


def gain_grid(
    *,
    n: int,
    error: float,
    similarities: Sequence[float],
    eps_values: Sequence[float],
    delta: float,
    form: str = "literal",
    threads: int = 1,
) -> pd.DataFrame:
    """Testable models and gains on the grid similarities x eps_values (Mania et al. Fig. 2).

    One row per grid point (columns of [`ModelCounts`][holdout.bounds.study.ModelCounts] plus the two gains).
    Points are computed in ``threads`` processes when ``threads > 1``.
    """
    for s in similarities:
        check_similarity_above_independent(s, error, "similarity grid value (bounds.figure2.similarity.start)")
    jobs = [
        dict(n=n, error=error, similarity=float(s), eps=float(e), delta=delta, form=form)
        for s in similarities
        for e in eps_values
    ]
    if threads > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=min(threads, len(jobs))) as pool:
            results = list(pool.map(_count_testable_models_kw, jobs))
    else:
        results = [_count_testable_models_kw(job) for job in jobs]
    return pd.DataFrame([_row(tm) for tm in results])


def figure2_panel(
    setting: Setting,
    panel: str,
    grid: Mapping[str, float],
    eps: float,
    delta: float,
    form: str = "literal",
    threads: int = 1,
) -> pd.DataFrame:
    """One panel of Mania et al. Fig. 2: gains on ``grid`` (start, stop, num) of the similarity
    (``panel="similarity"``, at ``eps``) or of eps (``panel="eps"``, at the setting's similarity)."""
    values = np.linspace(float(grid["start"]), float(grid["stop"]), int(grid["num"]))
    if panel == "similarity":
        similarities, eps_values = values, [float(eps)]
    elif panel == "eps":
        similarities, eps_values = [float(setting.similarity)], values
    else:
        raise ValueError(f"figure 2 panel must be 'similarity' or 'eps', got {panel!r}")
    table = gain_grid(
        n=setting.n,
        error=setting.error,
        similarities=similarities,
        eps_values=eps_values,
        delta=float(delta),
        form=form,
        threads=threads,
    )
    table["mean_accuracy"] = setting.mean_accuracy
    table["form"] = form
    table["setting_source"] = setting.source
    return table


def figure1b_table(setting: Setting, eps: float, delta: float, form: str = "literal") -> pd.DataFrame:
    """Figure 1b of Mania et al.: testable models under the three bounds, one row per bound."""
    tm = count_testable_models(setting.n, setting.error, setting.similarity, eps, delta, form)
    rows = [
        ("union bound (2)", tm.union_k, 1.0),
        ("similarity bound (3)+(8)", tm.similarity_k, tm.similarity_gain),
        ("naive-Bayes bound (A1)", tm.naive_bayes_k, tm.naive_bayes_gain),
    ]
    return pd.DataFrame(
        [
            {
                "bound": name,
                "testable_models": k,
                "gain_over_union": gain,
                "n": setting.n,
                "mean_accuracy": setting.mean_accuracy,
                "similarity": setting.similarity,
                "eps": eps,
                "delta": delta,
                "form": form,
                "setting_source": setting.source,
            }
            for name, k, gain in rows
        ]
    )


def table1(
    rows: Sequence[dict[str, object]], eps: float, delta: float, form: str = "literal", threads: int = 1
) -> pd.DataFrame:
    """Table 1 of Mania et al.: SB and NBB gains for rows (name, n, mean accuracy, mean similarity).

    Optional ``paper_sb`` / ``paper_nbb`` in a row are carried over as comparison columns.
    """
    jobs = []
    for i, row in enumerate(rows):
        for key in ("name", "n", "mean_accuracy", "mean_similarity"):
            if key not in row:
                raise ValueError(f"bounds.table1.rows[{i}]: missing key {key!r}")
        check_similarity_above_independent(
            float(row["mean_similarity"]),
            1.0 - float(row["mean_accuracy"]),  # type: ignore[arg-type]
            f"bounds.table1.rows[{i}] ({row['name']}) mean_similarity",
        )
        jobs.append(
            dict(
                n=int(row["n"]),  # type: ignore[call-overload]
                error=1.0 - float(row["mean_accuracy"]),  # type: ignore[arg-type]
                similarity=float(row["mean_similarity"]),  # type: ignore[arg-type]
                eps=eps,
                delta=delta,
                form=form,
            )
        )
    if threads > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=min(threads, len(jobs))) as pool:
            results = list(pool.map(_count_testable_models_kw, jobs))
    else:
        results = [_count_testable_models_kw(job) for job in jobs]
    out = []
    for row, tm in zip(rows, results):
        out.append(
            {
                "name": row["name"],
                "n": tm.n,
                "mean_accuracy": row["mean_accuracy"],
                "mean_similarity": row["mean_similarity"],
                "eps": eps,
                "delta": delta,
                "union_k": tm.union_k,
                "similarity_k": tm.similarity_k,
                "naive_bayes_k": tm.naive_bayes_k,
                "sb_gain": tm.similarity_gain,
                "nbb_gain": tm.naive_bayes_gain,
                "paper_sb_gain": row.get("paper_sb"),
                "paper_nbb_gain": row.get("paper_nbb"),
            }
        )
    return pd.DataFrame(out)


_TABLE1_COLUMNS = {
    "name": "Models",
    "n": "n",
    "mean_accuracy": "Mean accuracy",
    "mean_similarity": "Mean similarity",
    "sb_gain": "SB",
    "nbb_gain": "NBB",
    "paper_sb_gain": "SB (paper)",
    "paper_nbb_gain": "NBB (paper)",
    "union_k": "k union",
    "similarity_k": "k SB",
    "naive_bayes_k": "k NBB",
}


def table1_markdown(df: pd.DataFrame, notes: Sequence[str] = (), title: str = "") -> str:
    """Markdown rendering of [`table1`][holdout.bounds.study.table1] (the paper's layout plus our k's), with notes."""
    shown = pd.DataFrame(
        {
            "name": df["name"],
            "n": [f"{int(v):,}" for v in df["n"]],
            **{c: [f"{100 * float(v):.1f}%" for v in df[c]] for c in ("mean_accuracy", "mean_similarity")},
            **{c: [fmt_gain(v) for v in df[c]] for c in ("sb_gain", "nbb_gain", "paper_sb_gain", "paper_nbb_gain")},
            **{c: [f"{int(v):,}" for v in df[c]] for c in ("union_k", "similarity_k", "naive_bayes_k")},
        }
    )
    align = {c: "r" for c in list(_TABLE1_COLUMNS)[1:]}
    return markdown_table(shown, _TABLE1_COLUMNS, align, notes=notes, title=title)


def table1_notes(df: pd.DataFrame, eps: float, delta: float, form: str) -> list[str]:
    """The notes under Table 1: what the columns are and, for rows with the paper's values, why
    ours differ (the paper's inputs are rounded in print)."""
    notes = [
        f"Gains in the number of testable models over the union bound (2), eps = {eps}, "
        f"delta = {delta}; SB = similarity bound (3)+(8), {form} form; NBB = naive-Bayes bound "
        "(Assumption A1, exact). All models of a row are taken to have the row's mean accuracy "
        "and pairwise similarity.",
    ]
    compared = [r for r in df.to_dict("records") if r["paper_sb_gain"] is not None or r["paper_nbb_gain"] is not None]
    if compared:
        ours = "; ".join(
            f"{r['name']}: paper {fmt_gain(r['paper_sb_gain'])} / {fmt_gain(r['paper_nbb_gain'])}, "
            f"here {fmt_gain(r['sb_gain'])} / {fmt_gain(r['nbb_gain'])}"
            for r in compared
        )
        notes.append(
            "Inputs are rounded: the rows with paper values use the accuracy and similarity as "
            "printed in Mania et al. Table 1 (e.g. 96.8%, 97.5%), while the paper computed its gains "
            "from the unrounded measurements, and the gains are very sensitive to these inputs. "
            f"SB / NBB gains: {ours}."
        )
    return notes
