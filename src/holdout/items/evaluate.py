"""Measuring a screen against a review: ROC AUC, precision of the flagged set, agreement of the proposed answer."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
from scipy.stats import rankdata

from holdout.items.alternatives import ALTERNATIVES
from holdout.items.leaderboard import leaderboard_without_flagged

__all__ = [
    "alternative_aucs",
    "agreement",
    "answer_patterns",
    "auc_ceiling",
    "auc_standard_error",
    "leaderboard_summary",
    "measured_precision",
    "precision",
    "review_metrics",
    "roc_auc",
    "share_curve",
    "vote_count_cells",
]


def roc_auc(score: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for ``positive`` against the rest: the Mann-Whitney U over
    n_pos n_neg (Hanley & McNeil 1982, Radiology 143:29-36), ties counted one half. NaN without both classes."""
    s = np.asarray(score, dtype=float)
    pos = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def auc_standard_error(auc: float, n_pos: int, n_neg: int) -> float:
    """Standard error of a ROC AUC (Hanley & McNeil 1982, Radiology 143:29-36, Eq. 2 with its Q1, Q2)."""
    if n_pos == 0 or n_neg == 0 or auc != auc:
        return float("nan")
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    var = (auc * (1 - auc) + (n_pos - 1) * (q1 - auc * auc) + (n_neg - 1) * (q2 - auc * auc)) / (n_pos * n_neg)
    return float(np.sqrt(max(var, 0.0)))


def precision(flagged: np.ndarray, positive: np.ndarray) -> float:
    """Share of the flagged items that are positive (NaN when nothing is flagged)."""
    f = np.asarray(flagged, dtype=bool)
    return float(np.asarray(positive, dtype=bool)[f].mean()) if f.any() else float("nan")


def agreement(proposed: np.ndarray, reference: np.ndarray) -> float:
    """Share of items whose proposed answer equals the reviewers' answer (NaN on no items)."""
    p, r = np.asarray(proposed, dtype=object), np.asarray(reference, dtype=object)
    return float(np.mean([str(a) == str(b) for a, b in zip(p, r)])) if p.size else float("nan")


def share_curve(scores, answered: np.ndarray, positive: np.ndarray, reviewed: np.ndarray) -> list[dict]:
    """Flag count and precision among reviewed flagged items for each ``min_share`` of the suspect-key rule."""
    share = scores.models_for_proposed / np.maximum(answered, 1)
    out = []
    for t in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        flag = (scores.score > 0) & (share >= t) & (scores.proposed >= 0)
        out.append(
            {
                "min_share": t,
                "flagged": int(flag.sum()),
                "flagged_reviewed": int((flag & reviewed).sum()),
                "precision": precision(flag[reviewed], positive[reviewed]),
            }
        )
    return out


def review_metrics(reviewed, screen, method_scores: dict, codes: np.ndarray) -> dict:
    """The published checks of one reviewed set (a ``ReviewedSet``) and its ``ItemScreen``.

    ROC AUC of each method's score for wrong keys against items judged fine (reviewed items only);
    the flagged set's size and precision among reviewed flagged items (wrong key; and any judged error,
    i.e. reviewed and not fine); agreement of the proposed answer with the reviewers' answer on flagged
    wrong keys (and on all wrong keys the reviewers answered); duplicates found.
    """
    wrong, fine = reviewed.wrong, reviewed.fine
    rev = wrong | fine
    suspect = screen.flag == "suspect_key"
    negative = screen.flag == "negative_discrimination"
    has_ref = np.array([r is not None for r in reviewed.reference])
    judged = _judged(reviewed)
    unanimous = ((codes[:-1] == codes[-1]) | (codes[:-1] < 0)).all(axis=0)
    out = {
        "source": reviewed.source,
        "models": len(reviewed.models),
        "items": len(reviewed.items),
        "reviewed_wrong": int(wrong.sum()),
        "reviewed_fine": int(fine.sum()),
        "auc": {name: roc_auc(s.score[rev], wrong[rev]) for name, s in method_scores.items()},
        "auc_standard_error": {
            name: auc_standard_error(roc_auc(s.score[rev], wrong[rev]), int(wrong.sum()), int(fine.sum()))
            for name, s in method_scores.items()
        },
        "dawid_skene_above_099": int((method_scores["dawid_skene"].score > 0.99).sum())
        if "dawid_skene" in method_scores
        else None,
        "reviewed_error_share": float((~fine[judged]).mean()) if judged.any() else float("nan"),
        "auc_ceiling_answers_only": auc_ceiling(answer_patterns(codes), wrong, fine) if wrong.any() else float("nan"),
        "auc_ceiling_vote_counts": auc_ceiling(vote_count_cells(codes), wrong, fine) if wrong.any() else float("nan"),
        "wrong_keys_every_model_gives": int((wrong & unanimous).sum()),
        "flagged_suspect_key": int(suspect.sum()),
        "flagged_suspect_key_reviewed": int((suspect & judged).sum()),
        "precision_wrong_key": precision(suspect[judged], wrong[judged]),
        "precision_any_error": precision(suspect[judged], ~fine[judged]),
        "flagged_negative_discrimination": int(negative.sum()),
        "precision_negative_discrimination_any_error": precision(negative[judged], ~fine[judged]),
        "agreement_flagged_wrong": agreement(
            screen.proposed_answer[suspect & wrong & has_ref], reviewed.reference[suspect & wrong & has_ref]
        ),
        "flagged_wrong_with_reviewers_answer": int((suspect & wrong & has_ref).sum()),
        "agreement_all_wrong": agreement(screen.proposed_answer[wrong & has_ref], reviewed.reference[wrong & has_ref]),
        "share_curve": share_curve(screen.scores, screen.answered, wrong, judged),
        "notes": list(reviewed.notes),
    }
    if screen.duplicates is not None:
        dup = screen.duplicates
        out["duplicates"] = {
            "groups": dup.num_groups,
            "items": dup.num_items,
            "groups_keys_disagree": int(len(set(dup.group[dup.keys_agree == 0]))),
        }
        if reviewed.published_duplicates is not None:
            pub = reviewed.published_duplicates >= 0
            out["duplicates"]["published_items"] = int(pub.sum())
            out["duplicates"]["found_of_published"] = int((pub & (dup.group >= 0)).sum())
    return out


