"""Optimisation of [`holdout.training.loop.train`][holdout.training.loop.train]: Mania et al. (2019) Appendix D, Table
2.

[`TrainConfig`][holdout.training.optim.TrainConfig] holds Table 2's optimisation and augmentation options (defaults:
hysts/pytorch_image_classification's ResNet-preact CIFAR config);
[`build_optimizer`][holdout.training.optim.build_optimizer],
[`build_scheduler`][holdout.training.optim.build_scheduler] ([`LRSchedule`][holdout.training.optim.LRSchedule], per
step), [`training_loss`][holdout.training.optim.training_loss] (one view, or
dual cutout's two) and [`training_step`][holdout.training.optim.training_step] (one optimizer step) are what each epoch
runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import nn

from holdout.training.augment import AugmentConfig, AugmentedBatch

__all__ = [
    "LRSchedule",
    "TrainConfig",
    "build_optimizer",
    "build_scheduler",
    "parameter_groups",
    "soft_cross_entropy",
    "training_loss",
    "training_step",
]

OptimizerName = Literal["sgd", "momentum", "nesterov", "adam"]
SchedulerName = Literal["multistep", "cosine"]
WeightDecayScope = Literal["all", "keras_kernels"]


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation and augmentation settings (defaults: hysts' ResNet-preact CIFAR config).

    ``optimizer``: ``"sgd"`` (plain SGD, no momentum), ``"momentum"`` (heavy ball,
    ``momentum``), ``"nesterov"`` (Nesterov momentum, ``momentum``), ``"adam"``
    (``adam_betas``) -- Table 2's {SGD, SGD with momentum, Nesterov GD, Adam}.
    ``weight_decay_bn=False`` exempts BatchNorm weights and biases from weight
    decay (Table 2: "Use weight decay with batch norm"); ``weight_decay_scope="keras_kernels"``
    decays only convolution and hidden linear kernels (geifmany's vgg16_keras; see
    [`parameter_groups`][holdout.training.optim.parameter_groups]). ``scheduler``:
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
    weight_decay_scope: WeightDecayScope = "all"
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
                self.weight_decay_scope in ("all", "keras_kernels"),
                f"weight_decay_scope must be all or keras_kernels, got {self.weight_decay_scope!r}",
            ),
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


# --------------------------------------------------------------------------- optimisation


def _decayed(model: nn.Module, decay_bn: bool, scope: str) -> set[int]:
    """Ids of the parameters that get weight decay (see
    [`parameter_groups`][holdout.training.optim.parameter_groups])."""
    if scope == "keras_kernels":
        linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
        kernels = [m for m in model.modules() if isinstance(m, nn.modules.conv._ConvNd)] + linears[:-1]
        return {id(m.weight) for m in kernels}
    if scope != "all":
        raise ValueError(f"weight_decay_scope must be 'all' or 'keras_kernels', got {scope!r}")
    exempt = set()
    if not decay_bn:
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._NormBase):
                exempt |= {id(p) for p in m.parameters(recurse=False)}
    return {id(p) for p in model.parameters()} - exempt


def parameter_groups(
    model: nn.Module, weight_decay: float, decay_bn: bool, scope: WeightDecayScope = "all"
) -> list[dict[str, Any]]:
    """Optimizer parameter groups: the decayed parameters, then the exempt ones (weight decay 0).

    ``scope="all"`` decays every parameter, except, with ``decay_bn=False``, the weights and
    biases of the BatchNorm modules (selected by module type). That is hysts'
    ``--no_weight_decay_on_bn`` (``train.py`` lines 533-548, commit 1d76092), which exempts every
    parameter whose name contains ``"bn"``: in hysts' models (ResNet-preact, WRN, shake-shake,
    VGG) exactly the BatchNorm parameters; a name match would miss them in a Sequential with
    numeric names. ``scope="keras_kernels"`` is geifmany/cifar-vgg's ``kernel_regularizer=l2``
    (``cifar10vgg.py``): the kernels of every convolution and of every linear layer but the last;
    biases, BatchNorm and the classifier are not decayed (Keras' L2 ``l * ||w||^2`` is weight decay
    ``2 l``).
    """
    decayed = _decayed(model, decay_bn, scope)
    params = [p for p in model.parameters() if p.requires_grad]
    return [
        {"params": [p for p in params if id(p) in decayed], "weight_decay": weight_decay},
        {"params": [p for p in params if id(p) not in decayed], "weight_decay": 0.0},
    ]


def build_optimizer(model: nn.Module, config: TrainConfig) -> torch.optim.Optimizer:
    """The optimizer of ``config`` over ``model`` (see [`TrainConfig`][holdout.training.optim.TrainConfig])."""
    groups = parameter_groups(model, config.weight_decay, config.weight_decay_bn, config.weight_decay_scope)
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
    """Per-step ``LambdaLR`` with [`LRSchedule`][holdout.training.optim.LRSchedule] (stepped after every optimizer
    step)."""
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
    asked), [`training_loss`][holdout.training.optim.training_loss], backward, ``optimizer.step()``. Returns the loss
    and the
    logits of each view (the scheduler is the caller's)."""
    with torch.autocast(device_type, dtype=torch.bfloat16, enabled=autocast):
        logits = [forward(v) for v in batch.views]
    loss = training_loss(logits, batch.targets, dual_cutout_alpha)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss, logits
