"""holdout.training.graphs: the whole-step CUDA graph, what of it the CPU can check, and (gpu) its loss curve."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import torch

from holdout.training.augment import AugmentConfig, augment_batch
from holdout.training.graphs import (
    GraphStep,
    graphs_available,
    portable_optimizer_state,
    portable_scheduler_state,
    use_eager_lr,
    use_tensor_lr,
)
from holdout.training.loop import RunSettings, TrainConfig, train
from holdout.training.models import ResNetPreactConfig, build_resnet_preact
from holdout.training.optim import LRSchedule, build_optimizer, build_scheduler, training_step

TINY = ResNetPreactConfig(depth=8, base_channels=4)


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step()`")
@pytest.mark.parametrize(
    "cfg",
    [
        TrainConfig(epochs=6, scheduler="multistep", milestones=(2, 4), lr_decay=0.1, base_lr=0.3),
        TrainConfig(epochs=6, scheduler="cosine", lr_min_factor=0.01, base_lr=0.05, optimizer="adam"),
    ],
    ids=["multistep", "cosine"],
)
def test_tensor_learning_rate_follows_the_float_schedule(cfg):
    """The device-tensor learning rate the graph reads takes, step by step, the float schedule's value
    (written in place: the tensor the graph holds is never replaced)."""
    net = build_resnet_preact(TINY)
    opt = build_optimizer(net, cfg)
    sched = build_scheduler(opt, cfg, steps_per_epoch=5)
    use_tensor_lr(opt, torch.device("cpu"))
    held = [g["lr"] for g in opt.param_groups]
    rule = LRSchedule(cfg.scheduler, 5, cfg.epochs, cfg.milestones, cfg.lr_decay, cfg.lr_min_factor)
    for step in range(cfg.epochs * 5):
        want = np.float32(cfg.base_lr * rule(step))
        assert all(g["lr"] is t for g, t in zip(opt.param_groups, held, strict=True))
        assert all(float(t) == want for t in held), step
        sched.step()


def test_graphs_fall_back_to_eager_off_cuda(caplog):
    with caplog.at_level(logging.INFO):
        assert graphs_available(torch.device("cpu"), True) is False
    assert "CUDA graphs need a CUDA device" in caplog.text
    assert (
        graphs_available(torch.device("cpu"), None) is False and graphs_available(torch.device("cpu"), False) is False
    )


def test_cuda_graphs_switch_on_cpu_trains_exactly_the_eager_run(tmp_path, synthetic):
    x, y = synthetic(96)
    cfg = TrainConfig(epochs=2, batch_size=32)
    runs = [
        train(
            TINY,
            cfg,
            x,
            y,
            RunSettings(tmp_path / f"o{g}", tmp_path / f"s{g}", seed=4, num_checkpoints=1, cuda_graphs=g),
        )
        for g in (False, True)
    ]
    assert runs[0].history[-1]["train_loss"] == runs[1].history[-1]["train_loss"]
    for p, q in zip(runs[0].model.state_dict().values(), runs[1].model.state_dict().values(), strict=True):
        assert torch.equal(p, q)


def _batches(make_synthetic, n_steps: int, aug: AugmentConfig, seed: int = 0):
    x, y = make_synthetic(16 * n_steps, seed=seed)
    gen, rng = torch.Generator().manual_seed(seed), np.random.default_rng(seed)
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    return [
        augment_batch(xt[i * 16 : (i + 1) * 16], yt[i * 16 : (i + 1) * 16], aug, 10, gen, rng) for i in range(n_steps)
    ]


@pytest.mark.parametrize("optimizer", ["nesterov", "sgd", "adam"])
def test_captured_step_function_equals_the_eager_step_on_cpu(optimizer, synthetic):
    """GraphStep's step function (static buffers, tensor learning rate, fused update: what the graph
    records), run without capture on the CPU, trains the weights the eager step trains (float
    tolerance: the fused and foreach updates round differently), BatchNorm statistics included."""
    aug = AugmentConfig(dual_cutout=optimizer == "adam", cutout_size=8, mixup=optimizer == "sgd")
    cfg = TrainConfig(epochs=2, batch_size=16, optimizer=optimizer, base_lr=0.05, weight_decay=1e-3, augment=aug)
    batches = _batches(synthetic, 8, aug)
    nets = []
    for graphed in (False, True):
        torch.manual_seed(0)
        net = build_resnet_preact(TINY).train()
        opt = build_optimizer(net, cfg)
        sched = build_scheduler(opt, cfg, steps_per_epoch=4)
        step = None
        if graphed:
            use_tensor_lr(opt, torch.device("cpu"))
            step = GraphStep(net, opt, aug.dual_cutout_alpha, torch.device("cpu"), False)
        for batch in batches:
            if step is None:
                training_step(net, opt, batch, aug.dual_cutout_alpha, "cpu", False)
            else:
                step(batch)
            sched.step()
        nets.append(net)
    for (name, p), q in zip(nets[0].state_dict().items(), nets[1].state_dict().values(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-5, msg=name)


def test_saved_state_is_the_eager_form():
    """A graph run's optimizer and scheduler state load into an eager optimizer unchanged, and back."""
    cfg = TrainConfig(epochs=2, optimizer="adam")
    net = build_resnet_preact(TINY)
    opt = build_optimizer(net, cfg)
    sched = build_scheduler(opt, cfg, 3)
    use_tensor_lr(opt, torch.device("cpu"))
    net(torch.zeros(2, 3, 16, 16)).sum().backward()
    opt.step()
    sched.step()
    saved = portable_optimizer_state(opt.state_dict())
    assert all(isinstance(g["lr"], float) and g["fused"] is None for g in saved["param_groups"])
    assert all(isinstance(v, float) for v in portable_scheduler_state(sched.state_dict())["_last_lr"])
    eager = build_optimizer(build_resnet_preact(TINY), cfg)
    eager.load_state_dict(saved)
    assert isinstance(eager.param_groups[0]["lr"], float)
    use_tensor_lr(eager, torch.device("cpu"))
    use_eager_lr(eager)
    assert eager.param_groups[0]["lr"] == saved["param_groups"][0]["lr"]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (pytest -m gpu on a GPU machine)")
def test_graph_loss_curve_matches_eager_over_200_steps(tmp_path, synthetic):
    """On CUDA (bf16 autocast), the graph run's per-step losses over the first 200 steps follow the
    eager run's: the same seed, data order and augmentation, so they differ only by bf16 rounding
    (and cuDNN's algorithm choices), which grows along the run; the mean absolute gap of the
    per-epoch losses stays within 0.05 nats and the last epoch within 0.1."""
    x, y = synthetic(128 * 25, size=32)
    cfg = TrainConfig(epochs=8, batch_size=128, base_lr=0.05)
    hist = {}
    for g in (False, True):
        s = RunSettings(tmp_path / f"o{g}", tmp_path / f"s{g}", seed=2, num_checkpoints=1, device="cuda", cuda_graphs=g)
        hist[g] = [r["train_loss"] for r in train(ResNetPreactConfig(depth=20), cfg, x, y, s).history]
    gaps = np.abs(np.array(hist[True]) - np.array(hist[False]))
    assert gaps.mean() < 0.05 and gaps[-1] < 0.1, (hist, gaps)
