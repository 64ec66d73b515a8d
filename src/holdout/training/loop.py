"""Training engine for Mania et al. (2019), Sec. 5.2 / Appendix D (Table 2).

Trains a `holdout.models.ResNetPreact` on in-memory uint8 images
(N x C x H x W, CIFAR layout) with every option of Table 2 and
hysts/pytorch_image_classification's defaults elsewhere (160 epochs, batch 128,
SGD + Nesterov momentum 0.9, lr 0.1, weight decay 1e-4, decay x0.1 at epochs
80 and 120, crop 4 + flip, last incomplete batch dropped).

Products of [`train`][holdout.training.loop.train] (in ``out_dir``):

- ``checkpoint_01.pt`` ... ``checkpoint_K.pt``: the weights at K evenly spaced
  epochs (Mania et al. take 10 per model), each with the model and training
  configuration, the epoch, the seed and what test time needs
  (normalisation, input layout, number of classes); read with
  [`load_checkpoint`][holdout.training.loop.load_checkpoint].
- ``training_log.csv``: one row per epoch (loss, accuracy, lr, images/s, wall time).

Resumable state (model, optimizer, scheduler, all RNG states, epoch, the log
so far and copies of the checkpoints written so far) goes to ``state_dir`` (not
a declared Snakemake output, since Snakemake deletes a failed job's outputs),
atomically at every epoch boundary. Starting [`train`][holdout.training.loop.train] again with the same
arguments continues from it; on CPU the result is bit-identical to an
uninterrupted run. The state is removed once training completes.

Structure: [`train`][holdout.training.loop.train] takes the run's settings as one frozen
    [`RunSettings`][holdout.training.loop.RunSettings], resolves
the device plan ([`holdout.training.device.execution_plan`][holdout.training.device.execution_plan]), checks the data
([`holdout.training.inputs.check_training_data`][holdout.training.inputs.check_training_data]), then runs set-up
(``set_up``), resume
(``resume``), one epoch at a time (``_run_epoch``), the epoch-boundary writes (``save_epoch``:
checkpoint, state, log) and ``finish``, the last four in
[`holdout.training.run_state`][holdout.training.run_state]. The optimisation
([`TrainConfig`][holdout.training.loop.TrainConfig], optimizer, schedule, loss) is in
[`holdout.training.optim`][holdout.training.optim], the checkpoint files in
[`holdout.training.checkpoints`][holdout.training.checkpoints], inference in
[`holdout.training.evaluation`][holdout.training.evaluation]; their public names are importable from here too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn
from tqdm import tqdm

from holdout.training.augment import augment_batch
from holdout.training.cap import WorkCap
from holdout.training.checkpoints import (
    LOG_FIELDS,
    LOG_NAME,
    STATE_NAME,
    checkpoint_epochs,
    checkpoint_paths,
    load_checkpoint,
)
from holdout.training.device import (
    execution_plan,
    memory_format_for,
    select_device,
)
from holdout.training.evaluation import evaluate, predict
from holdout.training.graphs import GraphStep, graphs_available, use_tensor_lr
from holdout.training.inputs import TrainingData, check_training_data
from holdout.training.models import ResNetPreact, ResNetPreactConfig
from holdout.training.optim import (
    LRSchedule,
    TrainConfig,
    build_optimizer,
    build_scheduler,
    parameter_groups,
    soft_cross_entropy,
    training_loss,
    training_step,
)
from holdout.training.progress import log_progress
from holdout.training.registry import ModelSpec, describe_model
from holdout.training.run_state import Job as _Job
from holdout.training.run_state import RunState as _RunState
from holdout.training.run_state import finish as _finish
from holdout.training.run_state import resume as _resume
from holdout.training.run_state import save_epoch as _save_epoch
from holdout.training.run_state import set_up as _set_up

__all__ = [
    "LOG_FIELDS",
    "LOG_NAME",
    "STATE_NAME",
    "LRSchedule",
    "RunSettings",
    "TrainConfig",
    "TrainResult",
    "build_optimizer",
    "build_scheduler",
    "checkpoint_epochs",
    "checkpoint_paths",
    "load_checkpoint",
    "memory_format_for",
    "parameter_groups",
    "predict",
    "select_device",
    "soft_cross_entropy",
    "train",
    "training_loss",
    "training_step",
]


@dataclass(frozen=True)
class TrainResult:
    model: ResNetPreact
    history: list[dict[str, float]]
    checkpoints: list[Path]
    log_path: Path
    resumed_from_epoch: int


# --------------------------------------------------------------------------- training


@dataclass(frozen=True)
class RunSettings:
    """Where one [`train`][holdout.training.loop.train] run writes and how it executes (checked once, on construction).

    ``out_dir``: checkpoints and ``training_log.csv`` (Snakemake outputs); ``state_dir``: the
    resumable state (must differ: Snakemake deletes a failed job's outputs). ``seed`` fixes the
    initial weights, the data order, every augmentation draw and mixup's lambda. ``device``,
    ``channels_last``, ``autocast``, ``compile``: ``None`` picks the device's default
    ([`holdout.training.device.execution_plan`][holdout.training.device.execution_plan]).
    ``cuda_graphs``: record the whole step as a CUDA graph and replay it
    ([`holdout.training.graphs`][holdout.training.graphs]; CUDA only, elsewhere the eager step;
    ``None``/``False``: eager). ``threads``:
    ``torch.set_num_threads``.
    ``progress_every``: progress reports per epoch. ``extra_metadata`` is stored in every checkpoint.
    ``cap``: the dress rehearsal's [`WorkCap`][holdout.training.cap.WorkCap] (fewer epochs, steps
    and images per step; the recipe and the network unchanged), ``None``: the whole run.
    """

    out_dir: Path
    state_dir: Path
    seed: int = 0
    num_checkpoints: int = 10
    device: str | torch.device | None = None
    threads: int | None = None
    channels_last: bool | None = None
    autocast: bool | None = None
    compile: bool | None = None
    cuda_graphs: bool | None = None
    keep_state: bool = False
    progress_every: int = 10
    extra_metadata: Mapping[str, Any] = field(default_factory=dict)
    cap: WorkCap | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        object.__setattr__(self, "state_dir", Path(self.state_dir))
        object.__setattr__(self, "extra_metadata", dict(self.extra_metadata or {}))
        if self.out_dir.resolve() == self.state_dir.resolve():
            raise ValueError("train: state_dir must differ from out_dir (Snakemake deletes a failed job's outputs)")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"train: threads must be >= 1, got {self.threads}")

    @property
    def state_path(self) -> Path:
        return self.state_dir / STATE_NAME


def _run_epoch(job: _Job, run: _RunState, fwd: nn.Module, epoch: int, bar: tqdm) -> dict[str, float]:
    """One pass over a fresh permutation of the data (augment, step, schedule); the log row of ``epoch``."""
    cfg, data, plan, aug = job.config, job.data, job.plan, job.config.augment
    steps, bs = data.steps_per_epoch, cfg.batch_size
    t0 = time.perf_counter()
    lr = float(run.optimizer.param_groups[0]["lr"])
    perm = torch.randperm(data.images.shape[0], generator=run.order_gen)[: steps * bs].to(plan.device)
    loss_sum = torch.zeros((), device=plan.device, dtype=torch.float64)
    correct = torch.zeros((), device=plan.device, dtype=torch.int64)
    seen = reported = 0
    report = max(1, steps // max(1, job.settings.progress_every))
    for step in range(steps):
        idx = perm[step * bs : (step + 1) * bs]
        batch = augment_batch(
            data.images[idx],
            data.labels[idx],
            aug,
            job.model_config.num_classes,
            run.aug_gen,
            run.mix_rng,
            plan.memory_format,
        )
        if run.step_fn is not None:
            loss, logits = run.step_fn(batch)
        else:
            loss, logits = training_step(
                fwd, run.optimizer, batch, aug.dual_cutout_alpha, plan.device.type, plan.autocast
            )
        run.scheduler.step()
        seen += idx.shape[0]
        loss_sum += loss.detach().double() * idx.shape[0]
        correct += (logits[0].detach().argmax(1) == batch.hard_labels).sum()
        if (step + 1) % report == 0 or step + 1 == steps:
            bar.set_postfix_str(
                f"epoch {epoch}/{cfg.epochs} loss {float(loss_sum) / seen:.4f} acc {int(correct) / seen:.4f}",
                refresh=False,
            )
            bar.update((step + 1 - reported) * bs)
            reported = step + 1
    epoch_time = time.perf_counter() - t0
    row: dict[str, float] = {
        "epoch": epoch,
        "train_loss": float(loss_sum) / seen,
        "train_accuracy": int(correct) / seen,
        "lr": lr,
        "images_per_s": seen / epoch_time,
        "epoch_time_s": epoch_time,
    }
    if data.test_images is not None and data.test_labels is not None:
        row["test_loss"], row["test_accuracy"] = evaluate(
            fwd, data.test_images, data.test_labels, aug, 1024, plan.device, plan.memory_format, plan.autocast
        )
    return row


def _capped(config: TrainConfig, settings: RunSettings, log: logging.Logger) -> tuple[TrainConfig | None, TrainConfig]:
    """(the recipe, what runs): the recipe itself without an active cap, else (recipe, capped)."""
    cap = settings.cap
    if cap is None or not cap.active:
        return None, config
    run = cap.apply(config, settings.num_checkpoints)
    log.info(
        "work cap %s: %d of %d epochs, batch %d of %d",
        cap.to_dict(),
        run.epochs,
        config.epochs,
        run.batch_size,
        config.batch_size,
    )
    return config, run


def _capped_data(data: TrainingData, cap: WorkCap | None) -> TrainingData:
    """At most ``cap.steps_per_epoch`` steps per epoch; the cap joins the run's fingerprint."""
    assert cap is not None
    fingerprint = hashlib.sha256(f"{data.fingerprint}{json.dumps(cap.to_dict(), sort_keys=True)}".encode()).hexdigest()
    return dataclasses.replace(data, steps_per_epoch=cap.steps(data.steps_per_epoch), fingerprint=fingerprint)


