"""holdout.config: the start-up checks that span several keys, the config files' YAML, data.mirror
and the output folders (issue 12 part 2), and the documented commands that pass config files."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from small_configs import read_yaml

from holdout import config as C

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def default_config():
    """config/config.yaml with the schema's defaults, as the workflow sees it."""
    from snakemake.utils import validate

    cfg = read_yaml(REPO / "config" / "config.yaml")
    validate(cfg, str(REPO / "config" / "schema.yaml"))
    return cfg


@pytest.fixture
def cfg(default_config):
    return copy.deepcopy(default_config)


def test_default_and_offline_configs_pass(cfg, tmp_path):
    C.check_startup(cfg, configfiles=[REPO / "config/config.yaml", REPO / "config/offline.yaml"], workdir=tmp_path)


# ---------------------------------------------------------------------------
# config files
# ---------------------------------------------------------------------------


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("bounds:\n  eps: [0.1\n  delta: 0.05\n")
    with pytest.raises(C.ConfigError, match=rf"{re.escape(str(bad))}, line 3, column 8: .*expected ',' or ']'"):
        C.check_config_files([bad])


def test_duplicate_key_names_file_and_both_lines(tmp_path):
    """PyYAML keeps the last of two equal keys without a word."""
    dup = tmp_path / "dup.yaml"
    dup.write_text("bounds:\n  eps: 0.02\n  delta: 0.05\n  eps: 0.03\n")
    with pytest.raises(C.ConfigError, match=r"dup\.yaml, line 4, column 3: key 'eps' appears twice .*first on line 2"):
        C.check_config_files([dup])


def test_config_file_must_be_a_mapping(tmp_path):
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(C.ConfigError, match=r"list\.yaml: a config file must be a mapping"):
        C.check_config_files([tmp_path / "list.yaml"])


def test_check_command_prints_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("data:\n\tmirror: x\n")  # a tab: the classic
    proc = subprocess.run(
        [sys.executable, "-m", "holdout.config", str(bad)],
        check=False,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
    )
    assert proc.returncode == 1
    assert f"{bad}, line 2, column 1" in proc.stderr


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def test_missing_mirror_folder_is_one_clear_error(cfg, tmp_path):
    cfg["data"]["mirror"] = "no/such/mirror"
    with pytest.raises(
        C.ConfigError, match=rf"^data.mirror: folder {re.escape(str(tmp_path))}/no/such/mirror does not exist$"
    ):
        C.check_data(cfg, tmp_path)
    (tmp_path / "no/such/mirror").mkdir(parents=True)
    C.check_data(cfg, tmp_path)
    (tmp_path / "README.md").write_text("mirror")
    cfg["data"]["mirror"] = "README.md"  # was: "folder .../README.md does not exist"
    with pytest.raises(C.ConfigError, match=r"^data.mirror: .*README.md is a file, not a folder"):
        C.check_data(cfg, tmp_path)


def test_two_user_sets_with_one_name_are_refused(cfg, tmp_path):
    entry = {"name": "mine", "predictions": "p.csv", "labels": "l.csv"}
    cfg["data"]["user_predictions"] = [entry, dict(entry, predictions="q.csv")]
    with pytest.raises(C.ConfigError, match=r"data.user_predictions: name 'mine' given more than once"):
        C.check_data(cfg, tmp_path)


# ---------------------------------------------------------------------------
# similarity
# ---------------------------------------------------------------------------


def test_unknown_set_names_are_refused_not_dropped(cfg):
    cfg["similarity"]["sets"] = ["cifar10_1_v4", "cifar10_1_v5"]
    with pytest.raises(
        C.ConfigError, match=r"similarity.sets: 'cifar10_1_v5' not among the configured prediction sets"
    ):
        C.check_similarity(cfg)
    cfg["similarity"]["sets"] = ["cifar10_1_v4", "user_mine"]
    with pytest.raises(C.ConfigError, match=r"'user_mine' not among"):
        C.check_similarity(cfg)
    cfg["data"]["user_predictions"] = [{"name": "mine", "predictions": "p.csv", "labels": "l.csv"}]
    cfg["similarity"]["table1"]["sets"] = ["cifar10_1_v4"]
    C.check_similarity(cfg)
    cfg["similarity"]["table1"]["sets"] = ["imagenet"]
    with pytest.raises(C.ConfigError, match=r"similarity.table1.sets: 'imagenet' not among"):
        C.check_similarity(cfg)
    cfg["similarity"]["table1"]["sets"] = []
    cfg["similarity"]["setting_set"] = "imagenet_validation"
    with pytest.raises(C.ConfigError, match=r"similarity.setting_set: 'imagenet_validation' not among"):
        C.check_similarity(cfg)


