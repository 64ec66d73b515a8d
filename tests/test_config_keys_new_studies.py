"""Config keys of the leaderboards and retraining studies checked at start-up with the key named:
a misspelt timm set (which would silently leave the whole leaderboards study out), a LiveCodeBench
split that is not YYYY-MM-DD, the published recipes on 2,000 images under the CPU run's note, and the
schema's ranges of audit.rvw_C and adaptive.seed."""

from __future__ import annotations

import copy
import functools
import re

import pytest
from conftest import load_workflow_config
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from holdout.config import (
    ConfigError,
    check_adaptive,
    check_leaderboard_files,
    check_leaderboards,
    check_retraining,
    check_startup,
    load_config_file,
    schema_error,
)


@functools.cache
def _default_config() -> dict:
    return load_workflow_config()  # the schema's validation takes a few tenths of a second: once


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


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("audit", "rvw_C", 0.5, "audit.rvw_C: 0.5 is less than the minimum of 1"),
        ("adaptive", "seed", -1, "adaptive.seed: -1 is less than the minimum of 0"),
        (
            "data",
            "user_predictions",
            [{"name": "x", "predictions": 3, "labels": "y"}],
            r"data.user_predictions\[0\].predictions",
        ),
    ],
)
def test_schema_ranges(repo, section, key, value, message):
    """The workflow's start-up (common.smk) turns the schema's refusal into one line naming the key
    (it printed the whole schema)."""
    cfg = copy.deepcopy(_default_config())
    cfg[section][key] = value
    with pytest.raises(WorkflowError) as err:
        validate(cfg, str(repo / "config/schema.yaml"))
    line = str(schema_error(err.value))
    assert re.match(rf"config key {message}.* \(see config/schema.yaml\)$", line) and "\n" not in line
    assert "schema_error(exc)" in (repo / "workflow/rules/common.smk").read_text()


# --- keys that name parts of the leaderboard files, checked against the files at start-up ----------


@pytest.fixture
def mirrored(shared_data):
    """The default config with data.mirror set (the leaderboard files are then here at start-up)."""
    cfg = copy.deepcopy(_default_config())
    cfg["data"]["mirror"] = str(shared_data)
    return cfg


def test_shipped_keys_match_the_files(mirrored):
    check_leaderboard_files(mirrored)


@pytest.mark.parametrize(
    ("pair", "side", "value", "message"),
    [
        ("testbed_top_images", "new", "imagenetv2-topimage", "is not a column of .*robustness_top1s.csv; did you mean"),
        ("evalplus_mbpp", "new", "mbpp_plus", r"is not a pass@1 key of .*results.json.*\(humaneval, humaneval\+"),
        ("evalplus_humaneval", "original", "HumanEval", "is not a pass@1 key"),
    ],
)
def test_misspelt_testbed_column_or_evalplus_key(mirrored, pair, side, value, message):
    mirrored["leaderboards"]["pairs"][pair][side] = value
    with pytest.raises(ConfigError, match=rf"^leaderboards\.pairs\.{pair}\.{side}: '{re.escape(value)}' {message}"):
        check_leaderboards(mirrored)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("split", "2024-06-01", r"split: 2024-06-01 leaves no item on or after it .* 2023-05-08 to 2024-03-03"),
        ("split", "2023-05-08", r"split: 2023-05-08 leaves no item before it"),
        ("placebo_splits", ["2023-07-01", "2023-05-01"], r"placebo_splits\[1\]: 2023-05-01 leaves no item on one"),
        ("line_models", ["GPT-4-613"], r"line_models: 'GPT-4-613' is not a model of .*did you mean 'GPT-4-0613'"),
        ("families", {"x": ["DSCoder-33b"]}, r"families\.x: 'DSCoder-33b' is not a model of"),
    ],
)
def test_livecodebench_keys_against_the_file(mirrored, key, value, message):
    mirrored["leaderboards"]["livecodebench"][key] = value
    with pytest.raises(ConfigError, match=rf"^leaderboards\.livecodebench\.{message}"):
        check_leaderboards(mirrored)


def test_files_not_yet_fetched_are_left_to_the_job(tmp_path):
    cfg = copy.deepcopy(_default_config())  # no data.mirror, nothing fetched under tmp_path
    cfg["leaderboards"]["livecodebench"]["split"] = "2030-01-01"
    check_leaderboards(cfg, tmp_path)
    cfg["leaderboards"]["enabled"] = False  # nor read when the study is off
    cfg["data"]["mirror"] = str(tmp_path)
    check_leaderboards(cfg, tmp_path)


def test_check_startup_reads_the_mirror(mirrored, tmp_path):
    mirrored["leaderboards"]["livecodebench"]["split"] = "2024-06-01"
    with pytest.raises(ConfigError, match="leaderboards.livecodebench.split"):
        check_startup(mirrored, workdir=tmp_path)


# --- adaptive on a user's set: the models its attacks need, from the file's header ----------------


def _with_user_sets(repo, **adaptive):
    cfg = copy.deepcopy(_default_config())
    cfg["data"]["user_predictions"] = load_config_file(repo / "config/examples/user_models.yaml")["data"][
        "user_predictions"
    ]
    cfg["adaptive"].update(adaptive)
    return cfg


@pytest.mark.parametrize("name", ["user_example_csv", "user_example_npy"])
def test_adaptive_ensembles_larger_than_a_user_set_refused(repo, name):
    """Was: 'subset size must lie in [1, 3], got 5' from the job, without the key."""
    cfg = _with_user_sets(repo, sets=[name])
    with pytest.raises(ConfigError, match=rf"^adaptive.subset_size: 5 models per random ensemble, but {name} has 3 "):
        check_adaptive(cfg, repo)
    cfg["adaptive"]["subset_size"] = 3
    check_adaptive(cfg, repo)
    cfg["adaptive"]["attacks"] = ["boosting", "selection"]
    cfg["adaptive"]["subset_size"] = 5
    check_adaptive(cfg, repo)


def test_adaptive_base_model_and_exclusions_checked_on_user_sets(repo):
    cfg = _with_user_sets(repo, sets=["user_example_npy"], subset_size=2, base_model="my_resnet_tunde")
    with pytest.raises(ConfigError, match="adaptive.base_model: 'my_resnet_tunde' is not a model of user_example_npy"):
        check_adaptive(cfg, repo)
    cfg["adaptive"]["base_model"] = None
    cfg["adaptive"]["exclude_models"] = ["my_resnet", "my_resnet_tuned", "my_small_cnn"]
    with pytest.raises(ConfigError, match="adaptive.exclude_models: leaves none of the 3 models of user_example_npy"):
        check_adaptive(cfg, repo)
    cfg["adaptive"]["enabled"] = False
    check_adaptive(cfg, repo)


def test_evalplus_size_the_values_do_not_fit_is_named(mirrored):
    """Was: a wrong n_new left most models out as 'another version of the set', without a word."""
    mirrored["leaderboards"]["pairs"]["evalplus_mbpp"]["n_new"] = 100
    with pytest.raises(ConfigError, match=r"^leaderboards\.pairs\.evalplus_mbpp\.n_new: 100 problems, but only 9 of"):
        check_leaderboards(mirrored)


def test_the_jobs_check_the_keys_against_files_they_download(repo):
    """Without data.mirror the files arrive in the run: the jobs run the same checks."""
    scripts = repo / "workflow/scripts"
    assert "check_leaderboard_pair(name, pair" in (scripts / "leaderboards_fits.py").read_text()
    assert "check_livecodebench_keys(keys" in (scripts / "leaderboards_livecodebench.py").read_text()
