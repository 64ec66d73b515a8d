"""The K x n answers of K models on n items, encoded once, and the distinct answers of each item.

Every method of [`holdout.items`][holdout.items] reads the same two objects:

* [`AnswerMatrix`][holdout.items.answers.AnswerMatrix]: the answers as integer codes (``-1`` where a model
  gave no answer), the key as one more row, and the answer each code stands for;
* [`AnswerGroups`][holdout.items.answers.AnswerGroups]: per item, the distinct answers given (one *group*
  per item and answer) and, per model and item, the group its answer falls in. A weighted vote of the
  models is then one ``bincount`` over groups, whatever the number of classes (1,000 ImageNet classes or
  free-text answers), in memory linear in K x n.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "AnswerGroups",
    "AnswerMatrix",
    "answer_groups",
    "encode_answers",
    "group_sums",
    "memory_estimate",
    "normalise_answer",
]

#: Entries per chunk of items when groups are built or summed (bounds temporary memory to ~64 MB).
CHUNK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class AnswerMatrix:
    """Answers of K models on n items as codes into ``values``; row K is the key.

    Attributes:
        codes: (K + 1, n) int32; ``codes[k, i]`` indexes ``values``, ``-1`` where model k gave no answer.
        values: the answer each code stands for (ints or strings as given).
        models: the K model names.
        num_classes: the number of possible answers (the class count, or the distinct answers seen).
    """

    codes: np.ndarray
    values: np.ndarray
    models: tuple[str, ...]
    num_classes: int

    @property
    def num_models(self) -> int:
        return self.codes.shape[0] - 1

    @property
    def num_items(self) -> int:
        return self.codes.shape[1]

    @property
    def key(self) -> np.ndarray:
        return self.codes[-1]

    def correct(self) -> np.ndarray:
        """(K, n) bool: model k's answer equals the key (no answer counts as wrong)."""
        return self.codes[:-1] == self.codes[-1]


def normalise_answer(text: object) -> str:
    """An answer as compared: NFKC, casefolded, whitespace collapsed, outer punctuation and spaces stripped."""
    s = unicodedata.normalize("NFKC", str(text)).casefold()
    return re.sub(r"\s+", " ", s).strip(" .,;:!?\"'()[]{}")


def encode_answers(
    answers: np.ndarray | Sequence[Sequence[object]],
    key: np.ndarray | Sequence[object],
    models: Sequence[str] | None = None,
    *,
    num_classes: int | None = None,
    missing: object = None,
) -> AnswerMatrix:
    """Encode a K x n matrix of answers (ints, or strings) and the n keys.

    Integer answers are used as they are (negative = no answer; ``num_classes`` defaults to the largest
    code + 1). Other answers are compared as given (normalise them first, e.g. with
    [`normalise_answer`][holdout.items.answers.normalise_answer]); ``missing`` (and ``None``, ``NaN`` and
    ``""``) mark no answer.
    """
    arr, key_arr = np.asarray(answers), np.asarray(key)
    if arr.ndim != 2 or key_arr.shape != (arr.shape[1],):
        raise ValueError(f"answers must be K x n and the key n long; got {arr.shape} and {key_arr.shape}")
    names = tuple(models) if models is not None else tuple(f"model_{k}" for k in range(arr.shape[0]))
    if len(names) != arr.shape[0]:
        raise ValueError(f"{len(names)} model names for {arr.shape[0]} rows of answers")
    if arr.dtype.kind in "iu" and key_arr.dtype.kind in "iu":
        codes = np.vstack([arr, key_arr[None]]).astype(np.int32)
        codes[codes < 0] = -1
        top = int(codes.max(initial=-1)) + 1
        c = max(num_classes or top, top, 2)
        return AnswerMatrix(codes, np.arange(c), names, c)
    both = np.vstack([arr.astype(object), key_arr.astype(object)[None]])
    absent = np.vectorize(lambda v: v is None or v == "" or v is missing or (isinstance(v, float) and v != v))(both)
    text = np.where(absent, "", both.astype(str))
    values, inverse = np.unique(text, return_inverse=True)
    codes = inverse.reshape(both.shape).astype(np.int32)
    if values.size and values[0] == "":
        codes -= 1
        values = values[1:]
    codes[absent] = -1
    c = max(num_classes or values.size, values.size, 2)
    return AnswerMatrix(codes, values, names, c)


