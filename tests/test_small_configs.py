"""The small test configs (.test/config-<study>/config.yaml, see tests/small_configs.py): each one,
layered as its by-hand command layers it, is valid against config/schema.yaml, its header says what
it runs and how, and (slow) the by-hand command plans with ``snakemake -n``."""

from __future__ import annotations

import subprocess
import sys

import pytest
from small_configs import (
    REPO,
    by_hand_command,
    command_configfiles,
    read_yaml,
    small_config_path,
    studies,
    write_config,
)
from snakemake.utils import update_config, validate
from snakemake_runner import run_command

STUDIES = studies()


def test_small_configs_exist_and_are_tracked():
    assert len(STUDIES) >= 10, STUDIES
    tracked = subprocess.run(
        ["git", "ls-files", ".test"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    for study in STUDIES:
        assert f".test/config-{study}/config.yaml" in tracked, f"{study}: not tracked by git (benchmarks copy ls-files)"


@pytest.mark.parametrize("study", STUDIES)
def test_small_config_layered_is_valid(study):
    """config/config.yaml, then the command's --configfile files in order (Snakemake's merge), then
    the schema (with its defaults)."""
    cmd = by_hand_command(study)
    assert cmd[0] == "snakemake" and cmd[cmd.index("--directory") + 1] == f".test/config-{study}"
    files = command_configfiles(cmd)
    assert files[-1] == small_config_path(study), "the study's file comes last (it overrides)"
    cfg = read_yaml(REPO / "config/config.yaml")
    for path in files:
        update_config(cfg, read_yaml(path))
    validate(cfg, str(REPO / "config/schema.yaml"), set_default=True)
    header = small_config_path(study).read_text().split("\n\n")[0]
    assert "Used by tests/" in header and "CPU-" in header, f"{study}: header must name its tests and the cost"
    for test in {w.split("::")[0].rstrip(",;") for w in header.split() if w.startswith("tests/")}:
        assert (REPO / test).exists(), f"{study}: header names {test}, which does not exist"


@pytest.mark.slow  # one Snakemake dry run per config (~2 s each)
@pytest.mark.parametrize("study", STUDIES)
def test_small_config_command_plans(study, tmp_path, shared_data):
    """The header's command with -n, from the repository root. Where the file's relative mirror is
    not the test mirror (HOLDOUT_SHARED_DATA elsewhere), the absolute one is layered last."""
    cmd = by_hand_command(study)
    files = command_configfiles(cmd)
    cfg: dict = {}
    for path in files:
        update_config(cfg, read_yaml(path))
    args = cmd[1:]
    overlay = _runtime_overlay(study, cfg, tmp_path, shared_data)
    if overlay:
        at = args.index("--configfile") + 1 + len(files)
        args = [*args[:at], str(write_config(tmp_path / "overlay.yaml", overlay)), *args[at:]]
    if "-n" not in args:
        args = ["-n", *args]
    run_command([sys.executable, "-m", "snakemake", "--nolock", *args], REPO)


def _runtime_overlay(study: str, cfg: dict, tmp_path, shared_data) -> dict:
    """What the dry run layers last, as the tests do: the test mirror where the file's relative one
    is not it (HOLDOUT_SHARED_DATA elsewhere), and (empty) ImageFolder roots where the file names
    folders a person links in by hand."""
    folder = small_config_path(study).parent
    overlay: dict = {}
    mirror = cfg.get("data", {}).get("mirror")
    if mirror and (folder / mirror).resolve() != shared_data:
        overlay["data"] = {"mirror": str(shared_data)}
    for key in ("val_dir", "train_dir"):
        path = cfg.get("adversarial_imagenet", {}).get(key)
        if path and not (folder / path).is_dir():
            (tmp_path / key).mkdir()
            overlay.setdefault("adversarial_imagenet", {})[key] = str(tmp_path / key)
    return overlay
