"""Suspect-key scores: how strongly the models, weighted by how good they are, point away from the key.

Three scores of the same answers, compared on published reviews in ``benchmarks/itemquality/``:

* [`dawid_skene`][holdout.items.suspect.dawid_skene]: the latent-answer model of Dawid & Skene (1979,
  "Maximum likelihood estimation of observer error-rates using the EM algorithm", Appl. Statist. 28(1):
  20-28) in its one-parameter ("one-coin") form, with the key as one more annotator: annotator k gives
  the true answer with probability p_k and each of the other C - 1 answers with probability
  (1 - p_k) / (C - 1). Given the p_k, the posterior of answer a on item i is proportional to
  ``exp(sum_k w_k [x_ki = a])`` with ``w_k = log(p_k (C - 1) / (1 - p_k))``; EM alternates that posterior
  and ``p_k`` = expected agreement of annotator k with it. Score: the posterior probability that the
  true answer is not the key.
* [`weighted_agreement`][holdout.items.suspect.weighted_agreement]: the models' votes weighted by their
  accuracy against the key; score: (votes for the leading other answer - votes for the key) / votes cast.
* [`disagreement`][holdout.items.suspect.disagreement]: the unweighted share of answering models that
  miss the key (item difficulty; the baseline).

Each is a heuristic screen: a high score says the models agree on something else, not that the key is
wrong (a shared misconception scores the same).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from holdout.items.answers import AnswerGroups, AnswerMatrix, _chunks, group_sums

__all__ = ["METHODS", "SuspectScores", "dawid_skene", "disagreement", "weighted_agreement"]


@dataclass(frozen=True)
class SuspectScores:
    """Per-item suspect-key score and the answer the evidence favours over the key.

    Attributes:
        method: the score's name (a key of ``METHODS``).
        score: (n,) higher = more suspect.
        proposed: (n,) code of the leading answer other than the key, ``-1`` where every model gave the key.
        models_for_proposed: (n,) models giving it.
        models_for_key: (n,) models giving the key.
        ability: (K,) each model's weight source (its estimated accuracy).
        key_accuracy: the key's estimated accuracy (Dawid-Skene), NaN for the other scores.
        iterations: EM iterations (0 for the closed-form scores).
    """

    method: str
    score: np.ndarray
    proposed: np.ndarray
    models_for_proposed: np.ndarray
    models_for_key: np.ndarray
    ability: np.ndarray
    key_accuracy: float
    iterations: int


def _leading_other(groups: AnswerGroups, votes: np.ndarray) -> np.ndarray:
    """Group of the highest-voted answer other than the key on each item (``-1`` where none)."""
    v = np.where(np.arange(groups.num_groups) == groups.key_group[groups.item], -np.inf, votes)
    v = np.where(groups.size > 0, v, -np.inf)
    n = groups.item_start.size - 1
    best = np.maximum.reduceat(v, groups.item_start[:-1]) if n else np.zeros(0)
    hit = np.flatnonzero((v == best[groups.item]) & np.isfinite(v))
    out = np.full(n, -1, dtype=np.int64)
    items, first = np.unique(groups.item[hit], return_index=True)
    out[items] = hit[first]
    return out


def _result(method, m, groups, score, votes, ability, key_acc, iters) -> SuspectScores:
    lead = _leading_other(groups, votes)
    has = lead >= 0
    return SuspectScores(
        method=method,
        score=score,
        proposed=np.where(has, groups.value[np.maximum(lead, 0)], -1),
        models_for_proposed=np.where(has, groups.size[np.maximum(lead, 0)], 0),
        models_for_key=groups.size[groups.key_group],
        ability=ability,
        key_accuracy=key_acc,
        iterations=iters,
    )


def _accuracy(m: AnswerMatrix) -> np.ndarray:
    """Each model's share of items answered with the key (no answer = wrong), by chunks."""
    hits = np.zeros(m.num_models)
    for s, e in _chunks(m.num_items, m.num_models + 1):
        hits += (m.codes[:-1, s:e] == m.codes[-1, s:e]).sum(axis=1)
    return hits / max(m.num_items, 1)