def _judged(reviewed) -> np.ndarray:
    """Items the reviewers looked at (all of them unless the set says otherwise)."""
    return reviewed.looked_at if reviewed.looked_at is not None else np.ones(len(reviewed.items), bool)


def answer_patterns(codes: np.ndarray) -> np.ndarray:
    """Per item, an id of its answers up to renaming: rows (models) compared, the key row last; key -> 0,
    no answer -> -1, other answers numbered by first model giving them. Items with equal ids look the same
    to every score that reads only the answers."""
    key = codes[-1]
    canon = np.where(codes[:-1] == key, 0, np.where(codes[:-1] < 0, -1, 0)).T.copy()
    for i in np.flatnonzero(((codes[:-1] != key) & (codes[:-1] >= 0)).any(axis=0)):
        others = codes[:-1, i]
        seen: dict[int, int] = {}
        for k, a in enumerate(others):
            if a >= 0 and a != key[i]:
                canon[i, k] = seen.setdefault(int(a), len(seen) + 1)
    return np.unique(canon, axis=0, return_inverse=True)[1].ravel()


def auc_ceiling(patterns: np.ndarray, positive: np.ndarray, negative: np.ndarray) -> float:
    """The largest ROC AUC any score that is a function of the answer pattern can reach: patterns ordered by
    their share of positives (the likelihood-ratio order, Neyman-Pearson), ties within a pattern counted one half."""
    pos = np.bincount(patterns[positive], minlength=patterns.max() + 1).astype(float)
    neg = np.bincount(patterns[negative], minlength=patterns.max() + 1).astype(float)
    keep = (pos + neg) > 0
    pos, neg = pos[keep], neg[keep]
    order = np.argsort(-pos / (pos + neg), kind="stable")
    pos, neg = pos[order], neg[order]
    below = neg.sum() - np.cumsum(neg)  # negatives in patterns ranked lower
    return float((pos * (below + 0.5 * neg)).sum() / (pos.sum() * neg.sum()))


def vote_count_cells(codes: np.ndarray) -> np.ndarray:
    """Per item, an id of (models giving the key, models giving the most-given other answer): items with equal
    ids look the same to every score that treats the models alike and reads only those two counts."""
    models, key = codes[:-1], codes[-1]
    on_key = (models == key).sum(axis=0)
    other = np.where((models != key) & (models >= 0), models, -1)
    lead = np.zeros(codes.shape[1], dtype=np.int64)
    for i in np.flatnonzero((other >= 0).any(axis=0)):
        lead[i] = np.bincount(other[other[:, i] >= 0, i]).max()
    return on_key.astype(np.int64) * (models.shape[0] + 1) + lead


def alternative_aucs(rs, m, groups, discrimination: np.ndarray) -> dict:
    """ROC AUC (and its standard error) of the scores compared and not kept (``holdout.items.alternatives``, and
    minus the discrimination) for wrong keys against items judged fine, on a ``ReviewedSet``."""
    rev = rs.wrong | rs.fine
    scores = {name: fn(m, groups) for name, fn in ALTERNATIVES.items()}
    scores["negative_discrimination"] = -np.nan_to_num(discrimination, nan=0.0)
    out = {}
    for name, s in scores.items():
        auc = roc_auc(s[rev], rs.wrong[rev])
        out[name] = {"auc": auc, "se": auc_standard_error(auc, int(rs.wrong.sum()), int(rs.fine.sum()))}
    return out


def leaderboard_summary(correct: np.ndarray, models, flagged: np.ndarray) -> dict:
    """[`leaderboard_without_flagged`][holdout.items.leaderboard.leaderboard_without_flagged] in short: items
    dropped, whether the order or the top group changed, the top group before and after, pairs swapped."""
    ch = leaderboard_without_flagged(correct, models, flagged)
    t = ch.table
    before, after = t["accuracy"].to_numpy(), t["accuracy_without_flagged"].to_numpy()
    return {
        "items_dropped": ch.items_dropped,
        "order_changed": ch.order_changed,
        "top_group_changed": ch.top_group_changed,
        "top_group": t.loc[t["tied_with_best"], "model"].tolist(),
        "top_group_without_flagged": t.loc[t["tied_with_best_without_flagged"], "model"].tolist(),
        "pairs_swapped": int(((before[:, None] > before[None, :]) & (after[:, None] < after[None, :])).sum()),
    }


def measured_precision() -> dict:
    """The screen's measured precision and AUC on the published reviews, as the audit's summary quotes them:
    ``measured_precision.json`` beside this module, written by ``benchmarks/itemquality/published_checks.py
    --docs`` (date, machine, and per reviewed set the flag counts, precisions, agreement and AUCs)."""
    return json.loads(resources.files("holdout.items").joinpath("measured_precision.json").read_text())
