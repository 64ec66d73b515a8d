"""Config keys of the leaderboards and retraining studies checked at start-up with the key named:
a misspelt timm set (which would silently leave the whole leaderboards study out), a LiveCodeBench
split that is not YYYY-MM-DD, the published recipes on 2,000 images under the CPU run's note, and the
schema's ranges of audit.rvw_C and adaptive.seed."""

from __future__ import annotations

import re

import pytest
from conftest import load_workflow_config
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from holdout.config import ConfigError, check_leaderboards, check_retraining, check_startup


@pytest.mark.parametrize("files", [(), ("config/offline.yaml",), ("config/gpu.yaml",), ("config/paper.yaml",)])
def test_shipped_configs_pass(files):
    cfg = load_workflow_config(*files)
    check_leaderboards(cfg)
    check_retraining(cfg)


def test_misspelt_timm_set_is_named():
    cfg = load_workflow_config()
    cfg["leaderboards"]["pairs"]["timm_sketch"]["new"] = "skecth"
    with pytest.raises(ConfigError, match=re.escape("leaderboards.pairs.timm_sketch.new: 'skecth' is not a timm")):
        check_leaderboards(cfg)


@pytest.mark.parametrize(("key", "value"), [("split", "30/08/2023"), ("split", "2023"), ("placebo_splits", ["today"])])
def test_livecodebench_split_dates(key, value):
    cfg = load_workflow_config()
    cfg["leaderboards"]["livecodebench"][key] = value
    with pytest.raises(ConfigError, match=rf"leaderboards\.livecodebench\.{key}.*is not a date written YYYY-MM-DD"):
        check_leaderboards(cfg)


def test_paper_recipes_need_the_full_training_set():
    cfg = load_workflow_config()  # the default run: train_per_class 200 and the CPU note
    cfg["retraining"]["scale"] = "paper"
    with pytest.raises(ConfigError, match="retraining.train_per_class is 200 .*set retraining.train_per_class: null"):
        check_retraining(cfg)
    cfg["retraining"]["train_per_class"] = None
    with pytest.raises(ConfigError, match="retraining.notes: still the CPU run's note"):
        check_retraining(cfg)


def test_check_startup_runs_them(tmp_path):
    cfg = load_workflow_config()
    cfg["retraining"]["scale"] = "paper"
    with pytest.raises(ConfigError, match="retraining.scale: paper"):
        check_startup(cfg, workdir=tmp_path)


@pytest.mark.parametrize(("section", "key", "value"), [("audit", "rvw_C", 0.5), ("adaptive", "seed", -1)])
def test_schema_ranges(repo, section, key, value):
    cfg = load_workflow_config()
    cfg[section][key] = value
    with pytest.raises(WorkflowError):
        validate(cfg, str(repo / "config/schema.yaml"))