def _forward_and_step(job: _Job, run: _RunState, log: logging.Logger) -> nn.Module:
    """The module each step forwards (compiled when asked); with CUDA graphs also ``run.step_fn``, the
    whole step recorded once and replayed ([`holdout.training.graphs`][holdout.training.graphs])."""
    plan = job.plan
    if graphs_available(plan.device, job.settings.cuda_graphs, log):
        if plan.compile:
            log.info("cuda_graphs: the step is recorded as a CUDA graph; torch.compile is not applied")
        use_tensor_lr(run.optimizer, plan.device)
        run.step_fn = GraphStep(
            run.net, run.optimizer, job.config.augment.dual_cutout_alpha, plan.device, plan.autocast
        )
        return run.net
    return torch.compile(run.net) if plan.compile else run.net  # type: ignore[return-value]


def _log_start(job: _Job, run_graphs: bool, log: logging.Logger) -> None:
    cfg, plan = job.config, job.plan
    log.info(
        "training %s: %d images, %d epochs x %d steps, batch %d, %s on %s "
        "(threads %d, channels_last %s, bf16 %s, compile %s, cuda graphs %s)",
        describe_model(job.model_config),
        job.data.images.shape[0],
        cfg.epochs,
        job.data.steps_per_epoch,
        cfg.batch_size,
        cfg.optimizer,
        plan.device,
        torch.get_num_threads(),
        plan.channels_last,
        plan.autocast,
        plan.compile,
        run_graphs,
    )


