"""The adaptive-analyst study on one test set: splits, attacks x mechanisms, overfit vs k, beside the bounds.

Each mechanism's overfit is measured where its guarantee would live: on the attack half A for the
leaderboard mechanisms (trivial, the Ladders), on Thresholdout's holdout S_h for Thresholdout (its
training half S_t is the analyst's data, exposed by design; its overfit is reported beside, labelled
so) and for ``trivial_half``, the trivial mechanism over S_h alone (a holdout of the same size).
Two settings of the boosting attack: on the real predictions (``boosting``: the best published
model as base) and in Blum & Hardt's own setting (``boosting_random``: random binary labels and a
random base, which the attack can beat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from holdout.adaptive import attacks, mechanisms
from holdout.adaptive.bounds import overfit_bound, section4_bound, sqrt_k_over_n
from holdout.predictions import Predictions
from holdout.similarity import pairwise_similarity, upper_pairs

__all__ = [
    "ATTACKS",
    "GUARDED_ON",
    "MECHANISMS",
    "StudyParams",
    "QueryAccuracies",
    "Split",
    "keep_rule",
    "query_accuracies",
    "reported_scores",
    "run_study",
    "seeded_split",
    "summarize",
]

ATTACKS = ("boosting", "boosting_random", "ensemble", "selection")
MECHANISMS = ("trivial", "ladder", "ladder_free", "thresholdout", "trivial_half")

#: where each mechanism's overfit is measured: A (the leaderboard) or S_h (the holdout it answers from)
GUARDED_ON = {"trivial": "A", "ladder": "A", "ladder_free": "A", "thresholdout": "S_h", "trivial_half": "S_h"}


@dataclass(frozen=True)
class StudyParams:
    """Parameters of the study (config ``adaptive:``; see config/schema.yaml for each one's source)."""

    n_splits: int = 10
    k_grid: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    ensemble_k_max: int = 200
    subset_size: int = 5
    ladder_step: float = 0.01
    threshold_sqrt_n: float = 4.0
    sigma_sqrt_n: float = 1.0
    budget: int | None = None
    delta: float = 0.05
    seed: int = 0
    base_model: str | None = None
    attacks: tuple[str, ...] = ATTACKS
    mechanisms: tuple[str, ...] = MECHANISMS


@dataclass(frozen=True)
class Split:
    """Indices of the attack half A (the leaderboard), the held-out half H, and A's Thresholdout parts."""

    attack: np.ndarray
    heldout: np.ndarray
    to_train: np.ndarray
    to_holdout: np.ndarray


def seeded_split(n: int, rng: np.random.Generator) -> Split:
    """A uniformly random half of the n points as the attack half, the rest held out.

    Thresholdout needs a "training" sample beside its holdout: the attack half is cut in two,
    S_t (first half) and S_h (second half); the analyst's answers come from A only.
    """
    if n < 4:
        raise ValueError(f"a test set of n = {n} points is too small to split (need >= 4)")
    perm = rng.permutation(n)
    attack, heldout = np.sort(perm[: n // 2]), np.sort(perm[n // 2 :])
    inner = rng.permutation(attack.size)
    half = attack.size // 2
    return Split(attack, heldout, np.sort(attack[inner[:half]]), np.sort(attack[inner[half:]]))


def _thresholdout_params(split: Split, p: StudyParams) -> mechanisms.ThresholdoutParams:
    params = mechanisms.thresholdout_published(split.to_holdout.size, p.threshold_sqrt_n, p.sigma_sqrt_n)
    return mechanisms.ThresholdoutParams(params.threshold, params.sigma, p.budget)


@dataclass(frozen=True)
class QueryAccuracies:
    """The queries' correctness (k x n, the whole set) and their accuracies on A, S_t and S_h (once per attack)."""

    correct: np.ndarray
    attack: np.ndarray
    train: np.ndarray
    holdout: np.ndarray


def query_accuracies(correct: np.ndarray, split: Split) -> QueryAccuracies:
    """Accuracies of every query on A, S_t and S_h (A's from S_t's and S_h's counts: A = S_t + S_h)."""
    on_t = correct[:, split.to_train].sum(axis=1, dtype=np.float64)
    on_h = correct[:, split.to_holdout].sum(axis=1, dtype=np.float64)
    n_t, n_h = split.to_train.size, split.to_holdout.size
    return QueryAccuracies(correct, (on_t + on_h) / (n_t + n_h), on_t / n_t, on_h / n_h)


def _answers(
    mechanism: str, q: QueryAccuracies, split: Split, p: StudyParams, seed: list[int]
) -> tuple[np.ndarray, np.ndarray | None]:
    """The mechanism's answers to the k queries, and (Thresholdout only) which it took from S_h."""
    if mechanism == "trivial":
        return q.attack, None
    if mechanism == "ladder":
        return mechanisms.ladder_from_losses(1.0 - q.attack, p.ladder_step), None
    if mechanism == "ladder_free":
        return mechanisms.ladder_parameter_free(q.correct[:, split.attack]), None
    if mechanism == "trivial_half":
        return q.holdout, None
    if mechanism == "thresholdout":
        rng = np.random.default_rng(seed)
        out = mechanisms.thresholdout_from_accuracies(q.train, q.holdout, _thresholdout_params(split, p), rng)
        return out.answers, out.from_holdout
    raise ValueError(f"unknown mechanism {mechanism!r} (one of {', '.join(MECHANISMS)})")


def reported_scores(
    mech: str,
    q: QueryAccuracies,
    answers: np.ndarray,
    sub: np.ndarray,
    ks: np.ndarray,
    split: Split,
    p: StudyParams,
    seed: list[int],
) -> np.ndarray:
    """The score mechanism ``mech`` would report for each submission ``sub[g]``, asked as query k + 1
    after the first k = ``ks[g]`` queries (``q``: the queries, ``answers``: the mechanism's answers to
    them, ``seed``: its noise seed).

    trivial (trivial_half): its accuracy on A (S_h); the Ladders: the leaderboard's score after it (its own
    score if it moves the leaderboard, else the standing best); Thresholdout: its answer, the mechanism
    continued from the same state (same noise draws for the first k queries).
    """
    on_a = sub[:, split.attack]
    if mech in ("trivial", "trivial_half"):
        return (on_a if mech == "trivial" else sub[:, split.to_holdout]).mean(axis=1)
    out = np.empty(len(ks))
    if mech == "ladder":
        for g, k in enumerate(ks):
            losses = np.append(1.0 - q.attack[:k], 1.0 - on_a[g].mean())
            out[g] = mechanisms.ladder_from_losses(losses, p.ladder_step)[-1]
    elif mech == "ladder_free":
        for g, k in enumerate(ks):
            moved = np.flatnonzero(np.diff(answers[:k]) != 0)  # the leader changes exactly when the answer does
            leader = int(moved[-1]) + 1 if moved.size else 0
            accepts = mechanisms.free_ladder_accepts(q.correct[leader, split.attack], on_a[g])
            out[g] = on_a[g].mean() if accepts else answers[k - 1]
    elif mech == "thresholdout":
        sub_t, sub_h = sub[:, split.to_train].mean(axis=1), sub[:, split.to_holdout].mean(axis=1)
        params = _thresholdout_params(split, p)
        for g, k in enumerate(ks):
            more_t, more_h = np.append(q.train[:k], sub_t[g]), np.append(q.holdout[:k], sub_h[g])
            answered = mechanisms.thresholdout_from_accuracies(more_t, more_h, params, np.random.default_rng(seed))
            out[g] = answered.answers[-1]
    else:
        raise ValueError(f"unknown mechanism {mech!r} (one of {', '.join(MECHANISMS)})")
    return out


def keep_rule(mechanism: str, attack: str) -> attacks.Rule:
    """Which answers the analyst counts as better ([`kept_queries`][holdout.adaptive.attacks.kept_queries]).

    Against a Ladder: the queries that moved the leaderboard (Blum & Hardt's ``attacks.jl``). The
    boosting attack in both settings: above the midpoint of answers 0 and 1, the expected score of a
    random half-flip; in Blum & Hardt's setting (C = 2, query 1 = every label flipped) answers 0 and
    1 sum to 1 on any data, so the midpoint is exactly their threshold 1/2 ("loss <= 1/2"). Selective
    ensembling: above query 0, the vote of every model.
    """
    if mechanism.startswith("ladder"):
        return "improved"
    return "above_midpoint" if attack.startswith("boosting") else "above_base"


@dataclass(frozen=True)
class _Attack:
    """One attack's queries on one split: their correctness (k x n) and the submission map."""

    correct: np.ndarray
    submit: Callable[[np.ndarray, np.ndarray], np.ndarray]  # (answers, ks) -> correctness (len(ks), n)


def _boosting(preds: Predictions, base: int, k: int, rng: np.random.Generator) -> _Attack:
    f0 = preds.predictions[base].astype(np.int64)
    flips, alt = attacks.boosting_queries(f0, preds.num_classes, k, rng)
    c0, ca = f0 == preds.labels, alt == preds.labels
    correct = np.where(flips, ca[None, :], c0[None, :])

    def submit(kept: np.ndarray, ks: np.ndarray) -> np.ndarray:
        return np.where(attacks.boosting_submit(flips, kept, ks), ca[None, :], c0[None, :])

    return _Attack(correct, submit)


def _ensemble(preds: Predictions, canon: np.ndarray, k: int, size: int, rng: np.random.Generator) -> _Attack:
    queries = attacks.ensemble_queries(canon, k, size, rng)
    model_correct = preds.predictions == preds.labels[None, :]
    cols = np.arange(preds.num_examples)
    correct = model_correct[queries, cols[None, :]]

    def submit(kept: np.ndarray, ks: np.ndarray) -> np.ndarray:
        chosen = attacks.ensemble_submit(queries, kept, ks, preds.num_models)
        return model_correct[chosen, cols[None, :]]

    return _Attack(correct, submit)


def _boosting_random(n: int, k: int, rng: np.random.Generator) -> _Attack:
    """Blum & Hardt's setting (Sec. 5, their ``attacks.jl``): n random binary labels, a random base
    (population accuracy of every classifier 1/2), flips of the base, majority of the kept flips."""
    labels, f0 = rng.integers(0, 2, n), rng.integers(0, 2, n)
    flips, alt = attacks.boosting_queries(f0, 2, k, rng)
    c0, ca = f0 == labels, alt == labels
    correct = np.where(flips, ca[None, :], c0[None, :])

    def submit(kept: np.ndarray, ks: np.ndarray) -> np.ndarray:
        return np.where(attacks.boosting_submit(flips, kept, ks), ca[None, :], c0[None, :])

    return _Attack(correct, submit)


def _selection(preds: Predictions, k: int, rng: np.random.Generator) -> _Attack:
    order = rng.permutation(preds.num_models)[:k]
    correct = preds.predictions[order] == preds.labels[None, :]

    def submit(answers: np.ndarray, ks: np.ndarray) -> np.ndarray:
        return correct[attacks.selection_submit(answers, ks)]

    return _Attack(correct, submit)


def attack_grid(name: str, p: StudyParams, num_models: int) -> tuple[int, ...]:
    """The k of the grid an attack can reach (selection: at most K models, and K itself)."""
    cap = {"ensemble": p.ensemble_k_max, "selection": num_models}.get(name, max(p.k_grid))
    ks = [k for k in p.k_grid if k <= cap]
    if not name.startswith("boosting") and cap not in ks and cap <= max(p.k_grid):
        ks.append(cap)
    return tuple(sorted(set(ks)))


def base_model_index(preds: Predictions, name: str | None) -> int:
    """The boosting attack's base: the named model, or the most accurate on the whole set (public)."""
    if name is None:
        return int(np.argmax(preds.accuracies()))
    if name not in preds.model_names:
        raise ValueError(f"adaptive.base_model {name!r} is not among the models of {preds.test_set}")
    return preds.model_names.index(name)


def _build(name: str, preds: Predictions, canon: np.ndarray, ks: tuple[int, ...], p: StudyParams, rng) -> _Attack:
    if name == "boosting":
        return _boosting(preds, base_model_index(preds, p.base_model), max(ks), rng)
    if name == "boosting_random":
        return _boosting_random(preds.num_examples, max(ks), rng)
    if name == "ensemble":
        return _ensemble(preds, canon, max(ks), p.subset_size, rng)
    if name == "selection":
        return _selection(preds, max(ks), rng)
    raise ValueError(f"unknown attack {name!r} (one of {', '.join(ATTACKS)})")


def _query_similarity(correct: np.ndarray, heldout: np.ndarray, max_queries: int = 100) -> float:
    """Mean pairwise similarity of the queries' 0/1 losses on the held-out half (population proxy)."""
    errors = ~correct[:max_queries][:, heldout]
    if errors.shape[0] < 2:
        return 1.0
    return float(upper_pairs(pairwise_similarity(errors)).mean())


def _rows(name: str, mech: str, s: int, ks: tuple[int, ...], sub: np.ndarray, split: Split, extra: dict) -> list[dict]:
    """One row per k: the submission's accuracy on A, H, S_t, S_h, its overfits against H, and ``extra``
    (per-k arrays or scalars: query 0's accuracies, the reported score, the share answered from S_h)."""
    acc = {part: sub[:, getattr(split, part)].mean(axis=1) for part in ("attack", "heldout", "to_train", "to_holdout")}
    guarded = "to_holdout" if GUARDED_ON[mech] == "S_h" else "attack"
    n_guarded = getattr(split, guarded).size
    per_k = {key: np.broadcast_to(np.asarray(v, dtype=np.float64), (len(ks),)) for key, v in extra.items()}
    return [
        dict(
            attack=name,
            mechanism=mech,
            split=s,
            k=k,
            n_attack=split.attack.size,
            n_heldout=split.heldout.size,
            guarded_on=GUARDED_ON[mech],
            n_guarded=n_guarded,
            acc_attack=acc["attack"][i],
            acc_heldout=acc["heldout"][i],
            acc_train=acc["to_train"][i],
            acc_holdout=acc["to_holdout"][i],
            overfit=acc["attack"][i] - acc["heldout"][i],
            overfit_guarded=acc[guarded][i] - acc["heldout"][i],
            overfit_train=acc["to_train"][i] - acc["heldout"][i],
            **{key: float(v[i]) for key, v in per_k.items()},
            reported_minus_heldout=float(per_k["reported"][i]) - acc["heldout"][i],
        )
        for i, k in enumerate(ks)
    ]


def _mechanism_rows(name: str, attack: _Attack, s: int, ks: tuple[int, ...], split: Split, p: StudyParams) -> list:
    """Every mechanism against one attack on one split (each with its own seeded noise)."""
    a_i = p.attacks.index(name)
    base = {"base_acc_attack": attack.correct[0, split.attack].mean()}
    base |= {"base_acc_heldout": attack.correct[0, split.heldout].mean()}
    base |= {"query_similarity": _query_similarity(attack.correct, split.heldout)}
    grid, rows, q = np.asarray(ks), [], query_accuracies(attack.correct, split)
    for m_i, mech in enumerate(p.mechanisms):
        seed = [p.seed, s, 1 + a_i, 100 + m_i]
        answers, from_holdout = _answers(mech, q, split, p, seed)
        key = answers if name == "selection" else attacks.kept_queries(answers, keep_rule(mech, name))
        sub = attack.submit(key, grid)
        share = np.nan if from_holdout is None else np.cumsum(from_holdout)[grid - 1] / grid
        reported = reported_scores(mech, q, answers, sub, grid, split, p, seed)
        rows += _rows(name, mech, s, ks, sub, split, base | {"reported": reported, "frac_from_holdout": share})
    return rows


def run_study(preds: Predictions, p: StudyParams, progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Overfit of every attack x mechanism x split x k: one row each.

    ``overfit``: accuracy on the attack half A minus the held-out half H; ``overfit_guarded``: on the
    data the mechanism protects (``guarded_on``: A, or S_h for Thresholdout and ``trivial_half``)
    minus H; ``overfit_train``: on Thresholdout's training half S_t (exposed) minus H.
    ``base_acc_attack`` / ``base_acc_heldout``: query 0 (the boosting attack's base, the vote of every
    model for ensembling, the first model drawn for selection) on A / H. ``reported``: the score the
    mechanism would report for the submission asked as one more query; ``reported_minus_heldout``:
    that minus the submission's accuracy on H. ``frac_from_holdout``: Thresholdout's share of the
    first k answers taken from S_h (nan for the other mechanisms).
    """
    canon = attacks.canonical_labels(preds.predictions)
    rows: list[dict[str, object]] = []
    for s in range(p.n_splits):
        rng = np.random.default_rng([p.seed, s])
        split = seeded_split(preds.num_examples, rng)
        for a_i, name in enumerate(p.attacks):
            ks = attack_grid(name, p, preds.num_models)
            attack = _build(name, preds, canon, ks, p, np.random.default_rng([p.seed, s, 1 + a_i]))
            rows += _mechanism_rows(name, attack, s, ks, split, p)
        if progress is not None:
            progress(f"split {s + 1}/{p.n_splits} done")
    return pd.DataFrame(rows)


def summarize(runs: pd.DataFrame, delta: float) -> pd.DataFrame:
    """Mean, sd, min and max overfit over splits per attack x mechanism x k, beside sqrt(k/n) and the bounds.

    ``overfit_*`` is measured where the mechanism's guarantee would live (``guarded_on``, n = ``n_guarded``);
    ``overfit_attack_mean`` on the whole attack half A, ``overfit_train_mean`` on S_t (exposed).
    ``acc_attack`` / ``acc_heldout``: the submission's mean accuracy on A (the leaderboard) and H,
    beside query 0's (``base_acc_*``); ``reported_minus_heldout_*``: the score the mechanism would
    report for the submission minus its accuracy on H; ``frac_from_holdout``: Thresholdout's mean
    share of answers taken from S_h.
    Mania et al.'s Sec. 4 bound at n = ``n_guarded`` (the submission as query k + 1 at delta/2, plus
    the held-out half's Hoeffding term), two ways: ``bound_theorem`` at alpha = 0, Corollary 4 without
    any assumption (a theorem: it fails with probability at most delta whatever the data);
    ``bound_if_covering`` the smallest over alpha in [0, 1] *if* the covering condition
    N_eta(F) <= (n+1)^(k^(1-alpha)) holds at the queries' measured similarity (a heuristic: that
    condition is over every query the analyst could ask and cannot be checked from data).
    ``margin`` = bound_theorem - the largest overfit of any split.
    """
    g = runs.groupby(["attack", "mechanism", "k"], sort=False)
    out = g.agg(
        guarded_on=("guarded_on", "first"),
        n_guarded=("n_guarded", "min"),
        n_attack=("n_attack", "min"),
        n_heldout=("n_heldout", "min"),
        overfit_mean=("overfit_guarded", "mean"),
        overfit_sd=("overfit_guarded", "std"),
        overfit_min=("overfit_guarded", "min"),
        overfit_max=("overfit_guarded", "max"),
        overfit_attack_mean=("overfit", "mean"),
        overfit_train_mean=("overfit_train", "mean"),
        acc_attack=("acc_attack", "mean"),
        acc_heldout=("acc_heldout", "mean"),
        base_acc_attack=("base_acc_attack", "mean"),
        base_acc_heldout=("base_acc_heldout", "mean"),
        reported_minus_heldout_mean=("reported_minus_heldout", "mean"),
        reported_minus_heldout_sd=("reported_minus_heldout", "std"),
        frac_from_holdout=("frac_from_holdout", "mean"),
        similarity=("query_similarity", "mean"),
    ).reset_index()
    out["sqrt_k_over_n"] = [sqrt_k_over_n(int(k), int(n)) for k, n in zip(out["k"], out["n_guarded"], strict=True)]
    n_k = list(zip(out["n_guarded"].astype(int), out["n_heldout"].astype(int), out["k"].astype(int), strict=True))
    out["bound_theorem"] = [overfit_bound(n, nh, k, 0.0, delta) for n, nh, k in n_k]
    out["bound_if_covering"] = [
        overfit_bound(n, nh, k, float(eta), delta) for (n, nh, k), eta in zip(n_k, out["similarity"], strict=True)
    ]
    out["alpha_if_covering"] = [
        section4_bound(n, k + 1, float(eta), delta / 2.0)[1]
        for (n, _, k), eta in zip(n_k, out["similarity"], strict=True)
    ]
    out["margin"] = out["bound_theorem"] - out["overfit_max"]
    return out


def models_similarity(preds: Predictions) -> float:
    """Mean pairwise similarity of the published models on the whole set (Mania et al. Sec. 2)."""
    return float(upper_pairs(pairwise_similarity(preds.errors())).mean()) if preds.num_models > 1 else 1.0


def study_params(
    cfg: dict[str, object], sequence_keys: Sequence[str] = ("k_grid", "attacks", "mechanisms")
) -> StudyParams:
    """StudyParams from the ``adaptive:`` config section (lists become tuples)."""
    fields = set(StudyParams.__dataclass_fields__)
    kwargs = {k: (tuple(v) if k in sequence_keys else v) for k, v in cfg.items() if k in fields}  # type: ignore[arg-type]
    return StudyParams(**kwargs)  # type: ignore[arg-type]
