"""Parsing the workflow is light (issue 21): no torch, scipy or matplotlib at parse time, and the
Snakefile parses and its analysis rules run in an install without torch.

``snakemake -n`` runs in a subprocess through :data:`WRAPPER`, which calls Snakemake's ``main``
and then prints which heavy packages ended up in ``sys.modules``. A torch-free install is
emulated with :mod:`torch_blocker`'s ``sitecustomize.py`` first on PYTHONPATH: every Python
process started under it (Snakemake and its ``script:`` jobs) fails to import torch.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from torch_blocker import BLOCK_TORCH, blocking_pythonpath

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "torchvision", "scipy", "matplotlib")

WRAPPER = f"""
import sys
from snakemake.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)
try:
    import torch  # noqa: F401
    importable = True
except ModuleNotFoundError:
    importable = False
print("HEAVY:" + ",".join(heavy) + " TORCH_IMPORTABLE:" + str(importable), file=sys.stderr)
sys.exit(code)
"""


def _heavy_line(stderr: str) -> tuple[list[str], bool]:
    m = re.search(r"^HEAVY:(\S*) TORCH_IMPORTABLE:(True|False)$", stderr, re.MULTILINE)
    assert m, stderr[-3000:]
    return [h for h in m.group(1).split(",") if h], m.group(2) == "True"


def _mirror_config(tmp_path: Path, shared_data: Path) -> Path:
    """config/offline.yaml's data section with the mirror as an absolute path (the runs' working
    directory is ``tmp_path``, not the repository)."""
    data = yaml.safe_load((REPO / "config/offline.yaml").read_text())["data"]
    data["mirror"] = str(shared_data)
    path = tmp_path / "mirror.yaml"
    path.write_text(yaml.safe_dump({"data": data}))
    return path


def _snakemake(
    work: Path, configfiles: list[Path], *targets: str, dry_run: bool = False, pythonpath: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = pythonpath or str(REPO / "src")
    env.setdefault("MPLBACKEND", "Agg")
    cmd = [sys.executable, "-c", WRAPPER, "-s", str(REPO / "Snakefile"), "-d", str(work), "--cores", "2"]
    cmd += ["--nolock", *(["-n"] if dry_run else []), "--configfile", *map(str, configfiles), "--", *targets]
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_rule_helpers_import_nothing_heavy():
    """Every holdout module that workflow/rules/*.smk imports loads without torch, scipy or
    matplotlib (the fast-loop guard of the Snakemake test below)."""
    modules = set()
    for smk in sorted((REPO / "workflow/rules").glob("*.smk")):
        # an import marked "only when <config key>" runs only under a non-default config
        lines = [x for x in smk.read_text().splitlines() if "# only when " not in x]
        modules |= set(re.findall(r"^\s*(?:from|import) (holdout[\w.]*)", "\n".join(lines), re.MULTILINE))
    assert "holdout.training.naming" in modules and "holdout.config" in modules, modules
    code = f"import sys\nfor m in {sorted(modules)!r}: __import__(m)\n"
    code += f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"heavy packages imported by the rule helpers: {proc.stdout}"


def test_training_names_importable_from_old_places_without_torch():
    """holdout.training's public names load on first use: the light names do not import torch,
    the old import paths still give the same functions."""
    code = BLOCK_TORCH + (
        "import sys\n"
        "from holdout.training import checkpoint_paths\n"
        "from holdout.training.naming import search_model_name, seed_model_name\n"
        "assert [p.name for p in checkpoint_paths('d', 3)] == ['checkpoint_01.pt', 'checkpoint_02.pt', "
        "'checkpoint_03.pt']\n"
        "assert search_model_name(7) == 'm007' and seed_model_name(3) == 'seed003'\n"
        "assert 'torch' not in sys.modules\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


@pytest.mark.slow  # starts Snakemake
def test_dry_run_of_offline_config_imports_no_torch(tmp_path, shared_data):
    """``snakemake -n`` on config/offline.yaml (every study on) parses and builds the DAG without
    importing torch, scipy or matplotlib."""
    proc = _snakemake(tmp_path, [REPO / "config/offline.yaml", _mirror_config(tmp_path, shared_data)], dry_run=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    heavy, importable = _heavy_line(proc.stderr)
    assert heavy == [], f"imported at parse time: {heavy}"
    assert importable  # torch is installed here: it is just not imported
    assert re.search(r"^search_train\s+\d+$", proc.stdout, re.MULTILINE), proc.stdout[-3000:]


@pytest.mark.slow  # starts Snakemake
def test_dry_run_without_torch_installed(tmp_path, shared_data):
    """With torch not importable and config/no_torch.yaml, the Snakefile parses and plans the
    analysis studies, and no torch-needing job."""
    pythonpath = blocking_pythonpath(tmp_path / "blocker", REPO / "src")
    configs = [REPO / "config/offline.yaml", REPO / "config/no_torch.yaml", _mirror_config(tmp_path, shared_data)]
    proc = _snakemake(tmp_path, configs, dry_run=True, pythonpath=pythonpath)
    assert proc.returncode == 0, proc.stderr[-3000:]
    heavy, importable = _heavy_line(proc.stderr)
    assert not importable and "torch" not in heavy
    jobs = dict(re.findall(r"^([a-z0-9_]+)\s+(\d+)$", proc.stdout, re.MULTILINE))
    for rule in ("bounds_table1", "rvw_table", "similarity_table1", "cifar10_1_tables_1_4", "imagenetv2_tables"):
        assert rule in jobs, (rule, sorted(jobs))
    for rule in ("search_train", "seeds_train", "predict_model", "retraining_train", "adversarial_cifar10_attacks"):
        assert rule not in jobs, (rule, sorted(jobs))


@pytest.mark.slow  # starts Snakemake and runs two jobs
def test_analysis_study_runs_without_torch(tmp_path, shared_data):
    """The rvw study really runs (its scripts included) in a process tree where torch cannot be
    imported, and writes Arora & Zhang's Table 1."""
    pythonpath = blocking_pythonpath(tmp_path / "blocker", REPO / "src")
    configs = [REPO / "config/offline.yaml", REPO / "config/no_torch.yaml", _mirror_config(tmp_path, shared_data)]
    proc = _snakemake(tmp_path, configs, "results/rvw/table1.csv", "results/bounds/table1.csv", pythonpath=pythonpath)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not _heavy_line(proc.stderr)[1]
    table = (tmp_path / "results/rvw/table1.csv").read_text()
    assert "ResNet-152" in table and "DenseNet-264" in table
    assert (tmp_path / "results/bounds/table1.md").read_text().count("|") > 10
