"""The item screen: per item a suspect-key score, the proposed answer, discrimination, duplicates and a flag.

[`screen_items`][holdout.items.screen.screen_items] runs every part on one K x n answer matrix and returns
an [`ItemScreen`][holdout.items.screen.ItemScreen]; ``ItemScreen.frame()`` is the ``items.csv`` table.

Flag rule (a heuristic screen, never a verdict that an item is wrong):

* ``suspect_key``: the accuracy-weighted votes for one answer other than the key outnumber the key's
  (suspect score > 0) *and* at least ``min_share`` of the answering models, and at least ``min_models``
  models, give that answer (one or two models alone never flag an item);
* ``negative_discrimination``: getting the item right goes with being a weaker model (point-biserial
  <= ``max_discrimination``), an ambiguous or mis-keyed item, when the key is not already suspect and at
  least ``min_models_discrimination`` models answered (a correlation over fewer is mostly noise).

The precision each rule reached on published reviews is measured by ``benchmarks/itemquality/``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from holdout.items.answers import (
    AnswerMatrix,
    _chunks,
    answer_groups,
    encode_answers,
    memory_estimate,
    normalise_answer,
)
from holdout.items.discrimination import rest_score_discrimination
from holdout.items.duplicates import Duplicates, duplicate_groups
from holdout.items.suspect import METHODS, SuspectScores

if TYPE_CHECKING:
    from holdout.logs import LogMatrix

__all__ = ["DEFAULT_METHOD", "ItemScreen", "flag_items", "screen_items", "screen_log_matrix"]

LOG = logging.getLogger(__name__)

#: The score kept: it separated wrong keys from fine items at least as well as Dawid-Skene on the published
#: reviews, and its value reads directly (a margin of weighted votes), where the one-coin posterior is
#: overconfident because models share their mistakes.
DEFAULT_METHOD = "weighted_agreement"


@dataclass(frozen=True)
class ItemScreen:
    """Result of [`screen_items`][holdout.items.screen.screen_items]; arrays are per item (n,)."""

    items: tuple[str, ...]
    key: np.ndarray
    scores: SuspectScores
    proposed_answer: np.ndarray
    answered: np.ndarray
    discrimination: np.ndarray
    flag: np.ndarray
    duplicates: Duplicates | None
    texts: tuple[str, ...] | None

    @property
    def flagged(self) -> np.ndarray:
        return self.flag != ""

    def frame(self) -> pd.DataFrame:
        """The ``items.csv`` table: one row per item, in input order."""
        dup = self.duplicates
        df = pd.DataFrame(
            {
                "item": list(self.items),
                "key": self.key,
                "suspect_score": np.round(self.scores.score, 6),
                "proposed_answer": self.proposed_answer,
                "models_for_proposed": self.scores.models_for_proposed,
                "models_for_key": self.scores.models_for_key,
                "models_answering": self.answered,
                "discrimination": np.round(self.discrimination, 6),
                "flagged": self.flagged,
                "flag": self.flag,
                "duplicate_group": pd.array(dup.group if dup is not None else np.full(len(self.items), -1)),
                "duplicate_keys_agree": dup.keys_agree if dup is not None else np.nan,
            }
        )
        df["duplicate_group"] = df["duplicate_group"].where(df["duplicate_group"] >= 0, pd.NA).astype("Int64")
        if self.texts is not None:
            df["question"] = list(self.texts)
        return df


def flag_items(
    scores: SuspectScores,
    answered: np.ndarray,
    discrimination: np.ndarray,
    *,
    min_share: float = 0.8,
    max_discrimination: float = -0.3,
    min_models: int = 3,
    min_models_discrimination: int = 10,
) -> np.ndarray:
    """The flag of each item: ``"suspect_key"``, ``"negative_discrimination"`` or ``""`` (rule in the module doc)."""
    share = scores.models_for_proposed / np.maximum(answered, 1)
    suspect = (scores.score > 0) & (share >= min_share) & (scores.models_for_proposed >= min_models)
    negative = ~suspect & (np.nan_to_num(discrimination, nan=0.0) <= max_discrimination)
    negative &= answered >= min_models_discrimination
    return np.where(suspect, "suspect_key", np.where(negative, "negative_discrimination", ""))


def _answered(m: AnswerMatrix) -> np.ndarray:
    out = np.zeros(m.num_items, dtype=np.int64)
    for s, e in _chunks(m.num_items, m.num_models + 1):
        out[s:e] = (m.codes[:-1, s:e] >= 0).sum(axis=0)
    return out


def screen_items(
    answers: np.ndarray | Sequence[Sequence[object]],
    key: np.ndarray | Sequence[object],
    models: Sequence[str] | None = None,
    *,
    items: Sequence[str] | None = None,
    num_classes: int | None = None,
    texts: Sequence[str] | None = None,
    duplicate_keys: Sequence[object] | None = None,
    method: str = DEFAULT_METHOD,
    min_share: float = 0.8,
    max_discrimination: float = -0.3,
) -> ItemScreen:
    """Screen n items from the K x n answers of K models and the n keys.

    ``texts`` (question and choices, one string per item) enables duplicates; ``duplicate_keys`` (e.g. the
    keyed choice's text) is compared within each duplicate group instead of the key itself.
    """
    if method not in METHODS:
        raise ValueError(f"method {method!r}: choose one of {', '.join(METHODS)}")
    k, n = np.shape(answers)
    LOG.info("screening %d models x %d items: about %.0f MiB", k, n, memory_estimate(k, n, num_classes) / 2**20)
    full = encode_answers(answers, key, models, num_classes=num_classes)
    keyed = full.key >= 0  # an item without a key is not scored
    m = full if keyed.all() else AnswerMatrix(full.codes[:, keyed], full.values, full.models, full.num_classes)
    scores = _expand(METHODS[method](m, answer_groups(m)), keyed)
    answered = _answered(full)
    disc = np.full(n, np.nan)
    disc[keyed] = rest_score_discrimination(m)
    flag = flag_items(scores, answered, disc, min_share=min_share, max_discrimination=max_discrimination)
    key_values = np.where(keyed, full.values[np.maximum(full.key, 0)].astype(object), None)
    dup = None
    if texts is not None:
        dup = duplicate_groups(texts, duplicate_keys if duplicate_keys is not None else key_values)
    ids = tuple(str(i) for i in items) if items is not None else tuple(str(i) for i in range(n))
    proposed = np.where(scores.proposed >= 0, full.values[np.maximum(scores.proposed, 0)].astype(object), None)
    return ItemScreen(
        items=ids,
        key=key_values,
        scores=scores,
        proposed_answer=proposed,
        answered=answered,
        discrimination=disc,
        flag=flag,
        duplicates=dup,
        texts=tuple(texts) if texts is not None else None,
    )


def _expand(scores: SuspectScores, keyed: np.ndarray) -> SuspectScores:
    """Per-item arrays of the keyed items spread back over all items (NaN score, no proposal elsewhere)."""
    if keyed.all():
        return scores
    out = {}
    for name, fill in (("score", np.nan), ("proposed", -1), ("models_for_proposed", 0), ("models_for_key", 0)):
        part = getattr(scores, name)
        full = np.full(keyed.size, fill, dtype=np.result_type(part, np.asarray(fill)))
        full[keyed] = part
        out[name] = full
    return replace(scores, **out)


def screen_log_matrix(matrix: LogMatrix, **options: object) -> ItemScreen:
    """[`screen_items`][holdout.items.screen.screen_items] on a [`LogMatrix`][holdout.logs.LogMatrix] whose
    readers kept the answers: answers and keys compared after
    [`normalise_answer`][holdout.items.answers.normalise_answer], duplicates from ``item_text`` where kept."""
    if matrix.answers is None or matrix.keys is None:
        raise ValueError("these logs record no chosen answers or no keys: the item screen needs both")
    answers = np.array([[_norm(a) for a in row] for row in matrix.answers], dtype=object)
    keys = np.array([_norm(k) for k in matrix.keys], dtype=object)
    return screen_items(answers, keys, matrix.model_names, items=matrix.item_ids, texts=matrix.item_text, **options)


def _norm(value: object) -> str | None:
    return None if value is None else normalise_answer(value) or None