def test_table1_set_outside_the_analysed_sets_is_a_warning(cfg, caplog):
    cfg["similarity"]["sets"] = ["cifar10_1_v4"]
    cfg["similarity"]["table1"]["sets"] = ["cifar10_1_v4", "cifar10_1_v6"]
    C.check_similarity(cfg)
    assert "similarity.table1.sets: cifar10_1_v6 not in similarity.sets" in caplog.text


def test_eta_min_above_max_is_refused_at_startup(cfg):
    cfg["similarity"]["eta"] = {"min": 0.9, "max": 0.5, "num": 11}
    with pytest.raises(C.ConfigError, match=r"similarity.eta: min = 0.9 is above max = 0.5"):
        C.check_similarity(cfg)


# ---------------------------------------------------------------------------
# bounds
# ---------------------------------------------------------------------------


def test_figure2_start_below_independent_similarity_names_the_key(cfg):
    cfg["bounds"]["setting_from"] = "config"  # accuracy 0.756: independent-errors similarity 0.631
    cfg["bounds"]["figure2"]["similarity"]["start"] = 0.6
    with pytest.raises(C.ConfigError, match=r"bounds.figure2.similarity.start = 0.6 is below .* 0.631"):
        C.check_bounds(cfg)
    cfg["bounds"]["setting_from"] = "measured"  # accuracy known only later: the bounds job checks it
    C.check_bounds(cfg)


def test_bounds_grid_order_setting_and_table_rows(cfg):
    bad = copy.deepcopy(cfg)
    bad["bounds"]["figure2"]["eps"] = {"start": 0.02, "stop": 0.01, "num": 3}
    with pytest.raises(C.ConfigError, match=r"bounds.figure2.eps: start = 0.02 must be below stop = 0.01"):
        C.check_bounds(bad)
    bad = copy.deepcopy(cfg)
    bad["bounds"]["setting_from"] = "config"
    bad["bounds"]["setting"]["similarity"] = 0.5
    with pytest.raises(C.ConfigError, match=r"bounds.setting.similarity = 0.5 is below"):
        C.check_bounds(bad)
    bad = copy.deepcopy(cfg)
    bad["bounds"]["table1"]["rows"][1]["mean_similarity"] = 0.9
    with pytest.raises(C.ConfigError, match=r"bounds.table1.rows\[1\].mean_similarity = 0.9 is below"):
        C.check_bounds(bad)


# ---------------------------------------------------------------------------
# adversarial
# ---------------------------------------------------------------------------


def test_adversarial_grid_and_batch_size(cfg):
    bad = copy.deepcopy(cfg)
    bad["adversarial"]["synthetic"]["eps_grid"] = {"min": 10.0, "max": 1.0, "num": 3}
    with pytest.raises(C.ConfigError, match=r"eps_grid: min = 10.0 is above max = 1.0"):
        C.check_adversarial(bad)
    bad = copy.deepcopy(cfg)
    bad["adversarial"]["synthetic"]["batch_size"] = 300
    with pytest.raises(C.ConfigError, match=r"batch_size = 300 does not divide the independent training set of 500"):
        C.check_adversarial(bad)


# ---------------------------------------------------------------------------
# output folders
# ---------------------------------------------------------------------------


