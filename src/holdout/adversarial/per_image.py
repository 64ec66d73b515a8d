"""The per-image table of a translation attack and the tests on it, shared by the ImageNet and the
CIFAR-10 studies (Werpachowski et al. 2019, Sec. 3 and 5.2) and the audit.

A [`TranslationAttackResult`][holdout.adversarial.translation_set.TranslationAttackResult] becomes
one row per image ([`result_frame`][holdout.adversarial.per_image.result_frame]); on such a table,
[`figure5_table`][holdout.adversarial.per_image.figure5_table] runs the pairwise test (6)-(7) and
the interval test of Sec. 3.1 per attack and sample size (Figure 5). The sub-samples are the
prefixes of one seeded random permutation of the images (each prefix is a uniform sample without
replacement, as in the paper).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from holdout.adversarial.stats import interval_test, pairwise_test, t_statistic
from holdout.adversarial.translation_set import ATTACKS, DETERMINISTIC_ATTACKS, TranslationAttackResult

__all__ = [
    "attack_columns",
    "attack_range",
    "figure5_table",
    "per_image_tests",
    "result_frame",
    "sample_indices",
]


def sample_indices(n: int, size: int | None, seed: int) -> np.ndarray:
    """A uniform sample without replacement of ``size`` of ``range(n)`` (sorted);
    everything when ``size`` is None or >= n."""
    if size is None or size >= n:
        return np.arange(n, dtype=np.int64)
    if size < 1:
        raise ValueError(f"sample size must be >= 1, got {size}")
    rng = np.random.default_rng([int(seed), 0x5A])
    return np.sort(rng.choice(n, size=int(size), replace=False)).astype(np.int64)


def result_frame(result: TranslationAttackResult, paths: Sequence[str]) -> pd.DataFrame:
    """Per-image table: index, path, label, loss, forward passes, and per attack
    ``<a>_adv_loss``, ``<a>_density`` (NaN where unused), ``<a>_n``, ``<a>_v_row``, ``<a>_v_col``."""
    df = pd.DataFrame(
        {
            "index": result.indices,
            "path": list(paths),
            "label": result.labels,
            "loss": result.losses,
            "forward_passes": result.forward_passes,
        }
    )
    for a, o in result.outcomes.items():
        df[f"{a}_adv_loss"] = o.adv_losses
        df[f"{a}_density"] = o.densities
        df[f"{a}_n"] = o.n_neighbours
        df[f"{a}_v_row"] = o.offsets[:, 0]
        df[f"{a}_v_col"] = o.offsets[:, 1]
    return df


def attack_range(attack: str) -> tuple[float, tuple[float, float] | None]:
    """(U, claimed range of T_i) for the pairwise test (6).

    Deterministic translational AEGs have h_g <= 1/2 at successful points, so
    T_i in [-1, 1/2] and U = 3/2 (Sec. 5.1, used in the paper's experiments). The
    random baselines can have h_g up to |V| / (|V| + 1) there, so they get U = 2.
    """
    if attack in DETERMINISTIC_ATTACKS:
        return 1.5, (-1.0, 0.5)
    return 2.0, (-1.0, 1.0)


def attack_columns(df: pd.DataFrame) -> list[str]:
    """The attacks with columns in the per-image table ``df``, in the order of ``ATTACKS``
    ([`translation_set`][holdout.adversarial.translation_set])."""
    return [a for a in ATTACKS if f"{a}_adv_loss" in df.columns]


def per_image_tests(df: pd.DataFrame, attack: str, confidence_delta: float) -> dict[str, float]:
    """The pairwise test (6)-(7) with the range of [`attack_range`][holdout.adversarial.per_image.attack_range]
    and the interval test of Sec. 3.1 (R_S, R_g with (1 - ``confidence_delta``) intervals) of
    ``attack`` on the per-image table ``df``: one row of the Figure 5 and summary tables."""
    losses = df["loss"].to_numpy(float)
    adv = df[f"{attack}_adv_loss"].to_numpy(float)
    dens = df[f"{attack}_density"].to_numpy(float)
    U, rng = attack_range(attack)
    t = t_statistic(losses, adv, dens)
    pt = pairwise_test(t, U, expected_range=rng)
    it = interval_test(losses, adv, dens, confidence_delta=confidence_delta)
    return {
        "statistic": pt.statistic,
        "variance": pt.variance,
        "U": U,
        "p_value": pt.p_value,
        "log_p_value": pt.log_p_value,
        "R_S": it.test_error,
        "R_S_lo": it.test_error - it.bound_test,
        "R_S_hi": it.test_error + it.bound_test,
        "R_g": it.adversarial_risk,
        "R_g_lo": it.adversarial_risk - it.bound_adversarial,
        "R_g_hi": it.adversarial_risk + it.bound_adversarial,
        "interval_p_value": it.p_value,
        "intervals_disjoint": bool(it.disjoint),
    }


def figure5_table(
    df: pd.DataFrame,
    sample_sizes: Sequence[int],
    *,
    seed: int,
    confidence_delta: float = 0.025,
) -> pd.DataFrame:
    """Figure 5 data: per attack and sample size m, the pairwise test on the first m
    images of a seeded permutation, and R_S, R_g with (1 - delta) intervals (3)-(4).

    Sizes above the number of images are dropped; the full sample is always the
    last size.
    """
    n = len(df)
    sizes = sorted({int(s) for s in sample_sizes if 1 <= int(s) < n} | {n})
    perm = np.random.default_rng([int(seed), 0xF5]).permutation(n)
    rows = []
    for m in sizes:
        sub = df.iloc[perm[:m]]
        for a in attack_columns(df):
            rows.append({"attack": a, "sample_size": m, **per_image_tests(sub, a, confidence_delta)})
    return pd.DataFrame(rows)
