"""Which items are wrong? Suspect keys, ambiguous items and duplicates, from the models' own answers.

Many strong models that agree on one answer other than the key are evidence against the key
(Northcutt, Athalye & Mueller 2021, "Pervasive label errors in test sets destabilize machine learning
benchmarks"; Gema et al. 2024, "Are We Done with MMLU?"). Everything here reads a K x n matrix of
answers (ints or strings) and the n keys; every result is a heuristic screen whose precision is
measured on published reviews (``benchmarks/itemquality/``), never a verdict.

- [`screen_items`][holdout.items.screen_items]       every part at once; ``.frame()`` is ``items.csv``.
- [`encode_answers`][holdout.items.encode_answers] / [`answer_groups`][holdout.items.answer_groups]
  the answers as codes, and the distinct answers of each item.
- [`weighted_agreement`][holdout.items.weighted_agreement], [`dawid_skene`][holdout.items.dawid_skene],
  [`disagreement`][holdout.items.disagreement]  the suspect-key scores compared.
- [`rest_score_discrimination`][holdout.items.rest_score_discrimination]  point-biserial discrimination.
- [`duplicate_groups`][holdout.items.duplicate_groups]  identical or near-identical texts (MinHash) and
  whether their keys agree.
- [`roc_auc`][holdout.items.roc_auc]   the evaluation against a review.
- [`memory_estimate`][holdout.items.memory_estimate]  bytes needed for K x n, said before work.
"""

from holdout.items.answers import AnswerGroups, AnswerMatrix, answer_groups, encode_answers, memory_estimate
from holdout.items.discrimination import point_biserial, rest_score_discrimination
from holdout.items.duplicates import Duplicates, duplicate_groups
from holdout.items.evaluate import roc_auc
from holdout.items.screen import DEFAULT_METHOD, ItemScreen, flag_items, screen_items
from holdout.items.suspect import METHODS, SuspectScores, dawid_skene, disagreement, weighted_agreement

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "AnswerGroups",
    "AnswerMatrix",
    "Duplicates",
    "ItemScreen",
    "SuspectScores",
    "answer_groups",
    "dawid_skene",
    "disagreement",
    "duplicate_groups",
    "encode_answers",
    "flag_items",
    "memory_estimate",
    "point_biserial",
    "rest_score_discrimination",
    "roc_auc",
    "screen_items",
    "weighted_agreement",
]
