"""The small test configs ``.test/config-<study>/config.yaml`` (the snakemake-workflows catalog
convention): static files a person can run by hand, loaded by the workflow tests, which overlay only
what exists at run time (temporary paths, generated stand-in data, the absolute mirror path).

Each file starts with a comment naming what it runs, the tests that use it, and the exact command to
run it by hand from the repository root (a ``#   snakemake ...`` line, continued with ``\\``); the
command runs in the file's own folder (``--directory .test/config-<study>``), so relative paths in the
file (``data.mirror: ../../../shared/data``) are relative to that folder. tests/test_small_configs.py
checks every file against config/schema.yaml and dry-runs each command.
"""

from __future__ import annotations

import copy
import shlex
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
TEST_CONFIGS = REPO / ".test"


def small_config_path(study: str) -> Path:
    """``.test/config-<study>/config.yaml`` (an error naming the path when it is missing)."""
    path = TEST_CONFIGS / f"config-{study}" / "config.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no small test config for study {study!r}: {path} does not exist")
    return path


def read_yaml(path: str | Path) -> Any:
    """``yaml.safe_load`` of a file with libyaml's parser where PyYAML has it (the same objects;
    config/schema.yaml, 85 kB, in a tenth of the pure-Python parser's time)."""
    return yaml.load(Path(path).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_small_config(study: str) -> dict[str, Any]:
    """The study's small config as a fresh dict (the caller may overlay run-time keys)."""
    return copy.deepcopy(read_yaml(small_config_path(study)))


def in_folder(study: str, relpath: str) -> str:
    """A path of the file, relative to its folder (the by-hand working directory), made absolute:
    what a test running in a temporary folder passes instead."""
    return str((small_config_path(study).parent / relpath).resolve())


def write_config(path: Path, cfg: dict[str, Any]) -> Path:
    """Write ``cfg`` as YAML to ``path`` (a test's layered config) and return the path."""
    path.write_text(yaml.safe_dump(cfg))
    return path


def by_hand_command(study: str) -> list[str]:
    """The ``snakemake ...`` command of the file's header comment, split into arguments."""
    lines = small_config_path(study).read_text().splitlines()
    header = [ln[1:].strip() for ln in lines if ln.startswith("#")]
    start = next((i for i, ln in enumerate(header) if ln.startswith("snakemake ")), None)
    if start is None:
        raise ValueError(f"{small_config_path(study)}: no '#   snakemake ...' command in the header comment")
    parts = []
    for ln in header[start:]:
        parts.append(ln.removesuffix("\\"))
        if not ln.endswith("\\"):
            break
    return shlex.split(" ".join(parts))


def command_configfiles(cmd: list[str]) -> list[Path]:
    """The files after ``--configfile`` in a by-hand command (relative to the repository root)."""
    i = cmd.index("--configfile")
    files = []
    for arg in cmd[i + 1 :]:
        if arg.startswith("-"):
            break
        files.append(REPO / arg)
    return files


def studies() -> list[str]:
    """Every study with a small config, by folder name."""
    return sorted(p.parent.name.removeprefix("config-") for p in TEST_CONFIGS.glob("config-*/config.yaml"))