@dataclass(frozen=True)
class AnswerGroups:
    """The distinct answers of each item.

    Attributes:
        of_entry: (K + 1, n) int32: the group of each model's (and the key's) answer; ``-1`` for no answer.
        item: (G,) int32: the item of each group (groups of an item are contiguous, items in order).
        value: (G,) int32: the answer code of each group.
        size: (G,) int32: how many models (the key not counted) gave it.
        key_group: (n,) int32: the group of the key.
        item_start: (n + 1,) int64: groups of item i are ``item_start[i]:item_start[i + 1]``.
    """

    of_entry: np.ndarray
    item: np.ndarray
    value: np.ndarray
    size: np.ndarray
    key_group: np.ndarray
    item_start: np.ndarray

    @property
    def num_groups(self) -> int:
        return self.item.size


def _chunks(n: int, rows: int, entries: int = CHUNK_ENTRIES) -> list[tuple[int, int]]:
    step = max(1, entries // max(rows, 1))
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def answer_groups(m: AnswerMatrix) -> AnswerGroups:
    """Group equal answers of each item: sort each item's K + 1 codes, cut where the code changes."""
    k1, n = m.codes.shape
    of_entry = np.full((k1, n), -1, dtype=np.int32)
    items, values, starts = [], [], [np.zeros(1, dtype=np.int64)]
    offset = 0
    for s, e in _chunks(n, k1):
        sub = m.codes[:, s:e].T  # (m, K + 1)
        order = np.argsort(sub, axis=1, kind="stable")
        srt = np.take_along_axis(sub, order, axis=1)
        new = np.ones_like(srt, dtype=bool)
        new[:, 1:] = srt[:, 1:] != srt[:, :-1]
        new &= srt >= 0
        gid = np.cumsum(new.ravel()).reshape(srt.shape) - 1 + offset
        gid = np.where(srt >= 0, gid, -1).astype(np.int32)
        back = np.empty_like(gid)
        np.put_along_axis(back, order, gid, axis=1)
        of_entry[:, s:e] = back.T
        rows, _ = np.nonzero(new)
        items.append((rows + s).astype(np.int32))
        values.append(srt[new])
        starts.append(offset + np.cumsum(new.sum(axis=1), dtype=np.int64))
        offset += int(new.sum())
    item = np.concatenate(items) if items else np.zeros(0, np.int32)
    start = np.concatenate(starts)
    size = group_sums(of_entry[:-1], start, np.ones(k1 - 1)).astype(np.int32)
    value = np.concatenate(values).astype(np.int32) if values else np.zeros(0, np.int32)
    return AnswerGroups(of_entry, item, value, size, of_entry[-1].copy(), start)


def group_sums(of_entry: np.ndarray, item_start: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Sum of ``weights[k]`` over the rows k whose answer falls in each group (a weighted vote), by chunks of items."""
    rows, n = of_entry.shape
    out = np.zeros(int(item_start[-1]))
    w = np.asarray(weights, dtype=float)
    for s, e in _chunks(n, rows):
        lo, hi = int(item_start[s]), int(item_start[e])
        g = of_entry[:, s:e]
        ok = g >= 0
        out[lo:hi] += np.bincount((g - lo)[ok], weights=np.broadcast_to(w[:, None], g.shape)[ok], minlength=hi - lo)
    return out


def memory_estimate(num_models: int, num_items: int, num_classes: int | None = None) -> int:
    """Bytes the screen holds at its peak for K models x n items (said before work).

    Persistent: codes and group index, int32 each, (K + 1) x n; group tables, at most
    n x min(K + 1, C + 1) groups of three int32 and two float64 (28 bytes); chunk temporaries (~10 arrays
    of ``CHUNK_ENTRIES`` 8-byte entries) and the per-item results (~12 arrays of n float64).
    """
    entries = (num_models + 1) * num_items
    groups = num_items * min(num_models + 1, (num_classes or num_models) + 1)
    return int(entries * 8 + groups * 28 + 10 * 8 * min(entries, CHUNK_ENTRIES) + 12 * 8 * num_items)
