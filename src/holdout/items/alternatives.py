"""Suspect-key scores compared with the screen's and not kept (``benchmarks/itemquality/`` measures them).

* [`top_agreement`][holdout.items.alternatives.top_agreement]: the weighted agreement of
  [`weighted_agreement`][holdout.items.suspect.weighted_agreement] with only the most accurate models voting
  (weight 1 for the best ``fraction`` of the models by accuracy against the key, 0 for the rest): does the
  signal sit in the strong models' answers?
* [`dawid_skene_confusion`][holdout.items.alternatives.dawid_skene_confusion]: Dawid & Skene (1979) in full,
  each annotator (every model, and the key as one more) with its own C x C confusion matrix, fitted by EM;
  score: the posterior probability that the true answer is not the key. It can learn that models confuse
  cats with dogs and the key does not.

Each returns the (n,) score, higher = more suspect, for the same [`AnswerMatrix`][holdout.items.answers.AnswerMatrix].
"""

from __future__ import annotations

import numpy as np

from holdout.items.answers import AnswerGroups, AnswerMatrix, group_sums
from holdout.items.suspect import _accuracy, vote_margin

__all__ = ["ALTERNATIVES", "dawid_skene_confusion", "top_agreement"]


def top_agreement(m: AnswerMatrix, groups: AnswerGroups, *, fraction: float = 0.5) -> np.ndarray:
    """(Votes of the top ``fraction`` of models for the leading other answer - theirs for the key) / their votes.

    The models are ranked by accuracy against the key; the ``ceil(fraction * K)`` best vote with weight 1,
    the others with 0 (ties in accuracy broken by model order). Items none of them answered score 0.
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction: {fraction} is not in (0, 1]")
    acc = _accuracy(m)
    top = np.argsort(-acc, kind="stable")[: int(np.ceil(fraction * m.num_models))]
    w = np.zeros(m.num_models)
    w[top] = 1.0
    return vote_margin(groups, group_sums(groups.of_entry[:-1], groups.item_start, w))


def _posterior(log_pi: np.ndarray, codes: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """E step: (n, C) posterior of the true answer, log T[i, t] = log prior[t] + sum_k log pi_k[t, x_ki]."""
    log_t = np.broadcast_to(log_prior[:, None], (log_prior.size, codes.shape[1])).copy()
    for k in range(codes.shape[0]):
        seen = codes[k] >= 0
        log_t[:, seen] += log_pi[k][:, codes[k, seen]]
    log_t -= log_t.max(axis=0)
    t = np.exp(log_t)
    return (t / t.sum(axis=0)).T


def _confusions(t: np.ndarray, codes: np.ndarray, c: int, smoothing: float) -> np.ndarray:
    """M step: (K + 1, C, C) row-normalised pi_k[t, o] = sum_i T[i, t] [x_ki = o] + smoothing."""
    out = np.empty((codes.shape[0], c, c))
    for k in range(codes.shape[0]):
        seen = codes[k] >= 0
        onehot = np.zeros((int(seen.sum()), c))
        onehot[np.arange(onehot.shape[0]), codes[k, seen]] = 1.0
        out[k] = t[seen].T @ onehot + smoothing
    return out / out.sum(axis=2, keepdims=True)


def dawid_skene_confusion(
    m: AnswerMatrix,
    groups: AnswerGroups | None = None,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
    smoothing: float = 0.01,
    max_classes: int = 64,
) -> np.ndarray:
    """Full Dawid-Skene EM (Dawid & Skene 1979, eqs. 2.3-2.5), the key as annotator K + 1; score = 1 - T[i, key_i].

    ``groups`` is not read (the signature is that of the other scores). Started from the models' vote
    shares (the key not counted); ``smoothing`` is added to every confusion
    count (a Dirichlet prior, so an answer never seen from an annotator keeps a small probability). Holds
    (K + 1) x C x C floats and an n x C posterior: refused above ``max_classes`` classes.
    """
    c = m.num_classes
    if c > max_classes:
        raise ValueError(f"num_classes: {c} answers need a {c} x {c} matrix per model; use <= {max_classes}")
    codes = m.codes
    t = np.zeros((m.num_items, c))
    for k in range(codes.shape[0] - 1):
        seen = codes[k] >= 0
        t[np.flatnonzero(seen), codes[k, seen]] += 1.0
    t = np.where(t.sum(axis=1, keepdims=True) > 0, t, 1.0)
    t /= t.sum(axis=1, keepdims=True)
    for _ in range(max_iter):
        log_pi = np.log(_confusions(t, codes, c, smoothing))
        prior = t.mean(axis=0) + 1e-12
        new = _posterior(log_pi, codes, np.log(prior / prior.sum()))
        done = float(np.max(np.abs(new - t))) < tol
        t = new
        if done:
            break
    return 1.0 - t[np.arange(m.num_items), codes[-1]]


#: The scores compared and not kept, by name: each ``(AnswerMatrix, AnswerGroups) -> (n,) score``.
ALTERNATIVES = {"top_half_agreement": top_agreement, "dawid_skene_confusion": dawid_skene_confusion}