def disagreement(m: AnswerMatrix, groups: AnswerGroups) -> SuspectScores:
    """Share of answering models that miss the key (the unweighted baseline)."""
    answered = np.zeros(m.num_items)
    for s, e in _chunks(m.num_items, m.num_models + 1):
        answered[s:e] = (m.codes[:-1, s:e] >= 0).sum(axis=0)
    on_key = groups.size[groups.key_group]
    score = np.where(answered > 0, 1 - on_key / np.maximum(answered, 1), 0.0)
    return _result("disagreement", m, groups, score, groups.size.astype(float), _accuracy(m), np.nan, 0)


def weighted_agreement(m: AnswerMatrix, groups: AnswerGroups) -> SuspectScores:
    """(Accuracy-weighted votes for the leading other answer - those for the key) / votes cast, in [-1, 1]."""
    acc = _accuracy(m)
    votes = group_sums(groups.of_entry[:-1], groups.item_start, acc)
    return _result("weighted_agreement", m, groups, vote_margin(groups, votes), votes, acc, np.nan, 0)


def vote_margin(groups: AnswerGroups, votes: np.ndarray) -> np.ndarray:
    """Per item, (votes for the leading other answer - votes for the key) / votes cast; 0 where none were cast."""
    cast = np.add.reduceat(votes, groups.item_start[:-1]) if groups.item_start.size > 1 else np.zeros(0)
    lead = _leading_other(groups, votes)
    alt = np.where(lead >= 0, votes[np.maximum(lead, 0)], 0.0)
    return np.where(cast > 0, (alt - votes[groups.key_group]) / np.where(cast > 0, cast, 1), 0.0)


def _log_odds(p: np.ndarray, c: int) -> np.ndarray:
    """One-coin weight log(p (C - 1) / (1 - p)), p kept inside (1 / C, 1)."""
    p = np.clip(p, 1.0 / c + 1e-6, 1 - 1e-6)
    return np.log(p) + np.log(c - 1) - np.log1p(-p)


def _posterior(groups: AnswerGroups, s: np.ndarray, c: int) -> np.ndarray:
    """q_g = exp(s_g) / (sum over the item's groups of exp(s) + (C - m_i)), the unseen answers scoring 0."""
    starts = groups.item_start[:-1]
    mx = np.maximum(np.maximum.reduceat(s, starts), 0.0)
    tot = np.add.reduceat(np.exp(s - mx[groups.item]), starts)
    unseen = np.maximum(c - np.diff(groups.item_start), 0)
    log_z = mx + np.log(tot + unseen * np.exp(-mx))
    return np.exp(s - log_z[groups.item])


def _expected_agreement(groups: AnswerGroups, q: np.ndarray) -> np.ndarray:
    """Mean over answered items of q at each row's answer (the M step of the one-coin model)."""
    rows, n = groups.of_entry.shape
    num, den = np.zeros(rows), np.zeros(rows)
    for s, e in _chunks(n, rows):
        g = groups.of_entry[:, s:e]
        num += np.where(g >= 0, q[np.maximum(g, 0)], 0.0).sum(axis=1)
        den += (g >= 0).sum(axis=1)
    return num / np.maximum(den, 1)


def dawid_skene(
    m: AnswerMatrix, groups: AnswerGroups, *, max_iter: int = 200, tol: float = 1e-6, key_prior: float = 0.9
) -> SuspectScores:
    """One-coin Dawid-Skene EM with the key as annotator K + 1; score = P(true answer != key | answers)."""
    p = np.append(_accuracy(m), key_prior)
    c = m.num_classes
    q = np.zeros(groups.num_groups)
    it, done = 0, False
    while it < max_iter and not done:
        it += 1
        q = _posterior(groups, group_sums(groups.of_entry, groups.item_start, _log_odds(p, c)), c)
        new = _expected_agreement(groups, q)
        done = bool(np.max(np.abs(new - p)) < tol)
        p = new
    score = 1.0 - q[groups.key_group]
    return _result("dawid_skene", m, groups, score, q, p[:-1], float(p[-1]), it)


#: The suspect-key scores by name.
METHODS = {"dawid_skene": dawid_skene, "weighted_agreement": weighted_agreement, "disagreement": disagreement}
