"""The CUDA path of the training engine (``pytest -m gpu``; skipped without a CUDA device).

Every registry family trains a few steps in bf16 + channels_last, eagerly and under ``torch.compile``;
an interrupted CUDA run resumes; batched prediction on CUDA equals prediction on the CPU for one
checkpoint; two jobs share one GPU through the GPU-slot mechanism (``jobs_per_gpu=2``).
``benchmarks/gpu/gpu_check.sh`` runs these first on a lent GPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from holdout.training import loop
from holdout.training.augment import AugmentConfig
from holdout.training.checkpoints import load_checkpoint
from holdout.training.evaluation import predict
from holdout.training.gpu import gpu_slot
from holdout.training.loop import RunSettings, TrainConfig, train
from holdout.training.models import ResNetPreactConfig
from holdout.training.registry import ModelSpec

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (pytest -m gpu on a GPU machine)"),
]
REPO = Path(__file__).resolve().parents[2]

# One small member of each registry family (the CPU-scale overrides of config/config.yaml).
FAMILIES = {
    "resnet_preact": ResNetPreactConfig(depth=8, base_channels=8),
    "resnet_preact_bottleneck": ResNetPreactConfig(depth=11, base_channels=8, block_type="bottleneck"),
    "vgg_15_BN_64": ModelSpec("vgg_15_BN_64", {"channels": (8, 16, 32, 32, 32)}),
    "wide_resnet_28_10": ModelSpec("wide_resnet_28_10", {"base_channels": 8, "depth": 10, "widening_factor": 1}),
    "shake_shake_64d": ModelSpec("shake_shake_64d_cutout", {"base_channels": 8, "depth": 8}),
    "vgg16_keras": ModelSpec("vgg16_keras", {"channels": (8, 16, 32, 32, 32), "hidden": 32}),
}


def _settings(tmp: Path, **kw) -> RunSettings:
    return RunSettings(out_dir=tmp / "out", state_dir=tmp / "state", seed=1, device="cuda", **kw)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_family_trains_in_bf16_channels_last(tmp_path, synthetic, family, compiled):
    x, y = synthetic(512, size=32)
    aug = AugmentConfig(dual_cutout=family == "resnet_preact", cutout_size=8)
    cfg = TrainConfig(epochs=2, batch_size=128, augment=aug)
    plan = loop.execution_plan(FAMILIES[family], "cuda", None, None, compiled)
    assert plan.autocast and plan.channels_last and plan.compile == compiled
    res = train(
        FAMILIES[family],
        cfg,
        x,
        y,
        _settings(tmp_path, num_checkpoints=1, compile=compiled),
        test_images=x[:256],
        test_labels=y[:256],
    )
    assert next(res.model.parameters()).is_cuda
    assert all(np.isfinite(r["train_loss"]) and r["images_per_s"] > 0 for r in res.history)
    assert 0.0 <= res.history[-1]["test_accuracy"] <= 1.0


def test_interrupted_cuda_run_resumes(tmp_path, synthetic, monkeypatch):
    x, y = synthetic(512, size=32)
    cfg = TrainConfig(epochs=4, batch_size=128)
    real = loop._save_epoch

    def crash_after_two(job, run, epoch, row, log):
        real(job, run, epoch, row, log)
        if epoch == 2:
            raise KeyboardInterrupt("simulated interruption after epoch 2")

    monkeypatch.setattr(loop, "_save_epoch", crash_after_two)
    with pytest.raises(KeyboardInterrupt):
        train(FAMILIES["resnet_preact"], cfg, x, y, _settings(tmp_path, num_checkpoints=2, compile=False))
    monkeypatch.setattr(loop, "_save_epoch", real)
    res = train(FAMILIES["resnet_preact"], cfg, x, y, _settings(tmp_path, num_checkpoints=2, compile=False))
    assert res.resumed_from_epoch == 2
    assert [r["epoch"] for r in res.history] == [1, 2, 3, 4]
    assert all(p.exists() for p in res.checkpoints)


def test_batched_cuda_prediction_equals_cpu_prediction(tmp_path, synthetic):
    x, y = synthetic(768, size=32, seed=5)
    cfg = TrainConfig(epochs=2, batch_size=128)
    res = train(FAMILIES["resnet_preact"], cfg, x, y, _settings(tmp_path, num_checkpoints=1, compile=False))
    model, meta = load_checkpoint(res.checkpoints[-1])
    kw = {"mean": meta["test_time"]["mean"], "std": meta["test_time"]["std"]}
    labels_cpu, logits_cpu = predict(model, x, 1000, device="cpu", **kw)
    for batch in (1000, 97):
        labels_gpu, logits_gpu = predict(model, x, batch, device="cuda", **kw)
        rel = np.linalg.norm(logits_gpu - logits_cpu) / np.linalg.norm(logits_cpu)
        assert rel < 5e-3, f"batch {batch}: CUDA logits differ from CPU by {rel:.2e} (relative norm)"
        assert (labels_gpu == labels_cpu).mean() >= 0.995
    labels_bf16, _ = predict(model, x, 256, device="cuda", autocast=True, **kw)
    assert (labels_bf16 == labels_cpu).mean() >= 0.98


HOLDER = """
import sys, time, torch
from holdout.training.gpu import gpu_slot
with gpu_slot(gpus=['0'], lock_dir=sys.argv[1], poll_seconds=0.05, timeout_seconds=5, jobs_per_gpu=2) as s:
    a = torch.randn(512, 512, device='cuda')
    torch.cuda.synchronize()
    print(s.gpu, flush=True)
    time.sleep(float(sys.argv[2]))
    print(float((a @ a).sum()), flush=True)
"""


def test_two_jobs_share_one_gpu_and_a_third_waits(tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    env.pop("SLURM_JOB_ID", None)
    procs = [
        subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path), "4"], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    assert [p.stdout.readline().strip() for p in procs] == ["0", "0"]
    with pytest.raises(TimeoutError, match="busy"):
        with gpu_slot(gpus=["0"], lock_dir=tmp_path, poll_seconds=0.05, timeout_seconds=0.3, jobs_per_gpu=2):
            pass
    for p in procs:
        assert p.wait(60) == 0
    assert sorted(f.name for f in tmp_path.iterdir()) == ["gpu0.lock", "gpu0.slot1.lock"]
