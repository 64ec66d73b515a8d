"""Sizes that drive planning or memory are bounded in the schema (a huge value fails at start-up,
not after minutes of planning); the maxima are measured by benchmarks/bench_search_plan.py."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from small_configs import read_yaml

REPO = Path(__file__).resolve().parents[2]
SCHEMA = read_yaml(REPO / "config/schema.yaml")


def _errors(config: dict) -> list[str]:
    return [e.message for e in jsonschema.validators.validator_for(SCHEMA)(SCHEMA).iter_errors(config)]


@pytest.mark.parametrize(("section", "key", "largest"), [("search", "n_models", 1000), ("seeds", "n_models", 300)])
def test_model_counts_have_a_maximum(section, key, largest):
    assert not _errors({section: {key: largest}})
    assert any("1000000 is greater than the maximum" in e for e in _errors({section: {key: 1_000_000}}))


def test_paper_and_gpu_configs_stay_within_the_maxima():
    for name in ("paper.yaml", "gpu.yaml", "config.yaml", "offline.yaml"):
        assert not _errors(read_yaml(REPO / "config" / name) or {}), name
