"""Training engine for Mania et al. (2019), Sec. 5.2 / Appendix D (Table 2).

Trains a :class:`holdout.models.ResNetPreact` on in-memory uint8 images
(N x C x H x W, CIFAR layout) with every option of Table 2 and
hysts/pytorch_image_classification's defaults elsewhere (160 epochs, batch 128,
SGD + Nesterov momentum 0.9, lr 0.1, weight decay 1e-4, decay x0.1 at epochs
80 and 120, crop 4 + flip, last incomplete batch dropped).

Products of :func:`train` (in ``out_dir``):

- ``checkpoint_01.pt`` ... ``checkpoint_K.pt``: the weights at K evenly spaced
  epochs (Mania et al. take 10 per model), each with the model and training
  configuration, the epoch, the seed and what test time needs
  (normalisation, input layout, number of classes); read with :func:`load_checkpoint`.
- ``training_log.csv``: one row per epoch (loss, accuracy, lr, images/s, wall time).

Resumable state (model, optimizer, scheduler, all RNG states, epoch, the log
so far and copies of the checkpoints written so far) goes to ``state_dir`` (not
a declared Snakemake output, since Snakemake deletes a failed job's outputs),
atomically at every epoch boundary. Starting :func:`train` again with the same
arguments continues from it; on CPU the result is bit-identical to an
uninterrupted run. The state is removed once training completes.

Structure: :func:`train` checks its keyword arguments into a frozen :class:`RunSettings` and
calls :func:`train_run`, which resolves the device plan
(:func:`holdout.training.device.execution_plan`), then runs set-up (``_set_up``), resume
(``_resume``), one epoch at a time (``_run_epoch``) and the epoch-boundary writes
(``_save_epoch``: checkpoint, state, log), and ``_finish``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import math
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm

from holdout.training.augment import (
    CIFAR10_MEAN,
    CIFAR10_STD,
    AugmentConfig,
    AugmentedBatch,
    augment_batch,
    normalize,
)
from holdout.training.device import (
    ExecutionPlan,
    execution_plan,
    memory_format_for,
    select_device,
)
from holdout.training.models import (
    ResNetPreact,
    ResNetPreactConfig,
)
from holdout.training.naming import checkpoint_epochs, checkpoint_paths
from holdout.training.progress import log_progress
from holdout.training.registry import ModelSpec, build_network, describe_model, model_config_from_dict

__all__ = [
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
    "train",
    "train_run",
    "training_loss",
    "training_step",
]

LOG_NAME = "training_log.csv"
STATE_NAME = "state.pt"
LOG_FIELDS = (
    "epoch",
    "train_loss",
    "train_accuracy",
    "lr",
    "images_per_s",
    "epoch_time_s",
    "wall_time_s",
    "test_loss",
    "test_accuracy",
)

OptimizerName = Literal["sgd", "momentum", "nesterov", "adam"]
SchedulerName = Literal["multistep", "cosine"]


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation and augmentation settings (defaults: hysts' ResNet-preact CIFAR config).

    ``optimizer``: ``"sgd"`` (plain SGD, no momentum), ``"momentum"`` (heavy ball,
    ``momentum``), ``"nesterov"`` (Nesterov momentum, ``momentum``), ``"adam"``
    (``adam_betas``) -- Table 2's {SGD, SGD with momentum, Nesterov GD, Adam}.
    ``weight_decay_bn=False`` exempts BatchNorm weights and biases from weight
    decay (Table 2: "Use weight decay with batch norm"). ``scheduler``:
    ``"multistep"`` multiplies the lr by ``lr_decay`` at each epoch in
    ``milestones`` (Table 2's "Fixed Decay"), ``"cosine"`` anneals it per step
    from ``base_lr`` to ``lr_min_factor * base_lr`` (default 0: hysts' argparse-era
    ``--lr_min 0``, commit 1d76092).
    """

    epochs: int = 160
    batch_size: int = 128
    optimizer: OptimizerName = "nesterov"
    base_lr: float = 0.1
    momentum: float = 0.9
    adam_betas: tuple[float, float] = (0.9, 0.999)
    weight_decay: float = 1e-4
    weight_decay_bn: bool = True
    scheduler: SchedulerName = "multistep"
    milestones: tuple[int, ...] = (80, 120)
    lr_decay: float = 0.1
    lr_min_factor: float = 0.0
    augment: AugmentConfig = field(default_factory=AugmentConfig)

    def __post_init__(self) -> None:
        object.__setattr__(self, "adam_betas", tuple(float(b) for b in self.adam_betas))
        object.__setattr__(self, "milestones", tuple(int(m) for m in self.milestones))
        if isinstance(self.augment, dict):
            object.__setattr__(self, "augment", AugmentConfig.from_dict(self.augment))
        checks = [
            (self.epochs >= 1, "epochs must be >= 1"),
            (self.batch_size >= 1, "batch_size must be >= 1"),
            (
                self.optimizer in ("sgd", "momentum", "nesterov", "adam"),
                f"optimizer must be sgd, momentum, nesterov or adam, got {self.optimizer!r}",
            ),
            (self.base_lr > 0, "base_lr must be > 0"),
            (0.0 <= self.momentum < 1.0, "momentum must be in [0, 1)"),
            (
                len(self.adam_betas) == 2 and all(0.0 <= b < 1.0 for b in self.adam_betas),
                "adam_betas must be in [0, 1)",
            ),
            (self.weight_decay >= 0, "weight_decay must be >= 0"),
            (
                self.scheduler in ("multistep", "cosine"),
                f"scheduler must be multistep or cosine, got {self.scheduler!r}",
            ),
            (
                all(m >= 1 for m in self.milestones) and list(self.milestones) == sorted(set(self.milestones)),
                "milestones must be increasing positive epochs",
            ),
            (0.0 < self.lr_decay <= 1.0, "lr_decay must be in (0, 1]"),
            (0.0 <= self.lr_min_factor <= 1.0, "lr_min_factor must be in [0, 1]"),
        ]
        for ok, msg in checks:
            if not ok:
                raise ValueError(f"TrainConfig: {msg}")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["adam_betas"] = list(self.adam_betas)
        d["milestones"] = list(self.milestones)
        d["augment"] = self.augment.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"TrainConfig: unknown keys {sorted(unknown)}")
        d = dict(d)
        if "augment" in d and isinstance(d["augment"], dict):
            d["augment"] = AugmentConfig.from_dict(d["augment"])
        return cls(**d)


