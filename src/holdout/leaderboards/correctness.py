"""Correctness matrices: K models x n items, 0/1 or per-item pass rates in [0, 1].

What an LLM leaderboard publishes instead of predicted labels: whether each model solved each
item (0/1), or its pass@1 over m samples (a multiple of 1/m). Every lens that needs only
correctness works from it:

* accuracy with an interval ([`accuracy_intervals`][holdout.leaderboards.correctness.accuracy_intervals]):
  exact Clopper-Pearson for 0/1; for pass rates the same Beta quantiles with the real-valued
  count sum_t p_it over n items (stated and tested there);
* similarity ([`similarity_matrix`][holdout.leaderboards.correctness.similarity_matrix]): Mania et
  al.'s (2019, Sec. 2) agreement of the 0-1 losses; for pass rates its expectation
  p_i q_i + (1 - p_i)(1 - q_i) averaged over items (one sampled answer per model, independent);
* the similarity summary, covering numbers and difficulty
  ([`similarity_summary`][holdout.leaderboards.correctness.similarity_summary],
  [`difficulty`][holdout.leaderboards.correctness.difficulty]), which feed the bounds of
  [`holdout.bounds`][holdout.bounds] and Rip van Winkle's Razor ([`holdout.rvw`][holdout.rvw]).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.leaderboards.fits import clopper_pearson_many
from holdout.similarity.core import (
    SimilaritySummary,
    difficulty_distribution,
    pairwise_similarity,
    summary_from_rates,
)

__all__ = [
    "CorrectnessError",
    "CorrectnessMatrix",
    "accuracy_intervals",
    "check_correctness",
    "difficulty",
    "read_correctness",
    "similarity_matrix",
    "similarity_summary",
    "text_problem",
]


class CorrectnessError(ValueError):
    """Bad correctness input; the message is one line naming the file and the problem."""


@dataclass(frozen=True)
class CorrectnessMatrix:
    """K x n entries in [0, 1] (row = model); ``binary`` when every entry is 0 or 1; ``samples``
    m when the entries are pass rates over m samples (None when not known); ``item_names`` the
    file's item ids (None: 1..n); ``read_as`` what a reader decided about the file's layout
    (one sentence, empty when it was read as written)."""

    model_names: tuple[str, ...]
    values: np.ndarray
    samples: int | None = None
    item_names: tuple[str, ...] | None = field(default=None, kw_only=True)
    read_as: str = field(default="", kw_only=True)

    @cached_property
    def binary(self) -> bool:
        """Every entry 0 or 1 (computed once: a pass over K x n values)."""
        return bool(((self.values == 0.0) | (self.values == 1.0)).all())

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape  # type: ignore[return-value]


def check_correctness(
    values: np.ndarray,
    model_names: list[str] | tuple[str, ...],
    source: str,
    samples: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> CorrectnessMatrix:
    """Validate a K x n matrix (finite, in [0, 1], multiples of 1/m with ``samples`` m, unique
    names, K >= 1, n >= 1) and wrap it; every problem is one line
    ([`CorrectnessError`][holdout.leaderboards.correctness.CorrectnessError]) naming the model and
    the item (its id from ``item_ids``, else its column number)."""
    item = (lambda j: f"item {item_ids[j]!r}") if item_ids is not None else (lambda j: f"item {j + 1}")
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or 0 in v.shape:
        raise CorrectnessError(f"{source}: expected a K x n matrix (models x items), got shape {v.shape}")
    bad = np.argwhere(~np.isfinite(v))
    if bad.size:
        i, j = bad[0]
        raise CorrectnessError(f"{source}: NaN or missing value for model {model_names[i]!r}, {item(j)}")
    near = ((v < 0) & (v >= -ROUNDING)) | ((v > 1) & (v <= 1 + ROUNDING))
    if near.any():  # 1.0000000002: a pass rate computed in floating point
        v = np.clip(v, 0.0, 1.0)
    bad = np.argwhere((v < 0) | (v > 1))
    if bad.size:
        i, j = bad[0]
        raise CorrectnessError(
            f"{source}: value {v[i, j]:.12g} for model {model_names[i]!r}, {item(j)} is outside [0, 1] "
            "(give 0/1 or pass rates as fractions)"
        )
    if len(model_names) != v.shape[0]:
        raise CorrectnessError(f"{source}: {len(model_names)} model names for {v.shape[0]} rows")
    dup = pd.Index(model_names)[pd.Index(model_names).duplicated()]
    if len(dup):
        raise CorrectnessError(f"{source}: duplicate model name {dup[0]!r}")
    if samples is not None:
        if int(samples) < 1:
            raise CorrectnessError(f"--samples must be >= 1, got {samples}")
        off = np.abs(v * samples - np.rint(v * samples)) > 1e-6
        if off.any():
            i, j = np.argwhere(off)[0]
            raise CorrectnessError(
                f"{source}: value {v[i, j]:g} (model {model_names[i]!r}, {item(j)}) is not a multiple "
                f"of 1/{samples} (--samples {samples})"
            )
    return CorrectnessMatrix(tuple(str(m) for m in model_names), v, None if samples is None else int(samples))


def _numbers(cells: list[str], path: Path, row: int, items: list[str]) -> np.ndarray:
    """One row's values as float64 (an empty cell is NaN); a cell that is no number is named."""
    try:
        return np.array([c if c.strip() else "nan" for c in cells], dtype=np.float64)
    except ValueError:
        j = next(j for j, c in enumerate(cells) if c.strip() and not _is_number(c))
        raise CorrectnessError(
            f"{path}: row {row}, item {items[j]!r}: {cells[j]!r} is not a number; every value after the "
            "model name must be a number in [0, 1]"
        ) from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def text_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a UTF-8 text CSV (an Excel workbook saved under a .csv name,
    latin-1 / cp1252 text), in words with what to do, or None; read in 1 MiB chunks."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    done = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            if done == 0 and chunk[:4] in (b"PK\x03\x04", b"\xd0\xcf\x11\xe0"):
                return "is an Excel workbook (or another binary file), not a CSV: save it as CSV UTF-8"
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                return f'not UTF-8 text ({exc.reason} at byte {done + exc.start}); save it as UTF-8 ("CSV UTF-8")'
            done += len(chunk)
    return None


