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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from holdout.training.augment import CIFAR10_MEAN, CIFAR10_STD, AugmentConfig, AugmentedBatch, augment_batch, normalize
from holdout.training.models import ResNetPreact, ResNetPreactConfig
from holdout.training.registry import ModelSpec, build_network, describe_model, model_config_from_dict

__all__ = [
    "training_step",
    "TrainConfig",
    "TrainResult",
    "LRSchedule",
    "select_device",
    "parameter_groups",
    "build_optimizer",
    "build_scheduler",
    "training_loss",
    "checkpoint_epochs",
    "checkpoint_paths",
    "train",
    "load_checkpoint",
    "predict",
    "LOG_NAME",
    "STATE_NAME",
]

LOG_NAME = "training_log.csv"
STATE_NAME = "state.pt"
LOG_FIELDS = ("epoch", "train_loss", "train_accuracy", "lr", "images_per_s", "epoch_time_s", "wall_time_s",
              "test_loss", "test_accuracy")

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
    from ``base_lr`` to ``lr_min_factor * base_lr``.
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
    lr_min_factor: float = 1e-3
    augment: AugmentConfig = field(default_factory=AugmentConfig)

    def __post_init__(self) -> None:
        object.__setattr__(self, "adam_betas", tuple(float(b) for b in self.adam_betas))
        object.__setattr__(self, "milestones", tuple(int(m) for m in self.milestones))
        if isinstance(self.augment, dict):
            object.__setattr__(self, "augment", AugmentConfig.from_dict(self.augment))
        checks = [
            (self.epochs >= 1, "epochs must be >= 1"),
            (self.batch_size >= 1, "batch_size must be >= 1"),
            (self.optimizer in ("sgd", "momentum", "nesterov", "adam"),
             f"optimizer must be sgd, momentum, nesterov or adam, got {self.optimizer!r}"),
            (self.base_lr > 0, "base_lr must be > 0"),
            (0.0 <= self.momentum < 1.0, "momentum must be in [0, 1)"),
            (len(self.adam_betas) == 2 and all(0.0 <= b < 1.0 for b in self.adam_betas), "adam_betas must be in [0, 1)"),
            (self.weight_decay >= 0, "weight_decay must be >= 0"),
            (self.scheduler in ("multistep", "cosine"), f"scheduler must be multistep or cosine, got {self.scheduler!r}"),
            (all(m >= 1 for m in self.milestones) and list(self.milestones) == sorted(set(self.milestones)),
             "milestones must be increasing positive epochs"),
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
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
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


# --------------------------------------------------------------------------- devices


def select_device(device: str | torch.device | None = None) -> torch.device:
    """``device`` if given, else the best available: cuda, then mps, then cpu."""
    if device is not None and str(device) != "auto":
        dev = torch.device(device)
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device {device!r} requested but CUDA is not available")
        return dev
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


# --------------------------------------------------------------------------- optimisation


def parameter_groups(model: nn.Module, weight_decay: float, decay_bn: bool) -> list[dict[str, Any]]:
    """Optimizer parameter groups; with ``decay_bn=False`` BatchNorm affine parameters get decay 0.

    (hysts selects decayed parameters by the name pattern ``conv.weight``, which
    in its ResNet-preact matches only the stem and shortcut convolutions; we
    implement the switch's stated meaning: no decay on BatchNorm parameters only.)
    """
    if decay_bn:
        return [{"params": [p for p in model.parameters() if p.requires_grad], "weight_decay": weight_decay}]
    bn_ids = {
        id(p)
        for m in model.modules()
        if isinstance(m, nn.modules.batchnorm._BatchNorm)
        for p in m.parameters(recurse=False)
    }
    decayed = [p for p in model.parameters() if p.requires_grad and id(p) not in bn_ids]
    undecayed = [p for p in model.parameters() if p.requires_grad and id(p) in bn_ids]
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
    ``f = lr_min_factor`` (hysts' ``CosineScheduler``).
    """

    kind: str
    steps_per_epoch: int
    epochs: int
    milestones: tuple[int, ...] = ()
    lr_decay: float = 0.1
    lr_min_factor: float = 1e-3

    def __call__(self, step: int) -> float:
        if self.kind == "multistep":
            passed = sum(1 for m in self.milestones if step >= m * self.steps_per_epoch)
            return self.lr_decay ** passed
        total = self.epochs * self.steps_per_epoch
        f = self.lr_min_factor
        return f + (1.0 - f) * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))


def build_scheduler(optimizer: torch.optim.Optimizer, config: TrainConfig,
                    steps_per_epoch: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Per-step ``LambdaLR`` with :class:`LRSchedule` (stepped after every optimizer step)."""
    sched = LRSchedule(config.scheduler, steps_per_epoch, config.epochs, config.milestones, config.lr_decay,
                       config.lr_min_factor)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, sched)


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``-sum_c t_c log softmax(z)_c`` (targets rows sum to 1)."""
    return -(targets * F.log_softmax(logits.float(), dim=1)).sum(dim=1).mean()


def training_loss(logits: Sequence[torch.Tensor], targets: torch.Tensor, dual_cutout_alpha: float = 0.1) -> torch.Tensor:
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


def checkpoint_epochs(epochs: int, num_checkpoints: int) -> list[int]:
    """The K evenly spaced epochs ``ceil(k * E / K)``, k = 1..K (the last is E)."""
    if num_checkpoints < 1:
        raise ValueError(f"num_checkpoints must be >= 1, got {num_checkpoints}")
    if num_checkpoints > epochs:
        raise ValueError(f"num_checkpoints={num_checkpoints} exceeds epochs={epochs}: checkpoints would repeat")
    return [math.ceil(k * epochs / num_checkpoints) for k in range(1, num_checkpoints + 1)]


def checkpoint_paths(out_dir: str | Path, num_checkpoints: int) -> list[Path]:
    """``out_dir/checkpoint_01.pt`` ... (the files :func:`train` writes; for Snakemake outputs)."""
    width = max(2, len(str(num_checkpoints)))
    return [Path(out_dir) / f"checkpoint_{k:0{width}d}.pt" for k in range(1, num_checkpoints + 1)]


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
    except Exception as exc:  # noqa: BLE001 - re-raised with the file name
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


def _fingerprint(model_config: ResNetPreactConfig, config: TrainConfig, seed: int, num_checkpoints: int,
                 images: torch.Tensor, labels: torch.Tensor) -> str:
    h = hashlib.sha256()
    h.update(json.dumps([model_config.to_dict(), config.to_dict(), seed, num_checkpoints], sort_keys=True).encode())
    h.update(str(tuple(images.shape)).encode())
    h.update(labels.cpu().numpy().astype(np.int64).tobytes())
    flat = images.reshape(-1).cpu()
    h.update(flat[:: max(1, flat.numel() // 65536)].numpy().tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- training


def _evaluate(model: nn.Module, images: torch.Tensor, labels: torch.Tensor, aug: AugmentConfig,
              batch_size: int, device: torch.device, memory_format: torch.memory_format,
              autocast: bool) -> tuple[float, float]:
    was = model.training
    model.eval()
    loss_sum = torch.zeros((), device=device, dtype=torch.float64)
    correct = torch.zeros((), device=device, dtype=torch.int64)
    with torch.inference_mode():
        for i in range(0, images.shape[0], batch_size):
            x = normalize(images[i:i + batch_size].to(device), aug.mean, aug.std).contiguous(memory_format=memory_format)
            y = labels[i:i + batch_size].to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
                z = model(x)
            z = z.float()
            loss_sum += F.cross_entropy(z, y, reduction="sum").double()
            correct += (z.argmax(1) == y).sum()
    model.train(was)
    n = images.shape[0]
    return float(loss_sum) / n, int(correct) / n


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
    compile: bool | None = None,  # noqa: A002 - mirrors torch.compile
    test_images: Any = None,
    test_labels: Any = None,
    keep_state: bool = False,
    log: logging.Logger | None = None,
    progress_every: int = 10,
    extra_metadata: dict[str, Any] | None = None,
) -> TrainResult:
    """Train one model and write its K checkpoints and per-epoch log to ``out_dir``.

    ``images``: uint8 N x C x H x W (numpy or torch), ``labels``: N class indices;
    they are moved once to the training device. ``seed`` fixes the initial
    weights, the data order, every augmentation draw and mixup's lambda.
    ``device``: None/"auto" picks cuda, mps or cpu. ``threads``: CPU threads
    (``torch.set_num_threads``; pass Snakemake's ``threads``). ``channels_last``
    defaults to on for CUDA and CPU; ``autocast`` (bf16) and ``compile``
    (``torch.compile``) default to on for CUDA only. ``test_images/test_labels`` (optional) are evaluated after
    each epoch (log columns ``test_loss``, ``test_accuracy``; also in checkpoints).
    If ``state_dir`` holds the state of an interrupted run with the same
    arguments, training continues from it.
    """
    log = log or logging.getLogger("holdout.training.loop")
    out_dir, state_dir = Path(out_dir), Path(state_dir)
    if out_dir.resolve() == state_dir.resolve():
        raise ValueError("train: state_dir must differ from out_dir (Snakemake deletes a failed job's outputs)")
    dev = select_device(device)
    if threads is not None:
        if threads < 1:
            raise ValueError(f"train: threads must be >= 1, got {threads}")
        torch.set_num_threads(int(threads))
    on_cuda = dev.type == "cuda"
    # channels_last pays on CUDA (tensor cores) and on CPU (oneDNN: 1.7x for ResNet-preact-20, 2 cores).
    channels_last = dev.type in ("cuda", "cpu") if channels_last is None else channels_last
    autocast = on_cuda if autocast is None else autocast
    compile = on_cuda if compile is None else compile
    if on_cuda:
        torch.backends.cudnn.benchmark = True
    mem_fmt = torch.channels_last if channels_last else torch.contiguous_format

    x_all = _as_uint8_images(images, "train: images")
    n, c, h, w = x_all.shape
    y_all = _as_labels(labels, n, model_config.num_classes, "train: labels")
    if c != model_config.in_channels:
        raise ValueError(f"train: images have {c} channels but model_config.in_channels={model_config.in_channels}")
    steps_per_epoch = n // config.batch_size  # last incomplete batch dropped (hysts: drop_last=True)
    if steps_per_epoch < 1:
        raise ValueError(f"train: {n} images are fewer than one batch of {config.batch_size}")
    have_test = test_images is not None
    if have_test:
        xt = _as_uint8_images(test_images, "train: test_images")
        yt = _as_labels(test_labels, xt.shape[0], model_config.num_classes, "train: test_labels")
    ck_epochs = checkpoint_epochs(config.epochs, num_checkpoints)
    ck_paths = checkpoint_paths(out_dir, num_checkpoints)
    state_path = state_dir / STATE_NAME
    fingerprint = _fingerprint(model_config, config, seed, num_checkpoints, x_all, y_all)

    # Independent seeds for init, data order, augmentation and mixup's lambda.
    init_seed, order_seed, aug_seed, mix_seed = (int(s) for s in np.random.SeedSequence(seed).generate_state(4))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed)
        net = build_network(model_config)
    net.to(dev).to(memory_format=mem_fmt)
    optimizer = build_optimizer(net, config)
    scheduler = build_scheduler(optimizer, config, steps_per_epoch)
    order_gen = torch.Generator().manual_seed(order_seed)
    aug_gen = torch.Generator(device=dev).manual_seed(aug_seed)
    mix_rng = np.random.default_rng(mix_seed)
    history: list[dict[str, float]] = []
    start_epoch = 0

    if state_path.exists():
        try:
            state = torch.load(state_path, map_location="cpu", weights_only=False)
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"{state_path}: unreadable training state ({exc}); delete it to start afresh") from exc
        if state.get("fingerprint") != fingerprint:
            raise ValueError(
                f"{state_path}: training state belongs to another run (configuration, seed or data differ); "
                "delete it to start afresh"
            )
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        order_gen.set_state(state["order_gen"])
        aug_gen.set_state(state["aug_gen"].to(aug_gen.get_state().device))
        mix_rng.bit_generator.state = state["mix_rng"]
        history = list(state["history"])
        start_epoch = int(state["epoch"])
        log.info("resuming from %s at epoch %d/%d", state_path, start_epoch, config.epochs)

    fwd: nn.Module = net
    if compile:
        fwd = torch.compile(net)  # type: ignore[assignment]

    log.info(
        "training %s: %d images, %d epochs x %d steps, batch %d, %s on %s "
        "(threads %d, channels_last %s, bf16 %s, compile %s)",
        describe_model(model_config), n, config.epochs,
        steps_per_epoch, config.batch_size, config.optimizer, dev, torch.get_num_threads(),
        channels_last, autocast, compile,
    )
    x_dev, y_dev = x_all.to(dev), y_all.to(dev)
    if have_test:
        xt_dev, yt_dev = xt.to(dev), yt.to(dev)
    aug = config.augment
    wall0 = time.perf_counter() - (history[-1]["wall_time_s"] if history else 0.0)
    meta_common = {
        "model_config": model_config.to_dict(),
        "train_config": config.to_dict(),
        "seed": int(seed),
        "num_checkpoints": int(num_checkpoints),
        "checkpoint_epochs": ck_epochs,
        "test_time": {
            "input": "uint8 RGB images N x C x H x W; x / 255, then (x - mean) / std per channel",
            "mean": list(aug.mean),
            "std": list(aug.std),
            "image_size": [h, w],
            "num_classes": model_config.num_classes,
        },
        "train_examples": n,
        "torch_version": str(torch.__version__),
        "device": str(dev),
        **(extra_metadata or {}),
    }
    net.train()
    for epoch in range(start_epoch + 1, config.epochs + 1):
        t0 = time.perf_counter()
        lr = optimizer.param_groups[0]["lr"]
        perm = torch.randperm(n, generator=order_gen)[: steps_per_epoch * config.batch_size].to(dev)
        loss_sum = torch.zeros((), device=dev, dtype=torch.float64)
        correct = torch.zeros((), device=dev, dtype=torch.int64)
        seen = 0
        report = max(1, steps_per_epoch // max(1, progress_every))
        for step in range(steps_per_epoch):
            idx = perm[step * config.batch_size:(step + 1) * config.batch_size]
            batch = augment_batch(x_dev[idx], y_dev[idx], aug, model_config.num_classes, aug_gen, mix_rng, mem_fmt)
            loss, logits = training_step(fwd, optimizer, batch, aug.dual_cutout_alpha, dev.type, autocast)
            scheduler.step()
            bs = idx.shape[0]
            seen += bs
            loss_sum += loss.detach().double() * bs
            correct += (logits[0].detach().argmax(1) == batch.hard_labels).sum()
            if (step + 1) % report == 0 or step + 1 == steps_per_epoch:
                el = time.perf_counter() - t0
                log.info("epoch %d/%d step %d/%d (%.0f%%) loss %.4f acc %.4f %.0f img/s",
                         epoch, config.epochs, step + 1, steps_per_epoch,
                         100.0 * (epoch - 1 + (step + 1) / steps_per_epoch) / config.epochs,
                         float(loss_sum) / seen, int(correct) / seen, seen / max(el, 1e-9))
        if not math.isfinite(float(loss_sum)):
            log.warning("epoch %d: training loss is not finite (diverged)", epoch)
        epoch_time = time.perf_counter() - t0
        row: dict[str, float] = {
            "epoch": epoch,
            "train_loss": float(loss_sum) / seen,
            "train_accuracy": int(correct) / seen,
            "lr": lr,
            "images_per_s": seen / epoch_time,
            "epoch_time_s": epoch_time,
        }
        if have_test:
            tl, ta = _evaluate(fwd, xt_dev, yt_dev, aug, 1024, dev, mem_fmt, autocast)
            row["test_loss"], row["test_accuracy"] = tl, ta
        row["wall_time_s"] = time.perf_counter() - wall0
        history.append(row)
        log.info("epoch %d/%d done: %s", epoch, config.epochs,
                 ", ".join(f"{k} {v:.4g}" for k, v in row.items() if k != "epoch"))

        if epoch in ck_epochs:
            k = ck_epochs.index(epoch)
            ckpt = {"model_state": _cpu_state(net), **meta_common, "epoch": epoch, "index": k + 1,
                    "metrics": dict(row)}
            _atomic_save(ckpt, state_dir / "checkpoints" / ck_paths[k].name)
            _atomic_copy(state_dir / "checkpoints" / ck_paths[k].name, ck_paths[k])
            log.info("checkpoint %d/%d (epoch %d) -> %s", k + 1, num_checkpoints, epoch, ck_paths[k])
        _atomic_save(
            {
                "fingerprint": fingerprint,
                "epoch": epoch,
                "model": _cpu_state(net),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "order_gen": order_gen.get_state(),
                "aug_gen": aug_gen.get_state().cpu(),
                "mix_rng": mix_rng.bit_generator.state,
                "history": history,
            },
            state_path,
        )
        _write_log(out_dir / LOG_NAME, history)

    # A restarted job may have lost outputs written before the interruption: restore them.
    for p in ck_paths:
        if not p.exists():
            _atomic_copy(state_dir / "checkpoints" / p.name, p)
    _write_log(out_dir / LOG_NAME, history)
    if not keep_state:
        state_path.unlink(missing_ok=True)
        shutil.rmtree(state_dir / "checkpoints", ignore_errors=True)
    net.eval()
    return TrainResult(model=net, history=history, checkpoints=ck_paths, log_path=out_dir / LOG_NAME,
                       resumed_from_epoch=start_epoch)


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
                xb = normalize(x[i:i + batch_size].to(dev), tuple(mean), tuple(std)).contiguous(memory_format=mem_fmt)
                with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=autocast):
                    outs.append(model(xb).float().cpu())
    finally:
        model.train(was)
    logits = torch.cat(outs) if outs else torch.zeros(0, 0)
    return logits.argmax(1).numpy().astype(np.int64), logits.numpy().astype(np.float32)