@dataclass(frozen=True)
class TrainResult:
    model: ResNetPreact
    history: list[dict[str, float]]
    checkpoints: list[Path]
    log_path: Path
    resumed_from_epoch: int


# --------------------------------------------------------------------------- optimisation


def parameter_groups(model: nn.Module, weight_decay: float, decay_bn: bool) -> list[dict[str, Any]]:
    """Optimizer parameter groups; with ``decay_bn=False`` every parameter whose name contains
    ``"bn"`` gets weight decay 0.

    This is hysts' ``--no_weight_decay_on_bn`` of the argparse-era ``train.py`` (commit
    1d76092); in :class:`ResNetPreact` (modules ``bn``, ``bn1`` .. ``bn4``) it selects exactly
    the BatchNorm weights and biases; convolutions and the classifier stay decayed.
    """
    if decay_bn:
        return [{"params": [p for p in model.parameters() if p.requires_grad], "weight_decay": weight_decay}]
    named = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
    decayed = [p for name, p in named if "bn" not in name]
    undecayed = [p for name, p in named if "bn" in name]
    return [{"params": decayed, "weight_decay": weight_decay}, {"params": undecayed, "weight_decay": 0.0}]


def build_optimizer(model: nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    """The optimizer of ``config`` over ``model`` (see :class:`TrainConfig`)."""
    groups = parameter_groups(model, config.weight_decay, config.weight_decay_bn)
    if config.optimizer == "adam":
        return torch.optim.Adam(groups, lr=config.base_lr, betas=config.adam_betas)
    momentum = 0.0 if config.optimizer == "sgd" else config.momentum
    nesterov = config.optimizer == "nesterov"
    if nesterov and momentum <= 0:
        raise ValueError("TrainConfig: nesterov needs momentum > 0")
    return torch.optim.SGD(groups, lr=config.base_lr, momentum=momentum, nesterov=nesterov)


@dataclass(frozen=True)
class LRSchedule:
    """Learning-rate factor per optimizer step (multiplies ``base_lr``).

    multistep: ``lr_decay ** #{m in milestones : step >= m * steps_per_epoch}``;
    cosine: ``f + (1 - f) * (1 + cos(pi * step / total_steps)) / 2`` with
    ``f = lr_min_factor`` (hysts' ``cosine_annealing``, per step).
    """

    kind: str
    steps_per_epoch: int
    epochs: int
    milestones: tuple[int, ...] = ()
    lr_decay: float = 0.1
    lr_min_factor: float = 0.0

    def __call__(self, step: int) -> float:
        if self.kind == "multistep":
            passed = sum(1 for m in self.milestones if step >= m * self.steps_per_epoch)
            return self.lr_decay**passed
        total = self.epochs * self.steps_per_epoch
        f = self.lr_min_factor
        return f + (1.0 - f) * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))


