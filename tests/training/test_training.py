"""holdout.training.loop: optimisers, schedules, checkpoints, resumption and learning (Mania et al. 2019, Table 2)."""

from __future__ import annotations

import csv
import itertools
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from holdout.predictions import Predictions
from holdout.training.augment import AugmentConfig
from holdout.training.loop import (
    LOG_FIELDS,
    STATE_NAME,
    LRSchedule,
    RunSettings,
    TrainConfig,
    build_optimizer,
    checkpoint_epochs,
    checkpoint_paths,
    load_checkpoint,
    parameter_groups,
    predict,
    select_device,
    train,
    training_loss,
)
from holdout.training.models import ResNetPreactConfig, build_resnet_preact

TINY = ResNetPreactConfig(depth=8, base_channels=4)
REPO = Path(__file__).resolve().parents[2]


def _weights_equal(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


# --------------------------------------------------------------------------- optimisation pieces


def test_bn_weight_decay_switch_leaves_batchnorm_parameters_undecayed():
    torch.manual_seed(0)
    model = build_resnet_preact(TINY)
    bn = [p for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d) for p in m.parameters()]
    groups = parameter_groups(model, 1e-2, decay_bn=False)
    assert {id(p) for p in groups[1]["params"]} == {id(p) for p in bn} and groups[1]["weight_decay"] == 0.0
    assert len(groups[0]["params"]) + len(groups[1]["params"]) == len(list(model.parameters()))
    for decay_bn in (False, True):
        torch.manual_seed(0)
        model = build_resnet_preact(TINY)
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.weight.fill_(2.0)
                    m.bias.fill_(0.5)
        before = {k: v.clone() for k, v in model.named_parameters()}
        opt = build_optimizer(
            model, TrainConfig(optimizer="sgd", base_lr=0.1, weight_decay=0.01, weight_decay_bn=decay_bn)
        )
        for p in model.parameters():
            p.grad = torch.zeros_like(p)
        opt.step()  # zero gradients: only weight decay moves parameters, by a factor 1 - lr * wd
        for name, p in model.named_parameters():
            is_bn = name.endswith(("bn1.weight", "bn1.bias", "bn2.weight", "bn2.bias", "bn.weight", "bn.bias"))
            if is_bn and not decay_bn:
                assert torch.equal(p, before[name]), name
            else:
                assert torch.allclose(p, before[name] * (1 - 0.1 * 0.01)), name


@pytest.mark.parametrize(
    ("name", "cls", "momentum", "nesterov"),
    [
        ("sgd", torch.optim.SGD, 0.0, False),
        ("momentum", torch.optim.SGD, 0.6, False),
        ("nesterov", torch.optim.SGD, 0.99, True),
        ("adam", torch.optim.Adam, None, None),
    ],
)
def test_optimizers_of_table2(name, cls, momentum, nesterov):
    cfg = TrainConfig(optimizer=name, momentum=momentum or 0.9, adam_betas=(0.85, 0.95), base_lr=0.3)
    opt = build_optimizer(build_resnet_preact(TINY), cfg)
    assert type(opt) is cls and opt.param_groups[0]["lr"] == 0.3
    if cls is torch.optim.SGD:
        assert opt.param_groups[0]["momentum"] == momentum and opt.param_groups[0]["nesterov"] is nesterov
    else:
        assert opt.param_groups[0]["betas"] == (0.85, 0.95)


def test_two_step_decay_schedule():
    s = LRSchedule("multistep", steps_per_epoch=10, epochs=160, milestones=(40, 120), lr_decay=0.1)
    assert s(0) == 1.0 and s(399) == 1.0
    assert s(400) == pytest.approx(0.1) and s(1199) == pytest.approx(0.1)
    assert s(1200) == pytest.approx(0.01) and s(1599) == pytest.approx(0.01)
    beyond = LRSchedule("multistep", 10, 160, (100, 180), 0.1)  # Table 2's decay point 2 may exceed 160 epochs
    assert beyond(1599) == pytest.approx(0.1)


def test_cosine_schedule():
    s = LRSchedule("cosine", steps_per_epoch=5, epochs=4, lr_min_factor=1e-3)
    assert s(0) == 1.0 and s(10) == pytest.approx(1e-3 + (1 - 1e-3) * 0.5)
    assert s(20) == pytest.approx(1e-3)
    vals = [s(i) for i in range(21)]
    assert all(a > b for a, b in itertools.pairwise(vals))


