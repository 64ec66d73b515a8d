"""The adversarial_cifar10 stage end to end through the real Snakefile: two tiny models in the
seeds study's layout (trained here on windows of real CIFAR-10 images), a few images per set."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

from holdout.data import load_cifar10
from holdout.training import AugmentConfig, ResNetPreactConfig, RunSettings, TrainConfig, train

ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
OUT = "results/adversarial_cifar10"
TARGETS = [f"{OUT}/pvalues.csv", f"{OUT}/figure5.png", f"{OUT}/pvalue_vs_error.png", f"{OUT}/pvalues.md"]
# only this stage's rules (and the arrays decoded from the archive) run: the seeds models and the
# archive are given (never retrained/fetched)
ONLY = [
    "--allowed-rules",
    "training_cifar10_arrays",
    "adversarial_cifar10_attacks",
    "adversarial_cifar10_summary",
    "--rerun-incomplete",
]
W = 20


def _offline_data() -> dict:
    """offline.yaml's data section with the mirror made absolute (these runs work in a temporary
    folder, where the relative ``../shared/data`` does not exist; a configfile's ``data:`` replaces
    the whole section, so the checksums come along)."""
    repo = Path(__file__).resolve().parents[2]
    data = yaml.safe_load((repo / "config/offline.yaml").read_text())["data"]
    mirror = Path(os.environ.get("HOLDOUT_SHARED_DATA", repo.parent / "shared" / "data"))
    return {**data, "mirror": str(mirror.resolve())}


def _config(tmp_path: Path, **over) -> Path:
    # .test/config-adversarial_cifar10/config.yaml with data (absolute mirror) and `over` overlaid
    cfg = load_small_config("adversarial_cifar10")
    cfg["data"] = _offline_data()
    cfg["adversarial_cifar10"].update(over)
    path = tmp_path / f"small_{len(list(tmp_path.glob('small_*.yaml')))}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, shared_data):
    wd = tmp_path_factory.mktemp("wf")
    raw = wd / "resources/raw" / ARCHIVE
    raw.parent.mkdir(parents=True)
    shutil.copyfile(shared_data / ARCHIVE, raw)
    data = load_cifar10(raw)
    subset = np.sort(np.random.default_rng(0).choice(50000, 48, replace=False)).astype(np.int64)
    o = (32 - W) // 2
    windows = np.ascontiguousarray(data.train_images[subset, o : o + W, o : o + W].transpose(0, 3, 1, 2))
    seeds = wd / "results/seeds"
    tc = TrainConfig(epochs=2, batch_size=16, milestones=(1,), augment=AugmentConfig(random_crop=False))
    for seed in (0, 1):
        train(
            ResNetPreactConfig(depth=8, base_channels=4),
            tc,
            windows,
            data.train_labels[subset],
            RunSettings(
                out_dir=seeds / f"models/seed{seed:03d}",
                state_dir=wd / f"state{seed}",
                seed=seed,
                num_checkpoints=1,
                device="cpu",
                threads=1,
            ),
        )
    np.save(seeds / "train_subset.npy", subset)
    (seeds / "recipe.json").write_text(json.dumps({"window": W, "seeds": [0, 1], "train_subset_size": 48}))
    return wd


@pytest.mark.slow  # trains two tiny models and runs the stage (~1 min on 2 shared cores)
def test_adversarial_cifar10_stage_small(workdir, workflow_runner, repo):
    cfgs = [repo / "config/offline.yaml", _config(workdir)]
    workflow_runner(workdir, *TARGETS, configfiles=cfgs, extra=ONLY)
    out = workdir / OUT
    pv = pd.read_csv(out / "pvalues.csv")
    assert list(pv.columns[:5]) == ["model", "set", "aeg", "sample_size", "p_value"]
    assert set(pv.model) == {"seed000", "seed001"} and set(pv.set) == {"train", "test"}
    assert set(pv.aeg) == {"strongest", "nearest", "random", "random2"}
    assert set(pv.sample_size) == {4, 8, 12} and pv.p_value.between(0, 1).all()
    assert len(pv) == 2 * 2 * 4 * 3
    # the training images attacked are those of the subset the models were trained on
    subset = set(np.load(workdir / "results/seeds/train_subset.npy").tolist())
    per = pd.read_csv(out / "per_image/seed001_train.csv")
    assert len(per) == 12 and set(per["index"]) <= subset
    nm = pd.read_csv(out / "n_model.csv")
    assert (nm.n_models == 2).all() and len(nm) == 2 * 4 * 3
    for name in ("figure5", "pvalue_vs_error"):
        assert (out / f"{name}.png").stat().st_size > 1000 and (out / f"{name}.pdf").is_file()
        assert len(pd.read_csv(out / f"{name}.csv")) > 0
    assert "N-model p" in (out / "pvalues.md").read_text()
    log = (workdir / "logs/adversarial_cifar10/attacks_seed000.log").read_text()
    assert "forward passes per image" in log and "window 20, eps 2" in log


@pytest.mark.slow
def test_adversarial_cifar10_refuses_bad_settings(workdir, workflow_runner, repo):
    off = repo / "config/offline.yaml"
    # eps 3 needs 9 pixels around a 20 x 20 window; 32 x 32 leaves 6: refused before anything runs
    proc = workflow_runner(
        workdir, *TARGETS, configfiles=[off, _config(workdir, eps=3)], extra=["-n", *ONLY], check=False
    )
    assert proc.returncode != 0 and "the largest eps this canvas allows is 2" in proc.stderr + proc.stdout
    # a window other than the models' (recipe.json) stops the attack job, naming the key
    shutil.rmtree(workdir / OUT, ignore_errors=True)
    shutil.rmtree(workdir / "logs/adversarial_cifar10", ignore_errors=True)
    proc = workflow_runner(
        workdir, *TARGETS, configfiles=[off, _config(workdir, window=26, eps=1)], extra=ONLY, check=False
    )
    assert proc.returncode != 0
    logs = " ".join(p.read_text() for p in (workdir / "logs/adversarial_cifar10").glob("attacks_*.log"))
    assert "set adversarial_cifar10.window to 20" in logs
