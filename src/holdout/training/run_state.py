"""One [`train`][holdout.training.loop.train] run's fixed job, its changing state, and their epoch-boundary files.

[`Job`][holdout.training.run_state.Job] is everything fixed once a run's inputs are checked;
[`RunState`][holdout.training.run_state.RunState] what changes during it (model, optimizer,
scheduler, the RNG streams, the log so far). [`set_up`][holdout.training.run_state.set_up] builds a
fresh state from the job's seed, [`resume`][holdout.training.run_state.resume] loads an interrupted
run's saved state, [`save_epoch`][holdout.training.run_state.save_epoch] writes the checkpoint, the
resumable state and the log at an epoch boundary and [`finish`][holdout.training.run_state.finish]
restores lost checkpoints and drops the state.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from holdout.training.checkpoints import LOG_NAME, atomic_copy, atomic_save, cpu_state, write_log
from holdout.training.device import ExecutionPlan
from holdout.training.graphs import portable_optimizer_state, portable_scheduler_state
from holdout.training.inputs import TrainingData
from holdout.training.models import ResNetPreact, ResNetPreactConfig
from holdout.training.optim import TrainConfig, build_optimizer, build_scheduler
from holdout.training.registry import build_network

__all__ = [
    "Job",
    "RunState",
    "checkpoint_metadata",
    "finish",
    "layer_rng_state",
    "resume",
    "save_epoch",
    "set_layer_rng_state",
    "set_up",
]


@dataclass(frozen=True)
class Job:
    """Everything fixed for one run once its inputs are checked."""

    model_config: ResNetPreactConfig
    config: TrainConfig
    settings: Any  # holdout.training.loop.RunSettings (loop imports this module: no import back)
    plan: ExecutionPlan
    data: TrainingData
    checkpoint_epochs: list[int]
    checkpoint_paths: list[Path]
    recipe: TrainConfig | None = None


@dataclass
class RunState:
    """What changes during a run and is saved at every epoch boundary."""

    net: ResNetPreact
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LambdaLR
    order_gen: torch.Generator
    aug_gen: torch.Generator
    mix_rng: np.random.Generator
    history: list[dict[str, float]] = field(default_factory=list)
    start_epoch: int = 0
    step_fn: Any = None  # a GraphStep when the run uses CUDA graphs, else None (the eager step)


def set_up(job: Job) -> RunState:
    """Fresh model, optimizer, scheduler and the RNG streams of ``job``'s seed.

    Independent seeds for init, data order, augmentation, mixup's lambda and the layers' own noise
    (shake-shake's alpha and beta, dropout), which torch draws from its global generator: that one
    is seeded here too, so a run is reproducible whatever the process drew before.
    """
    init_seed, order_seed, aug_seed, mix_seed, layer_seed = (
        int(s) for s in np.random.SeedSequence(job.settings.seed).generate_state(5)
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed)
        net = build_network(job.model_config)
    torch.manual_seed(layer_seed)
    net.to(job.plan.device).to(memory_format=job.plan.memory_format)
    optimizer = build_optimizer(net, job.config)
    return RunState(
        net=net,
        optimizer=optimizer,
        scheduler=build_scheduler(optimizer, job.config, job.data.steps_per_epoch),
        order_gen=torch.Generator().manual_seed(order_seed),
        aug_gen=torch.Generator(device=job.plan.device).manual_seed(aug_seed),
        mix_rng=np.random.default_rng(mix_seed),
    )


def layer_rng_state(device: torch.device) -> torch.Tensor:
    """State of torch's global generator on ``device`` (where the layers draw their noise)."""
    device = torch.device(device)
    return torch.cuda.get_rng_state(device) if device.type == "cuda" else torch.get_rng_state()


def set_layer_rng_state(state: torch.Tensor, device: torch.device) -> None:
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.set_rng_state(state.cpu(), device)
    else:
        torch.set_rng_state(state.cpu())


def resume(job: Job, run: RunState, log: logging.Logger) -> None:
    """Load the saved state of an interrupted run of the same job into ``run`` (if there is one)."""
    path = job.settings.state_path
    if not path.exists():
        return
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:
        raise ValueError(f"{path}: unreadable training state ({exc}); delete it to start afresh") from exc
    if state.get("fingerprint") != job.data.fingerprint:
        raise ValueError(
            f"{path}: training state belongs to another run (configuration, seed or data differ); "
            "delete it to start afresh"
        )
    run.net.load_state_dict(state["model"])
    run.optimizer.load_state_dict(state["optimizer"])
    run.scheduler.load_state_dict(state["scheduler"])
    run.order_gen.set_state(state["order_gen"])
    run.aug_gen.set_state(state["aug_gen"].to(run.aug_gen.get_state().device))
    run.mix_rng.bit_generator.state = state["mix_rng"]
    if "layer_rng" in state:  # states written before the layers' generator was saved lack it
        set_layer_rng_state(state["layer_rng"], job.plan.device)
    run.history = list(state["history"])
    run.start_epoch = int(state["epoch"])
    log.info("resuming from %s at epoch %d/%d", path, run.start_epoch, job.config.epochs)


def checkpoint_metadata(job: Job) -> dict[str, Any]:
    """What every checkpoint of ``job`` carries besides its weights, epoch and metrics."""
    aug, mc = job.config.augment, job.model_config
    capped = {}
    if job.recipe is not None and job.settings.cap is not None:
        capped = {"work_cap": job.settings.cap.to_dict(), "run_train_config": job.config.to_dict()}
    return {
        "model_config": mc.to_dict(),
        "train_config": (job.recipe or job.config).to_dict(),
        **capped,
        "seed": int(job.settings.seed),
        "num_checkpoints": int(job.settings.num_checkpoints),
        "checkpoint_epochs": job.checkpoint_epochs,
        "test_time": {
            "input": "uint8 RGB images N x C x H x W; x / 255, then (x - mean) / std per channel",
            "mean": list(aug.mean),
            "std": list(aug.std),
            "image_size": list(job.data.images.shape[2:]),
            "num_classes": mc.num_classes,
        },
        "train_examples": int(job.data.images.shape[0]),
        "torch_version": str(torch.__version__),
        "device": str(job.plan.device),
        **job.settings.extra_metadata,
    }


def save_epoch(job: Job, run: RunState, epoch: int, row: dict[str, float], log: logging.Logger) -> None:
    """At an epoch boundary: the checkpoint (if ``epoch`` is one), the resumable state, the log."""
    settings = job.settings
    if epoch in job.checkpoint_epochs:
        k = job.checkpoint_epochs.index(epoch)
        path = job.checkpoint_paths[k]
        ckpt = {
            "model_state": cpu_state(run.net),
            **checkpoint_metadata(job),
            "epoch": epoch,
            "index": k + 1,
            "metrics": dict(row),
        }
        atomic_save(ckpt, settings.state_dir / "checkpoints" / path.name)
        atomic_copy(settings.state_dir / "checkpoints" / path.name, path)
        log.info("checkpoint %d/%d (epoch %d) -> %s", k + 1, settings.num_checkpoints, epoch, path)
    atomic_save(
        {
            "fingerprint": job.data.fingerprint,
            "epoch": epoch,
            "model": cpu_state(run.net),
            "optimizer": portable_optimizer_state(run.optimizer.state_dict()),
            "scheduler": portable_scheduler_state(run.scheduler.state_dict()),
            "order_gen": run.order_gen.get_state(),
            "aug_gen": run.aug_gen.get_state().cpu(),
            "mix_rng": run.mix_rng.bit_generator.state,
            "layer_rng": layer_rng_state(job.plan.device),
            "history": run.history,
        },
        settings.state_path,
    )
    write_log(settings.out_dir / LOG_NAME, run.history)


def finish(job: Job, run: RunState) -> None:
    """Restore checkpoints a restarted job lost, write the final log, drop the state unless kept."""
    settings = job.settings
    for p in job.checkpoint_paths:
        if not p.exists():
            atomic_copy(settings.state_dir / "checkpoints" / p.name, p)
    write_log(settings.out_dir / LOG_NAME, run.history)
    if not settings.keep_state:
        settings.state_path.unlink(missing_ok=True)
        shutil.rmtree(settings.state_dir / "checkpoints", ignore_errors=True)