def test_dual_cutout_loss_formula():
    torch.manual_seed(0)
    z1, z2 = torch.randn(6, 10), torch.randn(6, 10)
    y = torch.arange(6)
    t = torch.nn.functional.one_hot(y, 10).float()
    ce = torch.nn.functional.cross_entropy
    expected = 0.5 * (ce(z1, y) + ce(z2, y)) + 0.2 * ((z1 - z2) ** 2).mean()
    assert torch.allclose(training_loss([z1, z2], t, 0.2), expected)
    assert torch.allclose(training_loss([z1], t), ce(z1, y))


def test_checkpoint_epochs_are_evenly_spaced():
    assert checkpoint_epochs(160, 10) == list(range(16, 161, 16))
    assert checkpoint_epochs(7, 3) == [3, 5, 7]
    with pytest.raises(ValueError, match="exceeds epochs"):
        checkpoint_epochs(5, 10)
    assert [p.name for p in checkpoint_paths("x", 3)] == ["checkpoint_01.pt", "checkpoint_02.pt", "checkpoint_03.pt"]


@pytest.mark.parametrize(
    "bad", [{"optimizer": "rmsprop"}, {"scheduler": "step"}, {"milestones": (120, 80)}, {"base_lr": 0}, {"epochs": 0}]
)
def test_invalid_train_config_raises(bad):
    with pytest.raises(ValueError, match="TrainConfig"):
        TrainConfig(**bad)


def test_train_config_round_trip():
    cfg = TrainConfig(optimizer="adam", milestones=(60, 140), augment=AugmentConfig(mixup=True, mixup_alpha=0.7))
    assert TrainConfig.from_dict(cfg.to_dict()) == cfg


def test_select_device():
    assert select_device("cpu") == torch.device("cpu")
    assert select_device(None).type in ("cuda", "mps", "cpu")


# --------------------------------------------------------------------------- runs


def _small_run(tmp, synthetic, seed=0, epochs=2, **kw):
    x, y = synthetic(192, size=16)
    cfg = TrainConfig(epochs=epochs, batch_size=64, augment=AugmentConfig(cutout=True, cutout_size=8))
    return train(
        TINY,
        cfg,
        x,
        y,
        RunSettings(
            out_dir=tmp / "out", state_dir=tmp / "state", seed=seed, num_checkpoints=epochs, device="cpu", threads=1
        ),
        **kw,
    )


def test_same_seed_same_weights_and_checkpoint_contents(tmp_path, synthetic):
    a = _small_run(
        tmp_path / "a",
        synthetic,
        seed=1,
        test_images=synthetic(40, 16, seed=5)[0],
        test_labels=synthetic(40, 16, seed=5)[1],
    )
    b = _small_run(tmp_path / "b", synthetic, seed=1)
    c = _small_run(tmp_path / "c", synthetic, seed=2)
    assert _weights_equal(a.model, b.model) and not _weights_equal(a.model, c.model)
    assert [p.name for p in a.checkpoints] == ["checkpoint_01.pt", "checkpoint_02.pt"]
    assert all(p.exists() for p in a.checkpoints) and not (tmp_path / "a" / "state" / STATE_NAME).exists()
    model, meta = load_checkpoint(a.checkpoints[-1])
    assert _weights_equal(model, a.model)
    assert meta["epoch"] == 2 and meta["index"] == 2 and meta["seed"] == 1 and meta["num_checkpoints"] == 2
    assert meta["model_config"] == TINY.to_dict()
    assert TrainConfig.from_dict(meta["train_config"]).augment.cutout is True
    assert meta["test_time"]["num_classes"] == 10 and len(meta["test_time"]["mean"]) == 3
    assert 0.0 <= meta["metrics"]["test_accuracy"] <= 1.0
    first, _ = load_checkpoint(a.checkpoints[0])
    assert not _weights_equal(first, model)
    with open(a.log_path) as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["epoch"]) for r in rows] == [1, 2] and tuple(rows[0]) == LOG_FIELDS
    assert all(float(r["images_per_s"]) > 0 and float(r["lr"]) == 0.1 for r in rows)
    assert float(rows[1]["wall_time_s"]) > float(rows[0]["wall_time_s"])


