"""The paired comparison on LiveCodeBench's 45 x 400 pass@1 matrix (pass rates over 10 samples), from
the raw file in the data mirror (LiveCodeBench/livecodebench.github.io at 8ed5690,
src/mocks/performances_generation.json).

Source of the values: the referee report on the leaderboards study (2026-11-27, finding C1), which
recomputed them with numpy/scipy without this library: the best model GPT-4-Turbo-2024-04-09 beats
Claude-3-Opus by +8.2 points (p = 1.7e-5), GPT-4-0613 by +8.7 (p = 7e-8) and GPT-4-Turbo-1106 by +5.2
(p = 2.4e-4) in a paired t test over the same 400 problems, all significant after Bonferroni over 44,
while their 95% intervals overlap the best's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from holdout.leaderboards.sources import livecodebench
from holdout.stats import paired_comparisons
from holdout.stats.ranks import holm_vs_best


@pytest.fixture(scope="module")
def lcb(shared_data: Path):
    return livecodebench(shared_data / "livecodebench/src/mocks/performances_generation.json").correctness


def test_top_model_separated_from_the_three_the_interval_overlap_could_not(lcb) -> None:
    df = paired_comparisons(lcb.values, lcb.model_names)
    best = df[df["model_a"] == "GPT-4-Turbo-2024-04-09"]
    assert len(best) == 44 and (df["test"] == "paired t").all()
    got = best.set_index("model_b")
    for model, points, p, digits in (
        ("Claude-3-Opus", 8.2, 1.7e-5, 2),
        ("GPT-4-0613", 8.7, 7e-8, 1),
        ("GPT-4-Turbo-1106", 5.2, 2.4e-4, 2),
    ):
        assert abs(100 * got.loc[model, "diff"] - points) <= 0.05 + 1e-9  # printed to one decimal (8.15 -> 8.2)
        assert float(f"{got.loc[model, 'p_value']:.{digits - 1}e}") == p  # as printed, to its digits
        assert 44 * got.loc[model, "p_value"] < 0.05  # Bonferroni over the 44 comparisons with the best
    # Holm over the 44 paired tests against the best rejects every one (a confidence set for a unique
    # best; the simultaneous rank sets, which hold their level when models are tied, keep GPT-4-Turbo-1106 at 1-4)
    order = np.argsort(-lcb.values.mean(axis=1), kind="stable")
    assert lcb.model_names[order[0]] == "GPT-4-Turbo-2024-04-09"
    log_p = np.log(got.loc[[lcb.model_names[i] for i in order[1:]], "p_value"].to_numpy())
    assert holm_vs_best(log_p).sum() == 1
