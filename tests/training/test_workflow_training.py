"""The search, seeds and predict studies through the real Snakefile on the offline CIFAR-10 copy (slow).

Tiny scale: 2 sampled models and 2 seeds, 2 epochs on a few hundred images; then the contract of
the prediction files (names, scores, metadata), a no-op rerun, a SIGKILL + resume of a training
job, and the job counts of config/paper.yaml.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

from holdout.predictions import load_predictions
from holdout.training import load_checkpoint

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
OFFLINE = REPO / "config" / "offline.yaml"
END = ["--rerun-incomplete"]  # an option after --configfile, so targets are not read as config files


def _data(shared_data: Path) -> dict:
    """The mirror as an absolute path, with offline.yaml's checksums (a configfile's data: replaces data:)."""
    offline = yaml.safe_load(OFFLINE.read_text())["data"]
    return {"mirror": str(shared_data), "checksums": offline["checksums"]}


def _tiny(shared_data: Path, search_epochs: int = 2) -> dict:
    """.test/config-search/config.yaml with data (absolute mirror, offline checksums) and
    search.epochs overlaid (the tests run in temporary folders; the resume test trains longer)."""
    cfg = load_small_config("search")
    cfg["data"] = _data(shared_data)
    cfg["search"]["epochs"] = search_epochs
    return cfg


def _configfile(tmp: Path, cfg: dict) -> list[Path]:
    # one file: with `--configfile A --configfile B` Snakemake 9 keeps only B
    path = tmp / "tiny.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return [path]


TARGETS = [
    f"results/{s}/predictions/{t}.npz" for s in ("search", "seeds") for t in ("cifar10_test", "cifar10_train_subset")
]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, shared_data, workflow_runner):
    work = tmp_path_factory.mktemp("training_wf")
    files = _configfile(work, _tiny(shared_data))
    workflow_runner(work, *TARGETS, configfiles=files, extra=END)
    return work, files


def test_prediction_files_follow_the_contract(tiny_run):
    work, _ = tiny_run
    arrays = np.load(work / "resources/cifar10/cifar10_uint8.npz")
    for study, models in (("search", ["m000", "m001"]), ("seeds", ["seed000", "seed001"])):
        test = load_predictions(work / f"results/{study}/predictions/cifar10_test.npz")
        assert test.model_names == tuple(f"{m}@e{e:03d}" for m in models for e in (1, 2))
        assert test.test_set == "cifar10_test" and test.num_examples == 10000
        assert np.array_equal(test.labels, arrays["test_labels"])
        assert test.scores.shape == (4, 10000, 10) and np.array_equal(test.predictions, test.scores.argmax(2))
        assert [m["epoch"] for m in test.metadata] == [1, 2, 1, 2] and test.metadata[0]["model"] == models[0]
        # plumbing only (2 epochs, a few hundred images: near chance); learning is tested in test_training.py
        assert np.isfinite(test.scores).all() and not np.array_equal(test.scores[0], test.scores[1])
        sub = load_predictions(work / f"results/{study}/predictions/cifar10_train_subset.npz")
        assert sub.model_names == test.model_names
    idx = np.load(work / "results/seeds/train_subset.npy")
    assert idx.dtype == np.int64 and len(idx) == 128
    sub = load_predictions(work / "results/seeds/predictions/cifar10_train_subset.npz")
    assert np.array_equal(sub.labels, arrays["train_labels"][idx])  # exactly the seed models' training images
    search_idx = np.load(work / "results/search/train_subset.npy")
    search_sub = load_predictions(work / "results/search/predictions/cifar10_train_subset.npz")
    assert search_sub.num_examples == 100 and len(search_idx) == 512


def test_model_folders_configs_and_logs(tiny_run):
    work, _ = tiny_run
    table = pd.read_csv(work / "results/search/configs.csv")
    assert list(table["model"]) == ["m000", "m001"]
    for model in ("m000", "m001"):
        d = work / "results/search/models" / model
        cfg = json.loads((d / "config.json").read_text())
        assert cfg["table2"]["model"] == model
        assert cfg["table2"]["optimizer"] == table.set_index("model").loc[model, "optimizer"]
        log = pd.read_csv(d / "log.csv")
        assert list(log["epoch"]) == [1, 2] and np.isfinite(log["images_per_s"]).all()
        _, meta = load_checkpoint(d / "checkpoint_02.pt")
        assert meta["epoch"] == 2 and meta["table2"]["model"] == model
    recipe = json.loads((work / "results/seeds/recipe.json").read_text())
    assert recipe["window"] == 26 and recipe["seeds"] == [0, 1] and recipe["train_subset_size"] == 128
    assert recipe["epochs"] == 2 and recipe["model"]["base_channels"] == 4 and "augment" in recipe["train"]
    _, meta = load_checkpoint(work / "results/seeds/models/seed001/checkpoint_02.pt")
    assert meta["test_time"]["window"] == 26 and meta["seed"] == 1
    assert "not available" in (work / "logs/predict/seeds/seed000.log").read_text()  # no CIFAR-10.1 images offline


def test_second_run_has_nothing_to_do(tiny_run, workflow_runner):
    work, files = tiny_run
    proc = workflow_runner(work, *TARGETS, configfiles=files, extra=END + ["-n"])
    assert "Nothing to be done" in proc.stdout + proc.stderr


def _snakemake_cmd(work: Path, files: list[Path], *targets: str) -> list[str]:
    cmd = [sys.executable, "-m", "snakemake"]
    for f in files:
        cmd += ["--configfile", str(f)]
    return cmd + ["-s", str(REPO / "Snakefile"), "-d", str(work), "--cores", "1", "--nolock", *END, *targets]


def test_killed_training_job_resumes(tmp_path, tiny_run, shared_data, workflow_runner):
    """SIGKILL the whole snakemake process group after the first epoch's state is saved; rerun resumes."""
    src, _ = tiny_run
    work = tmp_path / "kill"
    for rel in ("resources/raw", "resources/cifar10"):  # reuse the verified data (mtimes kept)
        shutil.copytree(src / rel, work / rel, copy_function=shutil.copy2)
    files = _configfile(work, _tiny(shared_data, search_epochs=8))
    target = "results/search/models/m000/config.json"
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        _snakemake_cmd(work, files, target),
        cwd=work,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    state = work / "resources/training_state/search/m000/state.pt"
    deadline = time.monotonic() + 600
    while not state.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state.exists(), "no training state appeared"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (work / target).exists()
    workflow_runner(work, target, configfiles=files, extra=END)
    text = (work / "logs/search/train_m000.log").read_text()
    m = re.search(r"resuming from .*state\.pt at epoch (\d+)/8", text)
    assert m and int(m.group(1)) >= 1, text[-2000:]
    log = pd.read_csv(work / "results/search/models/m000/log.csv")
    assert list(log["epoch"]) == list(range(1, 9))
    assert not state.exists()  # removed once training completed