def _writable_error(folder: Path) -> str:
    """check_writable's error for ``folder`` ('' when it passes). Root writes anywhere, so as
    root the check runs in a forked child that has become user nobody."""
    if os.geteuid() != 0:
        try:
            C.check_writable([folder])
        except C.ConfigError as exc:
            return str(exc)
        return ""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_end)
        try:
            os.setgid(65534)
            os.setuid(65534)
            C.check_writable([folder])
            msg = ""
        except C.ConfigError as exc:
            msg = str(exc)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            msg = f"unexpected {exc!r}"
        os.write(write_end, msg.encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        msg = fh.read().decode()
    os.waitpid(pid, 0)
    return msg


def test_read_only_results_folder_fails_before_computing():
    """Was: a 20-line pandas traceback after all the computing. Now check_startup refuses it."""
    base = Path(tempfile.mkdtemp(prefix="holdout-ro-", dir="/tmp"))  # /tmp: reachable by nobody
    try:
        base.chmod(0o755)
        results = base / "results" / "bounds"
        results.mkdir(parents=True)
        for d in (base / "results", results):
            d.chmod(0o777)
        assert _writable_error(base / "results") == ""
        results.chmod(0o555)
        assert _writable_error(base / "results") == (
            f"{results}: folder is not writable (Permission denied); the workflow writes its outputs "
            "there: make it writable (chmod u+w) or run in another directory"
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ---------------------------------------------------------------------------
# Snakemake: the documented commands and the start-up errors (slow: Snakemake start-up)
# ---------------------------------------------------------------------------


def _snakemake(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        check=False,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _documented_commands() -> list[str]:
    """The bring-your-own-models commands of docs/data.md and of config/examples/user_models.yaml."""
    texts = [(REPO / "docs" / "data.md").read_text(), (REPO / "config/examples/user_models.yaml").read_text()]
    cmds = [m.group(0).strip() for t in texts for m in re.finditer(r"snakemake [^\n#]*user_example_csv[^\n#]*", t)]
    cmds += [
        m.group(0).strip().replace("#   ", "")
        for m in re.finditer(
            r"snakemake --cores all resources/predictions/user_example_csv\.npz --configfile [^\n)]*", texts[1]
        )
    ]
    return sorted(set(cmds))


@pytest.mark.slow
def test_documented_user_models_commands_dry_run(tmp_path):
    """Each documented command, as printed, plans the conversion (run with -n in the repository)."""
    cmds = _documented_commands()
    assert len(cmds) >= 2, cmds
    assert any("config/offline.yaml config/examples/user_models.yaml" in c for c in cmds), cmds
    for cmd in cmds:
        args = cmd.split()[1:] + ["-n", "--nolock"]
        proc = _snakemake(args, REPO)
        assert proc.returncode == 0, f"{cmd}\n{proc.stderr[-3000:]}"
        assert "data_convert_user" in proc.stdout, f"{cmd}\n{proc.stdout[-3000:]}"


@pytest.mark.slow
def test_yaml_errors_in_config_files_under_snakemake(tmp_path):
    """A duplicate key stops at start-up naming file and line (our check). A syntax error is
    reported by Snakemake 9 itself, before any workflow code runs, without file or line
    ("Config file is not valid JSON or YAML"); --verbose shows both, and so does
    ``python -m holdout.config FILE`` (docs/troubleshooting.md). If Snakemake starts naming
    the file, the first assertion below tells us to simplify that page."""
    dup = tmp_path / "dup.yaml"
    dup.write_text("bounds:\n  eps: 0.02\n  eps: 0.03\n")
    proc = _snakemake(
        [
            "-s",
            str(REPO / "Snakefile"),
            "-d",
            str(tmp_path),
            "-n",
            "--cores",
            "1",
            "--configfile",
            str(dup),
            "--",
            "results/bounds/table1.md",
        ],
        tmp_path,
    )
    assert proc.returncode != 0
    assert f"{dup}, line 3, column 3: key 'eps' appears twice" in proc.stdout + proc.stderr

    bad = tmp_path / "bad.yaml"
    bad.write_text("bounds:\n  eps: [0.1\n  delta: 0.05\n")
    args = [
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(tmp_path),
        "-n",
        "--cores",
        "1",
        "--configfile",
        str(bad),
        "--",
        "results/bounds/table1.md",
    ]
    proc = _snakemake(args, tmp_path)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "Config file is not valid JSON or YAML" in out and str(bad) not in out
    verbose = _snakemake(["--verbose", *args], tmp_path)
    assert f'in "{bad}", line 3, column 8' in verbose.stdout + verbose.stderr


@pytest.mark.slow
def test_missing_mirror_is_one_error_at_startup(tmp_path):
    cfg = tmp_path / "m.yaml"
    cfg.write_text("data:\n  mirror: no_such_mirror\n")
    proc = _snakemake(
        [
            "-s",
            str(REPO / "Snakefile"),
            "-d",
            str(tmp_path),
            "-n",
            "--cores",
            "1",
            "--configfile",
            str(cfg),
            "--",
            "results/bounds/table1.md",
        ],
        tmp_path,
    )
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert f"data.mirror: folder {tmp_path}/no_such_mirror does not exist" in out
    assert "not in the mirror" not in out  # no per-file warnings before it


@pytest.mark.slow
def test_bench_bounds_study_runs_offline(tmp_path):
    """benchmarks/bench_bounds.py's study run needs no data: no fetch and no similarity job."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_bounds", REPO / "benchmarks" / "bench_bounds.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cmd = bench.study_command(str(tmp_path), 1)
    proc = subprocess.run(
        [*cmd, "-n"],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "bounds_setting" in proc.stdout
    assert "data_fetch" not in proc.stdout and "similarity_" not in proc.stdout, proc.stdout[-3000:]
