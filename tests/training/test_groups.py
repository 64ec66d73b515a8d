"""holdout.training.groups: the fused groups of a plan and their hours from measured throughput rows."""

from __future__ import annotations

import pandas as pd
import pytest

from holdout.training.augment import AugmentConfig
from holdout.training.cost import STARTUP_S
from holdout.training.groups import fused_gain, fusion_groups, group_lines
from holdout.training.models import ResNetPreactConfig
from holdout.training.optim import TrainConfig
from holdout.training.plan import JobSpec

A, B = ResNetPreactConfig(depth=20), ResNetPreactConfig(depth=20, remove_first_relu=True)


def _spec(study, job, model=A, **train):
    return JobSpec(study, job, model, TrainConfig(**train), 50_000, 10, (1, 1, 1, 1), "test")


SPECS = [
    *(_spec("search", f"m{i:03d}", base_lr=0.01 * (i + 1)) for i in range(5)),  # recipes differ: one key
    _spec("search", "m005", model=B),  # another network
    _spec("search", "m006", batch_size=64),  # another batch size
    _spec("search", "m007", augment=AugmentConfig(dual_cutout=True)),  # two views
    *(_spec("seeds", f"s{i:03d}") for i in range(3)),
    _spec("retraining", "r/standard"),  # never fused
]


def test_groups_share_network_batch_epochs_and_views_within_a_study():
    groups = fusion_groups(SPECS, 2)
    assert [(g.study, g.jobs) for g in groups] == [
        ("search", ("m000", "m001")),
        ("search", ("m002", "m003")),
        ("search", ("m004",)),
        ("search", ("m005",)),
        ("search", ("m006",)),
        ("search", ("m007",)),
        ("seeds", ("s000", "s001")),
        ("seeds", ("s002",)),
    ]
    with pytest.raises(ValueError, match="fused_members"):
        fusion_groups(SPECS, 0)


CELL = "ResNet-preact-20 (basic, 16 ch) | batch 128 | views 1 | 32 px"
ROWS = [
    {"cell": CELL, "mode": "eager", "members": 1, "images_per_s": 1000.0},
    {"cell": CELL, "mode": "graph", "members": 1, "images_per_s": 3000.0},
    {"cell": CELL, "mode": "fused", "members": 2, "images_per_s": 1500.0},
    {"cell": CELL, "mode": "fused", "members": 4, "images_per_s": 3000.0},
]


def test_fused_gain_takes_the_largest_measured_group_not_above_the_size():
    cal = {"throughput": ROWS}
    assert fused_gain(cal, 1) is None
    assert fused_gain(cal, 3) == (1.5, CELL, 2)
    assert fused_gain(cal, 16) == (3.0, CELL, 4)
    assert fused_gain({}, 4) is None and fused_gain(None, 4) is None


def test_group_lines_cost_each_group_at_its_measured_gain():
    """Seeds s000+s001 (gain 1.5 for 2 members) and s002 alone (1x): 1 h of steps each."""
    df = pd.DataFrame(
        {"study": ["seeds"] * 3, "job": ["s000", "s001", "s002"], "gpu_hours_calibrated": [1 + STARTUP_S / 3600] * 3}
    )
    specs = [s for s in SPECS if s.study == "seeds"]
    assert group_lines({"training": {"fused_members": 1}}, df, specs, {"throughput": ROWS}) == []
    (line,) = group_lines({"training": {"fused_members": 2}}, df, specs, {"throughput": ROWS})
    want = (2 * 3600 / 1.5 + STARTUP_S + 3600 + STARTUP_S) / 3600
    assert "seeds: 3 jobs in 2 groups of 1-2 members" in line and f"{want:,.1f} GPU-hours" in line
    (line,) = group_lines({"training": {"fused_members": 2}}, df, specs, {"cells": {}})
    assert "not calibrated" in line


def test_workflow_groups_of_the_search_are_the_plans():
    """The groups the workflow trains (holdout.training.search.fused_search_groups, read at parse time)
    are the groups holdout plan prints, for a small search."""
    from holdout.training.plan import _search_specs
    from holdout.training.search import fused_search_groups

    search = {"depth": 8, "depth_bottleneck": 11, "max_base_channels": 8, "epochs": 2, "reference_epochs": 200}
    search |= {"n_models": 40, "seed": 3, "train_subset_size": 512, "threads": 1, "mem_mb": 1, "runtime": 1}
    search |= {"num_checkpoints": 1, "scale": "test"}
    models = [f"m{i:03d}" for i in range(40)]
    workflow = fused_search_groups(search, models, 3)
    plan = [list(g.jobs) for g in fusion_groups(_search_specs({"search": search}), 3)]
    assert sorted(workflow) == sorted(plan)
    assert sorted(m for g in workflow for m in g) == models and max(map(len, workflow)) == 3
