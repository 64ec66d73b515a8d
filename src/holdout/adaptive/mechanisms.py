"""Mechanisms that answer an analyst's accuracy queries on the attack half (the leaderboard).

Every mechanism receives the 0/1 correctness of the k queries on the leaderboard points
(a k x n boolean matrix, in the order the analyst asked them) and returns the k answers the
analyst saw, as accuracies (``nan`` where a mechanism refuses to answer). The queries of the
attacks in [`holdout.adaptive.attacks`][holdout.adaptive.attacks] do not depend on earlier answers (only the final
submission does), so answering them in one call is the same as answering them one by one.

- [`trivial`][holdout.adaptive.mechanisms.trivial]: the exact empirical accuracy (Mania et al. 2019, Sec. 4, "Trivial
  Mechanism").
- [`ladder`][holdout.adaptive.mechanisms.ladder]: Blum & Hardt (2015), *The Ladder*, Algorithm 1 (step size eta).
- [`ladder_parameter_free`][holdout.adaptive.mechanisms.ladder_parameter_free]: Blum & Hardt (2015), the parameter-free
  Ladder (one-sided paired
  t-test against the current leader; as in their code ``mrtzh/Ladder.jl``, ``score!(::FreeLadder)``).
- [`thresholdout`][holdout.adaptive.mechanisms.thresholdout]: Dwork et al. (2015, *Science* 349:636), Thresholdout
  (threshold T, Laplace
  noise scale sigma, overfitting budget B).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ThresholdoutAnswers",
    "ThresholdoutParams",
    "free_ladder_accepts",
    "ladder",
    "ladder_from_losses",
    "ladder_parameter_free",
    "round_to_step",
    "thresholdout",
    "thresholdout_from_accuracies",
    "thresholdout_published",
    "trivial",
]


def _as_correct(correct: np.ndarray) -> np.ndarray:
    c = np.asarray(correct)
    if c.ndim != 2 or c.shape[1] == 0:
        raise ValueError(f"correct must be a k x n 0/1 matrix with n >= 1, got shape {c.shape}")
    return c.astype(bool, copy=False)


def trivial(correct: np.ndarray) -> np.ndarray:
    """The trivial mechanism: the exact leaderboard accuracy of each query (Mania et al. Sec. 4)."""
    return _as_correct(correct).mean(axis=1)


def round_to_step(x: float, step: float) -> float:
    """[x]_eta of Blum & Hardt Algorithm 1: x rounded to the nearest integer multiple of ``step``."""
    return round(x / step) * step


def ladder(correct: np.ndarray, step: float) -> np.ndarray:
    """The Ladder (Blum & Hardt 2015, Algorithm 1) with step size ``step`` (eta > 0).

    In losses: R_0 = inf; at round t, if R_S(f_t) < R_{t-1} - eta then R_t = [R_S(f_t)]_eta, else
    R_t = R_{t-1}. The analyst sees 1 - R_t (an accuracy): the best score so far, moved only
    when a submission beats it by more than eta.
    """
    return ladder_from_losses(1.0 - trivial(correct), step)


def ladder_from_losses(losses: np.ndarray, step: float) -> np.ndarray:
    """The Ladder (Blum & Hardt 2015, Algorithm 1) on the submissions' empirical losses R_S(f_t).

    The same answers as [`ladder`][holdout.adaptive.mechanisms.ladder] given the losses: the
    analyst's score after a further submission f is ``ladder_from_losses(append(losses, R_S(f)))[-1]``.
    """
    if not step > 0:
        raise ValueError(f"Ladder step size must be > 0, got {step}")
    answers = np.empty(np.shape(losses))
    best = math.inf
    for t, loss in enumerate(np.asarray(losses, dtype=np.float64)):
        if loss < best - step:
            best = round_to_step(float(loss), step)
        answers[t] = 1.0 - best
    return answers


def ladder_parameter_free(correct: np.ndarray) -> np.ndarray:
    """The parameter-free Ladder of Blum & Hardt (2015) (their code ``mrtzh/Ladder.jl``, ``FreeLadder``).

    A submission replaces the leader when its loss is below the leader's by more than s / sqrt(n),
    s the sample standard deviation of the paired loss differences (of the losses themselves for
    the first submission): a one-sided paired t-test at about one standard error. The reported
    score is the leader's exact loss (no rounding); the analyst sees 1 - that loss.
    """
    c = _as_correct(correct)
    n = c.shape[1]
    loss = (~c).astype(np.float64)
    sums = loss.sum(axis=1)  # 0/1 losses: the sum of squares is the sum
    answers = np.empty(c.shape[0])
    best, leader, dots = math.inf, -1, np.zeros(c.shape[0])
    for t in range(c.shape[0]):
        # paired differences d = l_t - l_leader: sum d = S_t - S_L, sum d^2 = S_t + S_L - 2 <l_t, l_L>
        d_sum = sums[t] if leader < 0 else sums[t] - sums[leader]
        d_sq = sums[t] if leader < 0 else sums[t] + sums[leader] - 2.0 * dots[t]
        s = math.sqrt(max(d_sq - d_sum * d_sum / n, 0.0) / (n - 1)) if n > 1 else 0.0
        if sums[t] / n < best - s / math.sqrt(n):
            best, leader = float(sums[t] / n), t
            dots = loss @ loss[t]  # the new leader's overlap with every query, once per change
        answers[t] = 1.0 - best
    return answers


def free_ladder_accepts(leader_correct: np.ndarray, correct: np.ndarray) -> bool:
    """Whether the parameter-free Ladder replaces its leader by a submission (one step of
    [`ladder_parameter_free`][holdout.adaptive.mechanisms.ladder_parameter_free]): the submission's
    0/1 loss is below the leader's by more than s / sqrt(n), s the sample standard deviation of the
    paired loss differences (Blum & Hardt 2015; ``Ladder.jl`` ``FreeLadder``)."""
    lead = (~np.asarray(leader_correct, dtype=bool)).astype(np.float64)
    loss = (~np.asarray(correct, dtype=bool)).astype(np.float64)
    n = loss.size
    s = float(np.std(loss - lead, ddof=1)) if n > 1 else 0.0
    return bool(loss.sum() / n < lead.sum() / n - s / math.sqrt(n))


@dataclass(frozen=True)
class ThresholdoutParams:
    """Thresholdout's threshold T, noise scale sigma (Laplace) and budget B (None: unlimited)."""

    threshold: float
    sigma: float
    budget: int | None = None

    def __post_init__(self) -> None:
        if not self.threshold >= 0 or not self.sigma >= 0:
            raise ValueError(f"Thresholdout needs threshold >= 0 and sigma >= 0, got {self}")
        if self.budget is not None and self.budget < 0:
            raise ValueError(f"Thresholdout budget must be >= 0 or None, got {self.budget}")