def build_scheduler(
    optimizer: torch.optim.Optimizer, config: TrainConfig, steps_per_epoch: int
) -> torch.optim.lr_scheduler.LambdaLR:
    """Per-step ``LambdaLR`` with :class:`LRSchedule` (stepped after every optimizer step)."""
    sched = LRSchedule(
        config.scheduler, steps_per_epoch, config.epochs, config.milestones, config.lr_decay, config.lr_min_factor
    )
    return torch.optim.lr_scheduler.LambdaLR(optimizer, sched)


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``-sum_c t_c log softmax(z)_c`` (targets rows sum to 1)."""
    return -(targets * F.log_softmax(logits.float(), dim=1)).sum(dim=1).mean()


def training_loss(
    logits: Sequence[torch.Tensor], targets: torch.Tensor, dual_cutout_alpha: float = 0.1
) -> torch.Tensor:
    """Training loss on one or two views.

    One view: soft-target cross-entropy. Two views (dual cutout, DeVries & Taylor
    style as in hysts' ``DualCutoutLoss``): ``(CE_1 + CE_2) / 2 + alpha * MSE(z_1, z_2)``
    with the MSE averaged over all logit entries.
    """
    if len(logits) == 1:
        return soft_cross_entropy(logits[0], targets)
    if len(logits) != 2:
        raise ValueError(f"training_loss: expected 1 or 2 views, got {len(logits)}")
    z1, z2 = (z.float() for z in logits)
    ce = 0.5 * (soft_cross_entropy(z1, targets) + soft_cross_entropy(z2, targets))
    return ce + dual_cutout_alpha * F.mse_loss(z1, z2)


def training_step(
    forward: Callable[[torch.Tensor], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    batch: AugmentedBatch,
    dual_cutout_alpha: float,
    device_type: str,
    autocast: bool,
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """One optimisation step on an augmented batch: forward every view (bf16 autocast when
    asked), :func:`training_loss`, backward, ``optimizer.step()``. Returns the loss and the
    logits of each view (the scheduler is the caller's)."""
    with torch.autocast(device_type, dtype=torch.bfloat16, enabled=autocast):
        logits = [forward(v) for v in batch.views]
    loss = training_loss(logits, batch.targets, dual_cutout_alpha)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss, logits


# --------------------------------------------------------------------------- checkpoints


def _atomic_save(obj: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def _atomic_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _write_log(path: Path, history: list[dict[str, float]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=LOG_FIELDS)
        w.writeheader()
        for row in history:
            w.writerow({k: row.get(k, "") for k in LOG_FIELDS})
    os.replace(tmp, path)


def _cpu_state(model: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def load_checkpoint(path: str | Path, device: str | torch.device = "cpu") -> tuple[ResNetPreact, dict[str, Any]]:
    """Rebuild the model of a checkpoint written by :func:`train`; returns ``(model in eval mode, metadata)``."""
    path = Path(path)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ValueError(f"{path}: not a readable checkpoint ({exc})") from exc
    if not isinstance(ckpt, dict) or "model_state" not in ckpt or "model_config" not in ckpt:
        raise ValueError(f"{path}: not a holdout checkpoint (missing model_state / model_config)")
    model = build_network(model_config_from_dict(ckpt["model_config"]))
    model.load_state_dict(ckpt["model_state"])
    model.to(device).eval()
    meta = {k: v for k, v in ckpt.items() if k != "model_state"}
    return model, meta


# --------------------------------------------------------------------------- data


def _as_uint8_images(images: Any, what: str) -> torch.Tensor:
    t = torch.as_tensor(images)
    if t.dtype != torch.uint8 or t.dim() != 4:
        raise ValueError(f"{what}: expected uint8 images N x C x H x W, got dtype {t.dtype}, shape {tuple(t.shape)}")
    return t


def _as_labels(labels: Any, n: int, num_classes: int, what: str) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(labels)).long()
    if t.dim() != 1 or t.shape[0] != n:
        raise ValueError(f"{what}: expected {n} labels, got shape {tuple(t.shape)}")
    if n and (int(t.min()) < 0 or int(t.max()) >= num_classes):
        raise ValueError(f"{what}: labels must lie in [0, {num_classes}), got [{int(t.min())}, {int(t.max())}]")
    return t


def _fingerprint(
    model_config: ResNetPreactConfig,
    config: TrainConfig,
    seed: int,
    num_checkpoints: int,
    images: torch.Tensor,
    labels: torch.Tensor,
) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([model_config.to_dict(), config.to_dict(), seed, num_checkpoints], sort_keys=True).encode())
    h.update(str(tuple(images.shape)).encode())
    h.update(labels.cpu().numpy().astype(np.int64).tobytes())
    flat = images.reshape(-1).cpu()
    h.update(flat[:: max(1, flat.numel() // 65536)].numpy().tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- training


def _evaluate(
    model: nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    aug: AugmentConfig,
    batch_size: int,
    device: torch.device,
    memory_format: torch.memory_format,
    autocast: bool,
) -> tuple[float, float]:
    was = model.training
    model.eval()
    loss_sum = torch.zeros((), device=device, dtype=torch.float64)
    correct = torch.zeros((), device=device, dtype=torch.int64)
    with torch.inference_mode():
        for i in range(0, images.shape[0], batch_size):
            x = normalize(images[i : i + batch_size].to(device), aug.mean, aug.std).contiguous(
                memory_format=memory_format
            )
            y = labels[i : i + batch_size].to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
                z = model(x)
            z = z.float()
            loss_sum += F.cross_entropy(z, y, reduction="sum").double()
            correct += (z.argmax(1) == y).sum()
    model.train(was)
    n = images.shape[0]
    return float(loss_sum) / n, int(correct) / n


@dataclass(frozen=True)
class RunSettings:
    """Where one :func:`train` run writes and how it executes (its keyword arguments, checked once).

    ``out_dir``: checkpoints and ``training_log.csv`` (Snakemake outputs); ``state_dir``: the
    resumable state (must differ: Snakemake deletes a failed job's outputs). ``seed`` fixes the
    initial weights, the data order, every augmentation draw and mixup's lambda. ``device``,
    ``channels_last``, ``autocast``, ``compile``: ``None`` picks the device's default
    (:func:`holdout.training.device.execution_plan`). ``threads``: ``torch.set_num_threads``.
    ``progress_every``: progress reports per epoch. ``extra_metadata`` is stored in every checkpoint.
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
class _Data:
    """Checked training (and optional test) tensors on the training device."""

    images: torch.Tensor
    labels: torch.Tensor
    test_images: torch.Tensor | None
    test_labels: torch.Tensor | None
    steps_per_epoch: int
    fingerprint: str


@dataclass(frozen=True)
class _Job:
    """Everything fixed for one run once its inputs are checked."""

    model_config: ResNetPreactConfig
    config: TrainConfig
    settings: RunSettings
    plan: ExecutionPlan
    data: _Data
    checkpoint_epochs: list[int]
    checkpoint_paths: list[Path]


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


def _check_data(
    model_config: ResNetPreactConfig,
    config: TrainConfig,
    settings: RunSettings,
    images: Any,
    labels: Any,
    test_images: Any,
    test_labels: Any,
    device: torch.device,
) -> _Data:
    """Validate the arrays, fingerprint them (on CPU) and move them once to ``device``."""
    x_all = _as_uint8_images(images, "train: images")
    n, c = x_all.shape[:2]
    y_all = _as_labels(labels, n, model_config.num_classes, "train: labels")
    if c != model_config.in_channels:
        raise ValueError(f"train: images have {c} channels but model_config.in_channels={model_config.in_channels}")
    steps_per_epoch = n // config.batch_size  # last incomplete batch dropped (hysts: drop_last=True)
    if steps_per_epoch < 1:
        raise ValueError(f"train: {n} images are fewer than one batch of {config.batch_size}")
    xt = yt = None
    if test_images is not None:
        xt = _as_uint8_images(test_images, "train: test_images")
        yt = _as_labels(test_labels, xt.shape[0], model_config.num_classes, "train: test_labels")
    fingerprint = _fingerprint(model_config, config, settings.seed, settings.num_checkpoints, x_all, y_all)
    return _Data(
        x_all.to(device),
        y_all.to(device),
        None if xt is None else xt.to(device),
        None if yt is None else yt.to(device),
        steps_per_epoch,
        fingerprint,
    )


def _set_up(job: _Job) -> _RunState:
    """Fresh model, optimizer, scheduler and the three RNG streams of ``job``'s seed."""
    # Independent seeds for init, data order, augmentation and mixup's lambda.
    init_seed, order_seed, aug_seed, mix_seed = (
        int(s) for s in np.random.SeedSequence(job.settings.seed).generate_state(4)
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed)
        net = build_network(job.model_config)
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
        row["test_loss"], row["test_accuracy"] = _evaluate(
            fwd, data.test_images, data.test_labels, aug, 1024, plan.device, plan.memory_format, plan.autocast
        )
    return row


def _checkpoint_metadata(job: _Job) -> dict[str, Any]:
    """What every checkpoint of ``job`` carries besides its weights, epoch and metrics."""
    aug, mc = job.config.augment, job.model_config
    return {
        "model_config": mc.to_dict(),
        "train_config": job.config.to_dict(),
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
            "model_state": _cpu_state(run.net),
            **_checkpoint_metadata(job),
            "epoch": epoch,
            "index": k + 1,
            "metrics": dict(row),
        }
        _atomic_save(ckpt, settings.state_dir / "checkpoints" / path.name)
        _atomic_copy(settings.state_dir / "checkpoints" / path.name, path)
        log.info("checkpoint %d/%d (epoch %d) -> %s", k + 1, settings.num_checkpoints, epoch, path)
    _atomic_save(
        {
            "fingerprint": job.data.fingerprint,
            "epoch": epoch,
            "model": _cpu_state(run.net),
            "optimizer": run.optimizer.state_dict(),
            "scheduler": run.scheduler.state_dict(),
            "order_gen": run.order_gen.get_state(),
            "aug_gen": run.aug_gen.get_state().cpu(),
            "mix_rng": run.mix_rng.bit_generator.state,
            "history": run.history,
        },
        settings.state_path,
    )
    _write_log(settings.out_dir / LOG_NAME, run.history)


def _finish(job: _Job, run: _RunState) -> None:
    """Restore checkpoints a restarted job lost, write the final log, drop the state unless kept."""
    settings = job.settings
    for p in job.checkpoint_paths:
        if not p.exists():
            _atomic_copy(settings.state_dir / "checkpoints" / p.name, p)
    _write_log(settings.out_dir / LOG_NAME, run.history)
    if not settings.keep_state:
        settings.state_path.unlink(missing_ok=True)
        shutil.rmtree(settings.state_dir / "checkpoints", ignore_errors=True)


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


def train_run(
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
    """:func:`train` with its run settings as one :class:`RunSettings` (set-up, resume, epochs, checkpoints)."""
    log = log or logging.getLogger("holdout.training.loop")
    plan = execution_plan(
        model_config, settings.device, settings.channels_last, settings.autocast, settings.compile, log
    )
    if settings.threads is not None:
        torch.set_num_threads(int(settings.threads))
    if plan.device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    data = _check_data(model_config, config, settings, images, labels, test_images, test_labels, plan.device)
    job = _Job(
        model_config,
        config,
        settings,
        plan,
        data,
        checkpoint_epochs(config.epochs, settings.num_checkpoints),
        checkpoint_paths(settings.out_dir, settings.num_checkpoints),
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


def train(
    model_config: ResNetPreactConfig | ModelSpec,
    config: TrainConfig,
    images: Any,
    labels: Any,
    *,
    out_dir: str | Path,
    state_dir: str | Path,
    seed: int = 0,
    num_checkpoints: int = 10,
    device: str | torch.device | None = None,
    threads: int | None = None,
    channels_last: bool | None = None,
    autocast: bool | None = None,
    compile: bool | None = None,
    test_images: Any = None,
    test_labels: Any = None,
    keep_state: bool = False,
    log: logging.Logger | None = None,
    progress_every: int = 10,
    extra_metadata: dict[str, Any] | None = None,
) -> TrainResult:
    """Train one model and write its K checkpoints and per-epoch log to ``out_dir``.

    ``images``: uint8 N x C x H x W (numpy or torch), ``labels``: N class indices;
    they are moved once to the training device. The keyword arguments are those of
    :class:`RunSettings` (``device=None``/``"auto"`` picks cuda, mps or cpu; ``channels_last``
    follows :func:`holdout.training.device.memory_format_for`; ``autocast`` (bf16) and ``compile``
    default to on for CUDA only; pass Snakemake's ``threads``). ``test_images/test_labels``
    (optional) are evaluated after each epoch (log columns ``test_loss``, ``test_accuracy``; also
    in checkpoints). Progress goes to ``log`` as a tqdm bar (``progress_every`` lines per epoch)
    and one line per epoch. If ``state_dir`` holds the state of an interrupted run with the same
    arguments, training continues from it.
    """
    settings = RunSettings(
        out_dir=Path(out_dir),
        state_dir=Path(state_dir),
        seed=seed,
        num_checkpoints=num_checkpoints,
        device=device,
        threads=threads,
        channels_last=channels_last,
        autocast=autocast,
        compile=compile,
        keep_state=keep_state,
        progress_every=progress_every,
        extra_metadata=extra_metadata or {},
    )
    return train_run(
        model_config, config, images, labels, settings, test_images=test_images, test_labels=test_labels, log=log
    )


# --------------------------------------------------------------------------- inference


def predict(
    model: nn.Module,
    images: Any,
    batch_size: int = 1000,
    *,
    device: str | torch.device | None = None,
    mean: Sequence[float] = CIFAR10_MEAN,
    std: Sequence[float] = CIFAR10_STD,
    channels_last: bool = True,
    autocast: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Predicted labels (int64, n) and logits (float32, n x C) of ``model`` on uint8 ``images``.

    No gradients, ``batch_size`` images at a time, the model in eval mode (its
    mode is restored afterwards); images are normalised with ``mean``/``std``
    (a checkpoint's ``test_time`` metadata). The outputs feed
    ``holdout.predictions.Predictions.create(labels_pred, y, names, scores=logits[None])``.
    ``channels_last`` stays the default for every width: the oneDNN fault that makes
    :func:`holdout.training.device.memory_format_for` pick NCHW for 4-channel models on CPU is in
    the backward pass only (forward passes of the faulty convolution under ``ONEDNN_MAX_CPU_ISA=AVX2``
    run clean, and ``tests/training/test_cpu_isa.py`` predicts with every width there).
    """
    x = _as_uint8_images(images, "predict: images")
    if batch_size < 1:
        raise ValueError(f"predict: batch_size must be >= 1, got {batch_size}")
    dev = torch.device(device) if device is not None else next(model.parameters()).device
    mem_fmt = torch.channels_last if channels_last else torch.contiguous_format
    was = model.training
    model.eval()
    model.to(dev)
    outs: list[torch.Tensor] = []
    try:
        with torch.inference_mode():
            for i in range(0, x.shape[0], batch_size):
                xb = normalize(x[i : i + batch_size].to(dev), tuple(mean), tuple(std)).contiguous(memory_format=mem_fmt)
                with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=autocast):
                    outs.append(model(xb).float().cpu())
    finally:
        model.train(was)
    logits = torch.cat(outs) if outs else torch.zeros(0, 0)
    return logits.argmax(1).numpy().astype(np.int64), logits.numpy().astype(np.float32)