def train(
    model_config: ResNetPreactConfig | ModelSpec,
    config: TrainConfig,
    images: Any,
    labels: Any,
    settings: RunSettings,
    *,
    test_images: Any = None,
    test_labels: Any = None,
    log: logging.Logger | None = None,
) -> TrainResult:
    """Train one model and write its K checkpoints and per-epoch log to ``settings.out_dir``.

    ``images``: uint8 N x C x H x W (numpy or torch), ``labels``: N class indices; they are
    moved once to the training device. ``settings`` ([`RunSettings`][holdout.training.loop.RunSettings]): where to
    write, the
    seed, K, and the device switches (``device=None``/``"auto"`` picks cuda, mps or cpu;
    ``channels_last`` follows [`holdout.training.device.memory_format_for`][holdout.training.device.memory_format_for];
    ``autocast``
    (bf16) defaults to on for CUDA only, ``compile`` to off; ``threads``: Snakemake's ``threads``).
    ``test_images/test_labels`` (optional) are evaluated after each epoch (log columns
    ``test_loss``, ``test_accuracy``; also in checkpoints). Progress goes to ``log`` as a tqdm bar
    (``settings.progress_every`` lines per epoch) and one line per epoch. If
    ``settings.state_dir`` holds the state of an interrupted run with the same arguments,
    training continues from it.
    """
    log = log or logging.getLogger("holdout.training.loop")
    plan = execution_plan(
        model_config, settings.device, settings.channels_last, settings.autocast, settings.compile, log
    )
    if settings.threads is not None:
        torch.set_num_threads(int(settings.threads))
    if plan.device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    recipe, config = _capped(config, settings, log)
    data = check_training_data(
        model_config,
        config,
        (settings.seed, settings.num_checkpoints),
        images,
        labels,
        test_images,
        test_labels,
        plan.device,
    )
    if recipe is not None:
        data = _capped_data(data, settings.cap)
    job = _Job(
        model_config,
        config,
        settings,
        plan,
        data,
        checkpoint_epochs(config.epochs, settings.num_checkpoints),
        checkpoint_paths(settings.out_dir, settings.num_checkpoints),
        recipe,
    )
    run = _set_up(job)
    _resume(job, run, log)
    fwd = _forward_and_step(job, run, log)
    _log_start(job, run.step_fn is not None, log)
    wall0 = time.perf_counter() - (run.history[-1]["wall_time_s"] if run.history else 0.0)
    images_per_epoch = data.steps_per_epoch * config.batch_size
    run.net.train()
    with log_progress(
        log,
        config.epochs * images_per_epoch,
        initial=run.start_epoch * images_per_epoch,
        desc=f"train {describe_model(model_config)}",
        unit="img",
    ) as bar:
        for epoch in range(run.start_epoch + 1, config.epochs + 1):
            row = _run_epoch(job, run, fwd, epoch, bar)
            if not math.isfinite(row["train_loss"]):
                log.warning("epoch %d: training loss is not finite (diverged)", epoch)
            row["wall_time_s"] = time.perf_counter() - wall0
            run.history.append(row)
            log.info(
                "epoch %d/%d done: %s",
                epoch,
                config.epochs,
                ", ".join(f"{k} {v:.4g}" for k, v in row.items() if k != "epoch"),
            )
            _save_epoch(job, run, epoch, row, log)
    _finish(job, run)
    run.net.eval()
    return TrainResult(
        model=run.net,
        history=run.history,
        checkpoints=job.checkpoint_paths,
        log_path=settings.out_dir / LOG_NAME,
        resumed_from_epoch=run.start_epoch,
    )