def thresholdout_published(
    n_holdout: int, threshold_sqrt_n: float = 4.0, sigma_sqrt_n: float = 1.0
) -> ThresholdoutParams:
    """The published experiment's parameters scaled to the holdout size: T = 4/sqrt(n), sigma = 1/sqrt(n).

    Dwork et al. (2015, Science), supplementary code: ``threshold = 4.0/np.sqrt(n)``,
    ``tolerance = 1.0/np.sqrt(n)`` with n = 10,000, i.e. T = 0.04 and sigma = 0.01.
    """
    if n_holdout < 1:
        raise ValueError(f"holdout size must be >= 1, got {n_holdout}")
    root = math.sqrt(n_holdout)
    return ThresholdoutParams(threshold=threshold_sqrt_n / root, sigma=sigma_sqrt_n / root)


def _laplace(rng: np.random.Generator, scale: float) -> float:
    return float(rng.laplace(0.0, scale)) if scale > 0 else 0.0


@dataclass(frozen=True)
class ThresholdoutAnswers:
    """Thresholdout's answers and, per query, whether it answered from the holdout S_h (E_h + noise)."""

    answers: np.ndarray
    from_holdout: np.ndarray


def thresholdout(
    correct_train: np.ndarray, correct_holdout: np.ndarray, params: ThresholdoutParams, rng: np.random.Generator
) -> np.ndarray:
    """Thresholdout (Dwork et al. 2015, Science, the algorithm box; CACM 2017 Fig. 1).

    T_hat = T + Lap(2 sigma). For each query phi: if the budget is spent, answer ``nan`` (the
    mechanism stops); else draw eta ~ Lap(4 sigma); if |E_h[phi] - E_t[phi]| > T_hat + eta, draw
    xi ~ Lap(sigma), answer E_h[phi] + xi, spend one unit of budget and redraw T_hat = T + Lap(2 sigma);
    otherwise answer E_t[phi]. With sigma = 0 it answers E_t when |E_h - E_t| <= T, else E_h.
    """
    acc_t, acc_h = trivial(correct_train), trivial(correct_holdout)
    return thresholdout_from_accuracies(acc_t, acc_h, params, rng).answers


def thresholdout_from_accuracies(
    acc_train: np.ndarray, acc_holdout: np.ndarray, params: ThresholdoutParams, rng: np.random.Generator
) -> ThresholdoutAnswers:
    """[`thresholdout`][holdout.adaptive.mechanisms.thresholdout] given each query's accuracies E_t on
    the training half and E_h on the holdout, with the queries it answered from the holdout."""
    acc_t, acc_h = np.asarray(acc_train, dtype=np.float64), np.asarray(acc_holdout, dtype=np.float64)
    if acc_t.shape != acc_h.shape:
        raise ValueError(f"train and holdout hold {acc_t.size} and {acc_h.size} queries")
    answers, from_holdout = np.full(acc_t.shape, np.nan), np.zeros(acc_t.shape, dtype=bool)
    budget = params.budget
    t_hat = params.threshold + _laplace(rng, 2 * params.sigma)
    for i, (e_t, e_h) in enumerate(zip(acc_t, acc_h, strict=True)):
        if budget is not None and budget < 1:
            break
        eta = _laplace(rng, 4 * params.sigma)
        if abs(e_h - e_t) > t_hat + eta:
            answers[i], from_holdout[i] = e_h + _laplace(rng, params.sigma), True
            budget = None if budget is None else budget - 1
            t_hat = params.threshold + _laplace(rng, 2 * params.sigma)
        else:
            answers[i] = e_t
    return ThresholdoutAnswers(answers, from_holdout)