def test_paper_config_job_counts(tmp_path, workflow_runner):
    """`snakemake -n --configfile config/paper.yaml`: Mania et al.'s 320 models, 120 seeds."""
    proc = workflow_runner(tmp_path, configfiles=[REPO / "config" / "paper.yaml"], extra=["-n", "--quiet", "rules"])
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.MULTILINE))
    assert counts["search_train"] == "320" and counts["seeds_train"] == "120"
    assert counts["predict_model"] == "440"


def test_fused_groups_replace_the_per_model_training_jobs(tmp_path, workflow_runner):
    """`snakemake -n` of config/paper.yaml with training.fused_members: 16: one training job per fused
    group (the groups holdout plan prints), the same 440 models' predictions, no per-model training job."""
    from holdout.training.groups import fusion_groups
    from holdout.training.plan import load_merged_config, plan_specs

    fused = tmp_path / "fused.yaml"
    fused.write_text("training:\n  fused_members: 16\n")
    paper = REPO / "config" / "paper.yaml"
    proc = workflow_runner(tmp_path, configfiles=[paper, fused], extra=["-n", "--quiet", "rules"])
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.MULTILINE))
    groups = fusion_groups(plan_specs(load_merged_config([paper, fused], REPO / "config" / "config.yaml")), 16)
    for study in ("search", "seeds"):
        jobs = [k for k in counts if k.startswith(f"{study}_train_group")]
        assert len(jobs) == sum(g.study == study for g in groups) and f"{study}_train" not in counts
    assert counts["predict_model"] == "440"


def test_fused_group_jobs_write_the_per_model_files(tmp_path, tiny_run, shared_data, workflow_runner):
    """training.fused_members: 2 on the tiny config: the two seeds train as one job and write the files
    the per-seed jobs wrote, with weights equal to theirs within float rounding."""
    import torch

    src, _ = tiny_run
    work = tmp_path / "fused"
    for rel in ("resources/raw", "resources/cifar10"):  # reuse the verified data (mtimes kept)
        shutil.copytree(src / rel, work / rel, copy_function=shutil.copy2)
    cfg = _tiny(shared_data)
    cfg["training"] = {"fused_members": 2}
    files = _configfile(work, cfg)
    targets = [f"results/seeds/models/seed00{i}/config.json" for i in (0, 1)]
    workflow_runner(work, *targets, configfiles=files, extra=END)
    assert (work / "logs/seeds/train_group000.log").exists()
    for i in (0, 1):
        d, alone = work / f"results/seeds/models/seed00{i}", src / f"results/seeds/models/seed00{i}"
        assert sorted(p.name for p in d.iterdir()) == sorted(p.name for p in alone.iterdir())
        assert json.loads((d / "config.json").read_text()) == json.loads((alone / "config.json").read_text())
        assert list(pd.read_csv(d / "log.csv")["epoch"]) == [1, 2]
        fused, _ = load_checkpoint(d / "checkpoint_02.pt")
        own, _ = load_checkpoint(alone / "checkpoint_02.pt")
        for (name, p), q in zip(own.state_dict().items(), fused.state_dict().values(), strict=True):
            p, q = p.double(), q.double()
            assert torch.linalg.norm(p - q) <= 5e-3 * max(float(torch.linalg.norm(p)), 1e-6), name
