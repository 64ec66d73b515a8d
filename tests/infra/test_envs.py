"""envs/*.yaml: valid conda environment files, consistent with pyproject.toml.

No conda channel is reachable from CI, so the environments are not solved here.
What is checked: the YAML structure conda expects, that every rule's ``conda:``
directive points at one of these files, that each runtime dependency of
pyproject.toml is in the environment with the same lower bound, and that the
versions the test suite runs on satisfy the environment's ranges (so the
environments pin what the tests exercise).
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ENVS = ("analysis", "torch")
# PyPI name -> conda-forge name, where they differ
CONDA_NAME = {"torch": "pytorch"}
# pyproject dependencies that are not part of a job's environment
HOST_ONLY = {"snakemake"}
# which dependencies belong in which environment
TORCH_ONLY = {"torch", "torchvision"}

SIMPLE = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+)\s*(?P<version>[<>=!~,.0-9*\s]*)$")
BRACKET = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+)\[(?P<body>.*)\]$")


def parse_spec(spec: str) -> tuple[str, SpecifierSet, str | None]:
    """Conda MatchSpec subset used in envs/: ``name>=a,<b`` or ``name[version='..', build='..']``."""
    m = SIMPLE.match(spec.strip())
    if m:
        version = m.group("version").replace(" ", "")
        if version and version[0].isdigit():  # conda's "python=3.11" / "numpy 2.1"
            version = "==" + version + ".*"
        elif version.startswith("=") and not version.startswith("=="):
            version = "=" + version + ".*"
        return m.group("name"), SpecifierSet(version), None
    m = BRACKET.match(spec.strip())
    if not m:
        raise ValueError(f"unsupported conda spec {spec!r}")
    fields = dict(re.findall(r"(\w+)\s*=\s*'([^']*)'", m.group("body")))
    unknown = set(fields) - {"version", "build"}
    if unknown or not fields:
        raise ValueError(f"unsupported keys {sorted(unknown)} in conda spec {spec!r}")
    return m.group("name"), SpecifierSet(fields.get("version", "")), fields.get("build")


def load_env(repo: Path, name: str) -> dict:
    path = repo / "envs" / f"{name}.yaml"
    env = yaml.safe_load(path.read_text())
    assert isinstance(env, dict), f"{path}: not a mapping"
    assert set(env) <= {"name", "channels", "dependencies"}, f"{path}: unknown keys {set(env)}"
    assert isinstance(env.get("channels"), list) and env["channels"], f"{path}: no channels"
    assert "defaults" not in env["channels"], f"{path}: 'defaults' channel (licence, mixing)"
    deps = env.get("dependencies")
    assert isinstance(deps, list) and deps, f"{path}: no dependencies"
    assert all(isinstance(d, str) for d in deps), f"{path}: only conda specs expected (no pip)"
    return env


def env_specs(repo: Path, name: str) -> dict[str, tuple[SpecifierSet, str | None]]:
    out = {}
    for dep in load_env(repo, name)["dependencies"]:
        pkg, spec, build = parse_spec(dep)
        assert pkg not in out, f"envs/{name}.yaml: {pkg} listed twice"
        out[pkg] = (spec, build)
    return out


def pyproject_deps(repo: Path) -> list[Requirement]:
    data = tomllib.loads((repo / "pyproject.toml").read_text())
    project = data["project"]
    # the `train` extra (torch, torchvision) is what the torch environment adds
    reqs = project["dependencies"] + project["optional-dependencies"]["train"]
    return [Requirement(r) for r in reqs]


def lower_bound(spec: SpecifierSet) -> Version | None:
    bounds = [Version(s.version) for s in spec if s.operator in (">=", "==")]
    return max(bounds) if bounds else None


def test_spec_parser():
    assert parse_spec("numpy>=2,<3")[:2] == ("numpy", SpecifierSet(">=2,<3"))
    name, spec, build = parse_spec("pytorch[version='>=2.5,<3', build='cuda*']")
    assert (name, build) == ("pytorch", "cuda*") and Version("2.6") in spec
    assert Version("3.0") not in spec
    with pytest.raises(ValueError):
        parse_spec("pytorch[channel='x']")


@pytest.mark.parametrize("env", ENVS)
def test_env_matches_pyproject_and_tested_versions(repo, env):
    specs = env_specs(repo, env)
    for req in pyproject_deps(repo):
        if req.name in HOST_ONLY or (env != "torch" and req.name in TORCH_ONLY):
            continue
        conda = CONDA_NAME.get(req.name, req.name)
        assert conda in specs, f"envs/{env}.yaml lacks {conda} (pyproject: {req})"
        spec, _ = specs[conda]
        assert lower_bound(spec) is not None, f"envs/{env}.yaml: {conda} has no lower bound"
        if lower_bound(req.specifier) is not None:
            assert lower_bound(spec) == lower_bound(req.specifier), (
                f"envs/{env}.yaml: {conda}{spec} but pyproject.toml says {req}"
            )
        tested = Version(metadata.version(req.name))
        assert tested in spec, f"envs/{env}.yaml: {conda}{spec} excludes {tested}, the version the tests run on"
    if env != "torch":
        assert not set(specs) & {"pytorch", "torchvision"}, "torch belongs in envs/torch.yaml"
    py = Version(".".join(map(str, sys.version_info[:3])))
    assert py in specs["python"][0], f"envs/{env}.yaml excludes Python {py}"


def test_torch_env_is_the_cuda_build(repo):
    specs = env_specs(repo, "torch")
    assert specs["pytorch"][1] == "cuda*" and specs["torchvision"][1] == "cuda*"


def test_every_rule_uses_one_of_the_envs(repo):
    files = sorted((repo / "workflow" / "rules").glob("*.smk"))
    for smk in files:
        text = smk.read_text()
        for m in re.finditer(r'^\s*conda:\s*\n?\s*"([^"]+)"', text, flags=re.M):
            target = (smk.parent / m.group(1)).resolve()
            assert target.parent == (repo / "envs").resolve() and target.stem in ENVS, (
                f"{smk.name}: conda: {m.group(1)} is not one of envs/{{{','.join(ENVS)}}}.yaml"
            )
        n_conda = len(re.findall(r"^\s+conda:", text, flags=re.M))
        n_rules = len(re.findall(r"^\s*rule(?: \w+)?:", text, flags=re.M))  # named, or in a loop (name:)
        assert n_conda == n_rules, f"{smk.name}: {n_rules} rules but {n_conda} conda: directives"
