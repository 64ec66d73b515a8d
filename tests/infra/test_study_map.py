"""One name per study, written once: the study map of ``docs/architecture.md`` against the repository.

The map is a Markdown table (study -> rules file -> scripts -> library -> results -> tests ->
config key) under the heading "Study map". These tests parse it and check every layer: a rules
file, script, test folder or package that no row names, or a row whose name is not the one used
in every layer, fails here. The slow test checks the outputs of every job of the default offline
run (``snakemake -n``) against the results folders of its study's row.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from small_configs import read_yaml
from smk_rules import smk_rule_blocks

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "workflow" / "rules"
SCRIPTS = REPO / "workflow" / "scripts"

#: The studies (issue 22 §6); ``training`` is the shared infrastructure of search, seeds and predict.
STUDIES = (
    "data",
    "cifar10_1",
    "retraining",
    "imagenetv2",
    "similarity",
    "bounds",
    "rvw",
    "adversarial_synthetic",
    "adversarial_imagenet",
    "adversarial_cifar10",
    "search",
    "search_analysis",
    "seeds",
    "predict",
    "audit",
    "adaptive",
    "leaderboards",
    "contamination",
    "site",
)
SHARED = ("training",)
#: Packages of holdout that are no study's library (shared by several studies).
SHARED_PACKAGES = ("stats", "logs", "config", "commands", "items")


@dataclass(frozen=True)
class Row:
    name: str
    rules: str
    scripts: str
    library: tuple[str, ...]
    results: tuple[str, ...]
    tests: tuple[str, ...]
    config_key: str


def _ticks(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def parse_map(text: str) -> list[Row]:
    """The rows of the first table after the heading ``## Study map``."""
    section = text.split("## Study map", 1)
    assert len(section) == 2, "docs/architecture.md has no '## Study map' section"
    lines = [ln for ln in section[1].splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["study", "rules", "scripts", "library", "results", "tests", "config key"], header
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 7, f"study map row with {len(cells)} cells: {line}"
        (name,), (rules,), (scripts,), (key,) = (_ticks(cells[i]) for i in (0, 1, 2, 6))
        rows.append(Row(name, rules, scripts, *(tuple(_ticks(cells[i])) for i in (3, 4, 5)), key))
    return rows


def shared_test_folders(text: str) -> set[str]:
    """The folders named on the map's "Shared test folders" line(s)."""
    m = re.search(r"^Shared test folders.*?(?:\n\n|\Z)", text, re.MULTILINE | re.DOTALL)
    assert m, "docs/architecture.md does not list the shared test folders"
    return {t for t in _ticks(m.group(0)) if re.fullmatch(r"tests/\w+/", t)}


def rule_blocks(smk: Path) -> list[tuple[str, str]]:
    """(rule name, body) of every ``rule`` and ``use rule ... as <name> with`` in a rules file, at any
    indentation (rules inside ``if``; rules made in a loop by their ``name:`` without its fields)."""
    return smk_rule_blocks(smk.read_text())


def study_files(row: Row) -> list[Path]:
    helpers = RULES / f"{row.name}_helpers.smk"
    return [RULES / row.rules] + ([helpers] if helpers.exists() else [])


def under(path: str, folder: str) -> bool:
    """Whether ``path`` (wildcards ``{...}`` match any one segment) can lie under ``folder``."""
    p, f = path.split("/"), folder.rstrip("/").split("/")
    return len(p) > len(f) and all(a == b or re.fullmatch(r"\{+[^/]*\}+", a) for a, b in zip(p, f))


@pytest.fixture(scope="module")
def doc() -> str:
    return (REPO / "docs" / "architecture.md").read_text()


@pytest.fixture(scope="module")
def rows(doc) -> list[Row]:
    return parse_map(doc)


def test_map_has_one_row_per_study_in_the_snakefile_include_order(rows):
    names = [r.name for r in rows]
    assert sorted(names) == sorted(STUDIES + SHARED), names
    includes = re.findall(r'^include: "workflow/rules/(\w+\.smk)"', (REPO / "Snakefile").read_text(), re.M)
    assert includes == ["common.smk"] + [r.rules for r in rows], "Snakefile includes differ from the map's order"


def test_every_rules_file_has_a_row_named_like_it(rows):
    known = {"common.smk"}
    for r in rows:
        assert r.rules == f"{r.name}.smk", f"{r.name}: rules file {r.rules}"
        assert (RULES / r.rules).is_file(), r.rules
        helpers = RULES / f"{r.name}_helpers.smk"
        if helpers.exists():
            assert f'include: "{helpers.name}"' in (RULES / r.rules).read_text(), (
                f"{r.rules} does not include {helpers.name}"
            )
        known |= {p.name for p in study_files(r)}
    unmapped = sorted(p.name for p in RULES.glob("*.smk") if p.name not in known)
    assert not unmapped, f"rules files without a row in the study map of docs/architecture.md: {unmapped}"


def test_rules_logs_and_scripts_carry_the_study_name(rows):
    problems = []
    for r in rows:
        for smk in study_files(r):
            for name, body in rule_blocks(smk):
                if not name.startswith(f"{r.name}_"):
                    problems.append(f"{smk.name}: rule {name} does not start with {r.name}_")
                studies = set(re.findall(r'\b(?:log|bench)_path\(\s*"([^"]+)"', body))
                if studies != {r.name}:
                    problems.append(f"{smk.name}: rule {name} logs under {sorted(studies)}, not logs/{r.name}/")
                for script in re.findall(r'"\.\./scripts/([^"]+)"', body):
                    if not script.startswith(f"{r.name}_"):
                        problems.append(f"{smk.name}: rule {name} runs {script}, not a {r.name}_*.py script")
    assert not problems, "\n".join(problems)


def test_every_script_belongs_to_one_study(rows):
    for r in rows:
        assert r.scripts == f"{r.name}_*.py", f"{r.name}: scripts {r.scripts}"
    owner = {}
    for path in sorted(SCRIPTS.glob("*.py")):
        prefixes = [r.name for r in rows if path.name.startswith(f"{r.name}_")]
        assert prefixes, f"workflow/scripts/{path.name} belongs to no study of the map"
        owner[path.name] = max(prefixes, key=len)  # search_analysis_* is not search's
    empty = sorted({r.name for r in rows} - set(owner.values()))
    assert not empty, f"studies without a script: {empty}"


def test_library_modules_exist_and_every_package_is_mapped(rows):
    named = set()
    for r in rows:
        assert r.library, f"{r.name}: no library module"
        for module in r.library:
            assert module.startswith("holdout."), module
            assert importlib.util.find_spec(module) is not None, f"{r.name}: {module} not found"
            named.add(module.split(".")[1])
    packages = {p.name for p in (REPO / "src" / "holdout").iterdir() if (p / "__init__.py").is_file()}
    missing = sorted(packages - named - set(SHARED_PACKAGES))
    assert not missing, f"packages in no row of the study map: {missing}"


def test_results_folders_carry_the_study_name(rows):
    names = {r.name for r in rows}
    for r in rows:
        assert r.results, f"{r.name}: no results folder"
        for folder in r.results:
            assert folder.endswith("/") and folder.split("/")[0] in ("results", "resources"), folder
            if folder.startswith("results/"):
                owner = folder.split("/")[1]
                assert owner == r.name or (owner in names and folder.count("/") > 2), (
                    f"{r.name} writes to {folder}: name it results/{r.name}/"
                )


def _constants() -> dict[str, str]:
    """Module-level string constants of every rules file (``ADV_SYN_DIR = "results/..."``)."""
    out = {}
    for smk in RULES.glob("*.smk"):
        out.update(re.findall(r'^([A-Z][A-Z0-9_]*) = f?"([^"{]*)"\s*(?:#.*)?$', smk.read_text(), re.M))
    return out


def declared_outputs(body: str, constants: dict[str, str]) -> list[str]:
    """The path literals of a rule's ``output:`` block with the constants filled in."""
    m = re.search(r"^    output:\n((?:        .*\n|\s*\n)*)|^    output:( .*)\n", body, re.M)
    if not m:
        return []
    block = m.group(1) or m.group(2)
    paths = []
    for lit in re.findall(r'f?"([^"]*/[^"]*)"', block):
        for name, value in constants.items():
            lit = lit.replace("{" + name + "}", value)
        if not lit.startswith("../"):  # report captions
            paths.append(lit)
    for name in re.findall(r"^\s*(?:\w+=)?([A-Z][A-Z0-9_]*),?\s*$", block, re.M):
        paths.append(constants[name])
    return paths


def test_declared_outputs_lie_under_the_study_results_folders(rows):
    constants = _constants()
    problems, seen = [], 0
    for r in rows:
        for smk in study_files(r):
            for name, body in rule_blocks(smk):
                for path in declared_outputs(body, constants):
                    seen += 1
                    if not any(under(path, f) for f in r.results):
                        problems.append(f"{smk.name}: rule {name} writes {path}, outside {', '.join(r.results)}")
    assert not problems, "\n".join(problems)
    assert seen > 100, seen  # the parser sees the outputs


def test_under_matches_wildcards():
    assert under("results/{study}/predictions/{t}.npz", "results/search/predictions/")
    assert under("results/adversarial_synthetic/{case}/models.npz", "results/adversarial_synthetic/")
    assert not under("results/adversarial/synthetic/figure4.png", "results/adversarial_synthetic/")
    assert not under("results/search_analysis/table1.csv", "results/search/")


def test_tests_folders_exist_and_every_folder_is_mapped(rows, doc):
    shared = shared_test_folders(doc)
    own = set()
    for r in rows:
        assert r.tests, f"{r.name}: no tests folder"
        for folder in r.tests:
            assert (REPO / folder).is_dir(), f"{r.name}: {folder} does not exist"
            assert folder == f"tests/{r.name}/" or folder in shared, f"{r.name}: {folder} is neither its own nor shared"
            own.add(folder)
    folders = {
        f"tests/{p.name}/" for p in (REPO / "tests").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    }
    unmapped = sorted(folders - own - shared)
    assert not unmapped, f"test folders named in no row and not listed as shared: {unmapped}"
    assert shared <= folders, sorted(shared - folders)


def test_config_keys_are_in_the_schema_and_spell_the_study_name(rows):
    schema = read_yaml(REPO / "config" / "schema.yaml")
    for r in rows:
        assert r.config_key.replace(".", "_") == r.name, f"{r.name}: config key {r.config_key}"
        node = schema
        for part in r.config_key.split("."):
            assert part in node.get("properties", {}), f"{r.name}: config key {r.config_key} not in config/schema.yaml"
            node = node["properties"][part]


def test_parse_map_refuses_a_row_of_the_wrong_shape():
    header = "| study | rules | scripts | library | results | tests | config key |\n|---|\n"
    text = "## Study map\n\n" + header + "| `x` | `x.smk` |\n"
    with pytest.raises(AssertionError, match="2 cells"):
        parse_map(text)


def _jobs(stdout: str) -> list[tuple[str, list[str]]]:
    """(rule, outputs) of every job of a ``snakemake -n`` listing."""
    jobs = []
    for m in re.finditer(r"^(?:local)?rule (\w+):\n((?:    .*\n)*)", stdout, re.M):
        out = re.search(r"^    output: (.*)$", m.group(2), re.M)
        jobs.append((m.group(1), out.group(1).split(", ") if out else []))
    return jobs


@pytest.mark.slow  # starts Snakemake (a dry run)
def test_every_job_of_the_default_run_writes_under_its_study_folders(rows, tmp_path, shared_data):
    data = read_yaml(REPO / "config" / "offline.yaml")["data"]
    data["mirror"] = str(shared_data)
    mirror = tmp_path / "mirror.yaml"
    mirror.write_text(yaml.safe_dump({"data": data}))
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path / "work")]
    cmd += ["-n", "--cores", "1", "--nolock", "--configfile", str(REPO / "config/offline.yaml"), str(mirror)]
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    study_of = {name: r for r in rows for smk in study_files(r) for name, _ in rule_blocks(smk)}
    jobs = _jobs(proc.stdout)
    assert len(jobs) > 100, proc.stdout[-3000:]
    problems = []
    for rule, outputs in jobs:
        if rule == "all":
            continue
        r = study_of.get(rule) or next(v for k, v in study_of.items() if rule.startswith(k))  # group jobs
        problems += [f"{rule}: {p}" for p in outputs if not any(p.startswith(f) for f in r.results)]
    assert not problems, "\n".join(problems)