def separator_hint(first_cell: str) -> str:
    """``; the file seems ';'-separated: save it comma-separated`` when the first header cell holds a
    semicolon or a tab (a spreadsheet's export in another locale), else ''."""
    sep = next((c for c in (";", "\t") if c in first_cell), None)
    return f"; the file seems {sep!r}-separated: save it comma-separated" if sep else ""


def _header_problem(header: list[str] | None) -> str:
    hint = separator_hint(header[0]) if header else ""
    return f"needs a header row (model, item ids ...) and one row per model{hint}"


def _read_csv(path: Path) -> tuple[np.ndarray, list[str], list[str], str]:
    """(values, first-column names, header names, what was decided) of a CSV matrix, read row by row
    (pandas' parser takes minutes and 15-25x the memory on files with millions of columns).

    The first column names the rows, as text (``001`` stays ``001``; a UTF-8 byte-order mark and an
    unnamed first header cell are fine), unless the header is exactly 0 .. N-1, which pandas writes
    for a frame without an index (``DataFrame(m).to_csv(index=False)``): then every column holds
    values and the rows are named model_1 ... model_K."""
    if problem := text_problem(path):
        raise CorrectnessError(f"{path}: {problem}")
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            if not header or len(header) < 2:
                raise CorrectnessError(f"{path}: {_header_problem(header)}")
            unnamed = [h.strip() for h in header] == [str(i) for i in range(len(header))]
            start = 0 if unnamed else 1
            items = [h.strip() for h in header[start:]]
            names, rows = [], []
            for r, row in enumerate(reader, 2):
                if not any(c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise CorrectnessError(f"{path}: row {r} has {len(row) - 1} values, expected {len(header) - 1}")
                names.append(f"model_{len(names) + 1}" if unnamed else row[0].strip())
                rows.append(_numbers(row[start:], path, r, items))
    except csv.Error as exc:
        raise CorrectnessError(f"{path}: not a readable CSV ({exc})") from None
    if not rows:
        raise CorrectnessError(f"{path}: a header but no data rows: write one row per model")
    note = (
        f"no name column (header 0..{len(header) - 1}, as pandas writes a frame without index): "
        f"every column read as values, rows named model_1 ... model_{len(names)}"
        if unnamed
        else ""
    )
    return np.vstack(rows), names, items, note


#: the layouts of a matrix file: one row per model (as written) or one row per item (transposed)
ROWS = ("models", "items")

#: how far a pass rate may lie outside [0, 1] by floating-point rounding (1.0000000002) and be clipped
ROUNDING = 1e-9


def _layout(values: np.ndarray, path: Path, rows: str | None) -> bool:
    """True to transpose: ``rows`` 'items'; refused (None: not said) when a matrix has more rows
    (models) than columns (items), the layout of an items x models export."""
    if rows is not None and rows not in ROWS:
        raise CorrectnessError(f"--rows must be one of {', '.join(ROWS)}, got {rows!r}")
    if rows is None and values.ndim == 2 and values.shape[0] > values.shape[1]:
        r, c = values.shape
        raise CorrectnessError(
            f"{path}: {r:,} rows x {c:,} columns, more models than items: if each row is an item and each "
            f"column a model (the predictions audit's layout), pass --rows items; to audit {r:,} models on "
            f"{c:,} items as written, pass --rows models"
        )
    return rows == "items"


def read_correctness(
    path: str | Path, model_names: list[str] | None = None, samples: int | None = None, rows: str | None = None
) -> CorrectnessMatrix:
    """Read a correctness matrix: ``.csv`` (header row; model name in the first column, one column
    per item) or ``.npy`` (K x n, with ``model_names`` or model_1 ... model_K).

    ``rows``: 'models' (as written), 'items' (one row per item, one column per model: transposed),
    or None: as written, but a file with more rows than columns is refused naming both options."""
    path = Path(path)
    if not path.is_file():
        raise CorrectnessError(f"{path}: correctness file not found")
    items, note = None, ""
    if path.suffix.lower() == ".npy":
        try:
            values = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise CorrectnessError(f"{path}: not a readable .npy array ({exc})") from None
        if not np.issubdtype(values.dtype, np.number) and values.dtype != bool:
            raise CorrectnessError(f"{path}: expected a numeric K x n array, got dtype {values.dtype}")
        if _layout(values, path, rows):
            values, note = values.T, "one row per item (--rows items): read transposed"
        names = model_names or [f"model_{i + 1}" for i in range(values.shape[0] if values.ndim else 0)]
    elif path.suffix.lower() == ".csv":
        if model_names:
            raise CorrectnessError(f"{path}: --model-names is for .npy files; a CSV names its models in column 1")
        values, names, items, note = _read_csv(path)
        if _layout(values, path, rows):
            values, names, items = values.T, items, names
            note = "; ".join(x for x in (note, "one row per item (--rows items): read transposed") if x)
    else:
        raise CorrectnessError(f"{path}: expected a .csv or .npy correctness matrix")
    if items is not None and len(set(items)) < len(items):
        dup = pd.Index(items)[pd.Index(items).duplicated()][0]
        raise CorrectnessError(
            f"{path}: item {dup!r} appears {list(items).count(dup)} times: each item once (it would be counted as "
            "several test points)"
        )
    c = check_correctness(values, names, str(path), samples, None if items is None else list(items))
    return replace(c, item_names=None if items is None else tuple(items), read_as=note)


def accuracy_intervals(c: CorrectnessMatrix, alpha: float = 0.05) -> pd.DataFrame:
    """Per model: correct (sum of entries), n, accuracy and its 1 - alpha interval (percent).

    0/1 rows: exact Clopper-Pearson on the count. Pass rates p_it: the same Beta quantiles with
    the real-valued count k = sum_t p_it over n items. A rate in [0, 1] with mean p has variance
    at most p(1 - p), the binomial case, so the interval is at least as wide as an exact one on n
    0/1 items of the same mean (tested for coverage on made data).
    """
    k, n = c.values.sum(axis=1), c.shape[1]
    low, high = clopper_pearson_many(np.clip(k, 0, n), n, alpha)
    return pd.DataFrame(
        {
            "model": list(c.model_names),
            "correct": k,
            "n": n,
            "accuracy": 100 * (k / n),
            "ci_low": 100 * low,
            "ci_high": 100 * high,
        }
    )


def similarity_matrix(c: CorrectnessMatrix) -> np.ndarray:
    """K x K similarity: for 0/1 rows Mania et al.'s agreement of the 0-1 losses
    ([`pairwise_similarity`][holdout.similarity.core.pairwise_similarity]); for pass rates its
    expectation (1/n) sum_t [p_it p_jt + (1 - p_it)(1 - p_jt)] = 1 - a_i - a_j + 2 (P P^T)_ij / n
    (a: mean rates), diagonal set to 1 as for 0/1 losses."""
    if c.binary:
        return pairwise_similarity(c.values < 0.5)
    p, n = c.values, c.shape[1]
    a = p.mean(axis=1)
    p32 = p.astype(np.float32)  # float32 Gram matrix: relative error ~1e-7, twice the speed
    sim = 1.0 - a[:, None] - a[None, :] + 2.0 * (p32 @ p32.T).astype(np.float64) / n
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, 0.0, 1.0)


def similarity_summary(
    c: CorrectnessMatrix, sim: np.ndarray, quantiles: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)
) -> SimilaritySummary:
    """[`SimilaritySummary`][holdout.similarity.core.SimilaritySummary] of the pairs i < j against the
    independent-errors baseline mu_i mu_j + (1 - mu_i)(1 - mu_j) (Mania et al. Sec. 5.1)."""
    k, n = c.shape
    if k < 2:
        raise CorrectnessError(f"{k} model: pairwise similarity needs at least 2")
    return summary_from_rates(1.0 - c.values.mean(axis=1), sim, n, quantiles)


def difficulty(c: CorrectnessMatrix) -> np.ndarray:
    """Fraction of items failed by at most m models, m = 0..K (Mania et al. App. C, Fig. 4); for
    pass rates the expected number of failing models per item, sum_i (1 - p_it), rounded."""
    if c.binary:
        return difficulty_distribution(c.values < 0.5)
    k, n = c.shape
    wrong = np.rint((1.0 - c.values).sum(axis=0)).astype(np.int64)
    return np.cumsum(np.bincount(wrong, minlength=k + 1)) / n