def test_predict_matches_model_and_feeds_predictions(tmp_path, synthetic):
    run = _small_run(tmp_path, synthetic, epochs=1)
    x, y = synthetic(70, 16, seed=9)
    labels, logits = predict(run.model, x, batch_size=32, channels_last=False)
    assert labels.shape == (70,) and logits.shape == (70, 10) and logits.dtype == np.float32
    from holdout.training.augment import CIFAR10_MEAN, CIFAR10_STD, normalize

    with torch.no_grad():
        ref = run.model.eval()(normalize(torch.as_tensor(x), CIFAR10_MEAN, CIFAR10_STD))
    assert np.allclose(logits, ref.numpy(), atol=1e-5) and np.array_equal(labels, ref.argmax(1).numpy())
    assert np.allclose(predict(run.model, x, batch_size=1000)[1], logits, atol=1e-4)  # channels_last, one batch
    preds = Predictions.create(labels, y, ["tiny"], num_classes=10, scores=logits[None], test_set="synthetic")
    assert preds.accuracies()[0] == pytest.approx((labels == y).mean())


def test_bad_inputs_raise_clear_errors(tmp_path, synthetic):
    x, y = synthetic(64, 16)
    cfg = TrainConfig(epochs=1, batch_size=32)
    kw = {"out_dir": tmp_path / "o", "state_dir": tmp_path / "s", "num_checkpoints": 1, "device": "cpu"}
    with pytest.raises(ValueError, match="uint8"):
        train(TINY, cfg, x.astype(np.float32), y, RunSettings(**kw))
    with pytest.raises(ValueError, match="labels"):
        train(TINY, cfg, x, y[:10], RunSettings(**kw))
    with pytest.raises(ValueError, match="fewer than one batch"):
        train(TINY, TrainConfig(epochs=1, batch_size=128), x, y, RunSettings(**kw))
    with pytest.raises(ValueError, match="state_dir must differ"):
        train(
            TINY,
            cfg,
            x,
            y,
            RunSettings(out_dir=tmp_path / "o", state_dir=tmp_path / "o", num_checkpoints=1, device="cpu"),
        )


def test_foreign_state_is_refused(tmp_path, synthetic):
    x, y = synthetic(64, 16)
    kw = {
        "out_dir": tmp_path / "o",
        "state_dir": tmp_path / "s",
        "num_checkpoints": 1,
        "device": "cpu",
        "keep_state": True,
    }
    train(TINY, TrainConfig(epochs=1, batch_size=32), x, y, RunSettings(seed=0, **kw))
    assert (tmp_path / "s" / STATE_NAME).exists()
    with pytest.raises(ValueError, match="another run"):
        train(TINY, TrainConfig(epochs=1, batch_size=32), x, y, RunSettings(seed=1, **kw))


# --------------------------------------------------------------------------- a real interruption

_RUNNER = textwrap.dedent(
    """
    import sys, numpy as np, torch
    from holdout.training.augment import AugmentConfig
    from holdout.training.models import ResNetPreactConfig
    from holdout.training.loop import RunSettings, TrainConfig, train
    data = np.load(sys.argv[1])
    cfg = TrainConfig(epochs=int(sys.argv[4]), batch_size=32, optimizer="momentum", scheduler="cosine",
                      augment=AugmentConfig(cutout=True, cutout_size=6, random_erasing=True, mixup=True,
                                            label_smoothing=True))
    settings = RunSettings(out_dir=sys.argv[2], state_dir=sys.argv[3], seed=7, num_checkpoints=3, device="cpu",
                           threads=1)
    res = train(ResNetPreactConfig(depth=8, base_channels=4), cfg, data["x"], data["y"], settings)
    torch.save(res.model.state_dict(), sys.argv[2] + "/final.pt")
    """
)


