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
(``_set_up``), resume
(``_resume``), one epoch at a time (``_run_epoch``), the epoch-boundary writes (``_save_epoch``:
checkpoint, state, log) and ``_finish``. The optimisation ([`TrainConfig`][holdout.training.loop.TrainConfig],
optimizer,
schedule, loss) is in [`holdout.training.optim`][holdout.training.optim], the checkpoint files in
[`holdout.training.checkpoints`][holdout.training.checkpoints], inference in
[`holdout.training.evaluation`][holdout.training.evaluation]; their
public names are importable from here too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from holdout.training.augment import augment_batch
from holdout.training.cap import WorkCap
from holdout.training.checkpoints import (
    LOG_FIELDS,
    LOG_NAME,
    STATE_NAME,
    atomic_copy,
    atomic_save,
    checkpoint_epochs,
    checkpoint_paths,
    cpu_state,
    load_checkpoint,
    write_log,
)
from holdout.training.device import (
    ExecutionPlan,
    execution_plan,
    memory_format_for,
    select_device,
)
from holdout.training.evaluation import evaluate, predict
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
from holdout.training.registry import ModelSpec, build_network, describe_model

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
    ([`holdout.training.device.execution_plan`][holdout.training.device.execution_plan]). ``threads``:
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


@dataclass(frozen=True)
class _Job:
    """Everything fixed for one run once its inputs are checked."""

    model_config: ResNetPreactConfig
    config: TrainConfig
    settings: RunSettings
    plan: ExecutionPlan
    data: TrainingData
    checkpoint_epochs: list[int]
    checkpoint_paths: list[Path]
    recipe: TrainConfig | None = None


@dataclass
class _RunState:
    """What changes during a run and is saved at every epoch boundary."""

    net: ResNetPreact
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LambdaLR
    order_gen: torch.Generator
    aug_gen: torch.Generator
    mix_rng: np.random.Generator
    history: list[dict[str, float]] = field(default_factory=list)
    start_epoch: int = 0


def _set_up(job: _Job) -> _RunState:
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
    return _RunState(
        net=net,
        optimizer=optimizer,
        scheduler=build_scheduler(optimizer, job.config, job.data.steps_per_epoch),
        order_gen=torch.Generator().manual_seed(order_seed),
        aug_gen=torch.Generator(device=job.plan.device).manual_seed(aug_seed),
        mix_rng=np.random.default_rng(mix_seed),
    )


def _layer_rng_state(device: torch.device) -> torch.Tensor:
    """State of torch's global generator on ``device`` (where the layers draw their noise)."""
    device = torch.device(device)
    return torch.cuda.get_rng_state(device) if device.type == "cuda" else torch.get_rng_state()


def _set_layer_rng_state(state: torch.Tensor, device: torch.device) -> None:
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.set_rng_state(state.cpu(), device)
    else:
        torch.set_rng_state(state.cpu())


def _resume(job: _Job, run: _RunState, log: logging.Logger) -> None:
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
        _set_layer_rng_state(state["layer_rng"], job.plan.device)
    run.history = list(state["history"])
    run.start_epoch = int(state["epoch"])
    log.info("resuming from %s at epoch %d/%d", path, run.start_epoch, job.config.epochs)


def _run_epoch(job: _Job, run: _RunState, fwd: nn.Module, epoch: int, bar: tqdm) -> dict[str, float]:
    """One pass over a fresh permutation of the data (augment, step, schedule); the log row of ``epoch``."""
    cfg, data, plan, aug = job.config, job.data, job.plan, job.config.augment
    steps, bs = data.steps_per_epoch, cfg.batch_size
    t0 = time.perf_counter()
    lr = run.optimizer.param_groups[0]["lr"]
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
        loss, logits = training_step(fwd, run.optimizer, batch, aug.dual_cutout_alpha, plan.device.type, plan.autocast)
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


def _checkpoint_metadata(job: _Job) -> dict[str, Any]:
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


def _save_epoch(job: _Job, run: _RunState, epoch: int, row: dict[str, float], log: logging.Logger) -> None:
    """At an epoch boundary: the checkpoint (if ``epoch`` is one), the resumable state, the log."""
    settings = job.settings
    if epoch in job.checkpoint_epochs:
        k = job.checkpoint_epochs.index(epoch)
        path = job.checkpoint_paths[k]
        ckpt = {
            "model_state": cpu_state(run.net),
            **_checkpoint_metadata(job),
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
            "optimizer": run.optimizer.state_dict(),
            "scheduler": run.scheduler.state_dict(),
            "order_gen": run.order_gen.get_state(),
            "aug_gen": run.aug_gen.get_state().cpu(),
            "mix_rng": run.mix_rng.bit_generator.state,
            "layer_rng": _layer_rng_state(job.plan.device),
            "history": run.history,
        },
        settings.state_path,
    )
    write_log(settings.out_dir / LOG_NAME, run.history)


def _finish(job: _Job, run: _RunState) -> None:
    """Restore checkpoints a restarted job lost, write the final log, drop the state unless kept."""
    settings = job.settings
    for p in job.checkpoint_paths:
        if not p.exists():
            atomic_copy(settings.state_dir / "checkpoints" / p.name, p)
    write_log(settings.out_dir / LOG_NAME, run.history)
    if not settings.keep_state:
        settings.state_path.unlink(missing_ok=True)
        shutil.rmtree(settings.state_dir / "checkpoints", ignore_errors=True)


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


def _log_start(job: _Job, log: logging.Logger) -> None:
    cfg, plan = job.config, job.plan
    log.info(
        "training %s: %d images, %d epochs x %d steps, batch %d, %s on %s "
        "(threads %d, channels_last %s, bf16 %s, compile %s)",
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
    fwd: nn.Module = torch.compile(run.net) if plan.compile else run.net  # type: ignore[assignment]
    _log_start(job, log)
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
