"""The EvalPlus test-set sizes in the config, checked against the leaderboard's own numbers.

Every pass@1 in ``evalplus/results.json`` is a percentage of n problems, k / n * 100 for an integer
k, rounded to one decimal. For a wrong n only about a third of the values can be written that way
(one decimal against a grid of spacing 100 / n), so the size the values fit best is the true one.
"""

from __future__ import annotations

import json

import numpy as np
import pytest


def _fitting(values: np.ndarray, n: int) -> int:
    """How many percentages (one decimal) equal k / n * 100, rounded, for an integer k."""
    k = np.round(values * n / 100)
    return int((np.abs(k / n * 100 - values) <= 0.05 + 1e-9).sum())


def _size_from_data(values: np.ndarray, candidates: range = range(100, 500)) -> int:
    """The smallest n fitting the most values (a multiple of n fits as many: the smallest is taken)."""
    counts = [_fitting(values, n) for n in candidates]
    return candidates[int(np.argmax(counts))]


@pytest.mark.parametrize(
    ("pair", "keys"), [("evalplus_mbpp", ("mbpp", "mbpp+")), ("evalplus_humaneval", ("humaneval", "humaneval+"))]
)
def test_evalplus_sizes_match_the_pass_rates(shared_data, workflow_config, pair, keys):
    results = json.loads((shared_data / "evalplus/results.json").read_text())
    values = np.array([m["pass@1"][k] for m in results.values() for k in keys if m["pass@1"].get(k) is not None])
    n = _size_from_data(values)
    cfg = workflow_config["leaderboards"]["pairs"][pair]
    assert cfg["n_original"] == cfg["n_new"] == n
    assert _fitting(values, n) >= 0.9 * values.size  # a handful of entries are off (other versions / samplings)


def test_mbpp_plus_has_378_problems_not_399(shared_data):
    """MBPP+ v0.2 (378 problems) fits 168 of the 178 MBPP / MBPP+ values; v0.1's 399 fits 77, chance level."""
    results = json.loads((shared_data / "evalplus/results.json").read_text())
    values = np.array(
        [m["pass@1"][k] for m in results.values() for k in ("mbpp", "mbpp+") if m["pass@1"].get(k) is not None]
    )
    assert values.size == 178
    assert _fitting(values, 378) == 168 and _fitting(values, 399) == 77
