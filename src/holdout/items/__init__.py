"""Which items are wrong? Suspect keys, ambiguous items and duplicates, from the models' own answers.

Many strong models that agree on one answer other than the key are evidence against the key
(Northcutt, Athalye & Mueller 2021, "Pervasive label errors in test sets destabilize machine learning
benchmarks"; Gema et al. 2024, "Are We Done with MMLU?"). Everything here reads a K x n matrix of
answers (ints or strings) and the n keys; every result is a heuristic screen whose precision is
measured on published reviews (``benchmarks/itemquality/``), never a verdict.

The screen
----------
- [`screen_items`][holdout.items.screen_items]   every part at once; ``ItemScreen.frame()`` is ``items.csv``.
- [`ItemScreen`][holdout.items.ItemScreen]     its result (per item: score, proposed answer, discrimination,
  flag, duplicate group).
- [`screen_log_matrix`][holdout.items.screen_log_matrix]  the same on evaluation logs that kept the chosen answers
  (a [`LogMatrix`][holdout.logs.LogMatrix]: lm-eval, Inspect, HELM, Every Eval Ever).
- [`flag_items`][holdout.items.flag_items]     the flag rule (suspect key; negative discrimination).
- [`leaderboard_without_flagged`][holdout.items.leaderboard_without_flagged]  accuracy, rank and the group tied
  with the best, on all items and without the flagged ones.
- [`memory_estimate`][holdout.items.memory_estimate]  bytes the screen needs for K x n, said before work.

Answers
-------
- [`encode_answers`][holdout.items.encode_answers]  the answers and the key as integer codes.
- [`answer_groups`][holdout.items.answer_groups]   the distinct answers of each item (a vote is one bincount).

Suspect-key scores (compared on the published reviews)
------------------------------------------------------
- [`weighted_agreement`][holdout.items.weighted_agreement]  accuracy-weighted votes for the leading other answer
  minus those for the key (the default).
- [`dawid_skene`][holdout.items.dawid_skene]   one-coin Dawid & Skene (1979) EM, the key as one more annotator.
- [`disagreement`][holdout.items.disagreement]  share of models missing the key (the baseline).
- ``METHODS``  all three by name (each returns a ``holdout.items.suspect.SuspectScores``).

Discrimination and duplicates
-----------------------------
- [`rest_score_discrimination`][holdout.items.rest_score_discrimination]  point-biserial correlation of an item's
  correctness with the model's accuracy on the other items.
- [`duplicate_groups`][holdout.items.duplicate_groups]  identical or near-identical texts (shingles, MinHash) and
  whether their keys agree.

Measuring the screen
--------------------
- [`roc_auc`][holdout.items.roc_auc]   Mann-Whitney AUC of a score against a review; more in
  ``holdout.items.evaluate``; the published reviews' readers are in ``holdout.items.published``.
"""

from holdout.items.answers import answer_groups, encode_answers, memory_estimate
from holdout.items.discrimination import rest_score_discrimination
from holdout.items.duplicates import duplicate_groups
from holdout.items.evaluate import roc_auc
from holdout.items.leaderboard import leaderboard_without_flagged
from holdout.items.screen import ItemScreen, flag_items, screen_items, screen_log_matrix
from holdout.items.suspect import METHODS, dawid_skene, disagreement, weighted_agreement

__all__ = [
    "METHODS",
    "ItemScreen",
    "answer_groups",
    "dawid_skene",
    "disagreement",
    "duplicate_groups",
    "encode_answers",
    "flag_items",
    "leaderboard_without_flagged",
    "memory_estimate",
    "rest_score_discrimination",
    "roc_auc",
    "screen_items",
    "screen_log_matrix",
    "weighted_agreement",
]