@pytest.mark.slow
def test_killed_run_resumes_bit_identically(tmp_path, synthetic):
    x, y = synthetic(320, size=16, seed=3)
    np.savez(tmp_path / "data.npz", x=x, y=y)
    epochs = 6
    script = tmp_path / "runner.py"
    script.write_text(_RUNNER)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}

    def run(out, state, wait=True):
        cmd = [sys.executable, str(script), str(tmp_path / "data.npz"), str(out), str(state), str(epochs)]
        return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    # Interrupted run: SIGKILL (no cleanup possible) once it has written the state of epoch >= 2.
    out_k, state_k = tmp_path / "killed", tmp_path / "killed_state"
    proc = run(out_k, state_k)
    deadline = time.time() + 120
    killed_at = None
    while time.time() < deadline and proc.poll() is None:
        log = out_k / "training_log.csv"
        if log.exists() and len(log.read_text().splitlines()) >= 3:  # header + 2 epochs
            proc.send_signal(signal.SIGKILL)
            killed_at = len(log.read_text().splitlines()) - 1
            break
        time.sleep(0.02)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert killed_at is not None and killed_at < epochs
    assert (state_k / STATE_NAME).exists() and not (out_k / "final.pt").exists()
    # Snakemake would delete the failed job's outputs; the restart must restore them.
    for p in out_k.iterdir():
        p.unlink()
    proc = run(out_k, state_k)
    assert proc.wait() == 0, proc.stderr.read().decode()[-3000:]
    # Uninterrupted reference run.
    out_u, state_u = tmp_path / "clean", tmp_path / "clean_state"
    proc = run(out_u, state_u)
    assert proc.wait() == 0, proc.stderr.read().decode()[-3000:]

    a = torch.load(out_k / "final.pt")
    b = torch.load(out_u / "final.pt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    for pk, pu in zip(checkpoint_paths(out_k, 3), checkpoint_paths(out_u, 3)):
        ma, meta_a = load_checkpoint(pk)
        mb, meta_b = load_checkpoint(pu)
        assert _weights_equal(ma, mb) and meta_a["epoch"] == meta_b["epoch"]
    with open(out_k / "training_log.csv") as fh:
        rows = list(csv.DictReader(fh))
    with open(out_u / "training_log.csv") as fh:
        ref = list(csv.DictReader(fh))
    assert [r["epoch"] for r in rows] == [str(e) for e in range(1, epochs + 1)]
    assert [r["train_loss"] for r in rows] == [r["train_loss"] for r in ref]
    assert not (state_k / STATE_NAME).exists()


# --------------------------------------------------------------------------- learning


@pytest.mark.slow
@pytest.mark.parametrize(
    ("optimizer", "lr", "extra"),
    [
        ("sgd", 0.2, {"scheduler": "multistep", "milestones": (3,), "weight_decay": 1e-4}),
        (
            "momentum",
            0.05,
            {
                "momentum": 0.9,
                "scheduler": "cosine",
                "weight_decay_bn": False,
                "augment": AugmentConfig(cutout=True, cutout_size=8, label_smoothing=True),
            },
        ),
        (
            "nesterov",
            0.05,
            {
                "momentum": 0.9,
                "scheduler": "cosine",
                "augment": AugmentConfig(random_erasing=True, mixup=True, mixup_alpha=1.0),
            },
        ),
        (
            "adam",
            3e-3,
            {
                "adam_betas": (0.9, 0.99),
                "scheduler": "cosine",
                "augment": AugmentConfig(dual_cutout=True, cutout_size=8, dual_cutout_alpha=0.1),
            },
        ),
    ],
)
def test_each_optimizer_learns_a_synthetic_task_above_90_percent(tmp_path, synthetic, optimizer, lr, extra):
    """One representative Table 2 configuration per optimizer trains (not only runs) on CPU."""
    x, y = synthetic(640, size=16, seed=0)
    xt, yt = synthetic(300, size=16, seed=1)
    cfg = TrainConfig(epochs=4, batch_size=32, optimizer=optimizer, base_lr=lr, **extra)
    model_cfg = ResNetPreactConfig(depth=8, base_channels=8, block_type="basic")
    res = train(
        model_cfg,
        cfg,
        x,
        y,
        RunSettings(
            out_dir=tmp_path / "o", state_dir=tmp_path / "s", seed=0, num_checkpoints=2, device="cpu", threads=1
        ),
    )
    acc = (predict(res.model, xt)[0] == yt).mean()
    assert acc > 0.9, f"{optimizer}: held-out accuracy {acc:.3f}"
    assert math.isfinite(res.history[-1]["train_loss"])


def test_cpu_bf16_autocast_is_deterministic_and_trains(tmp_path, synthetic):
    x, y = synthetic(128, 16)
    cfg = TrainConfig(epochs=1, batch_size=32)
    runs = [
        train(
            TINY,
            cfg,
            x,
            y,
            RunSettings(
                out_dir=tmp_path / f"o{i}",
                state_dir=tmp_path / f"s{i}",
                num_checkpoints=1,
                device="cpu",
                threads=1,
                autocast=True,
                seed=4,
            ),
        )
        for i in range(2)
    ]
    assert _weights_equal(runs[0].model, runs[1].model)
    assert math.isfinite(runs[0].history[0]["train_loss"])


def test_bf16_autocast_on_a_cpu_without_native_bf16_warns(caplog, monkeypatch):
    """bf16 autocast is 8-10x slower than float32 where oneDNN emulates it (AVX2): the plan says so."""
    from holdout.training import device as dv

    monkeypatch.setattr(dv, "cpu_bf16_is_fast", lambda: False)
    with caplog.at_level("WARNING"):
        plan = dv.execution_plan(TINY, "cpu", autocast=True)
    assert plan.autocast and "without native bf16" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING"):
        assert not dv.execution_plan(TINY, "cpu").autocast
    assert "bf16" not in caplog.text
