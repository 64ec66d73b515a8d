"""The CIFAR ResNet-preact family, batched augmentation, devices and memory format, the training loop, GPU slots.

The names below load on first use (PEP 562), so that ``import holdout.training.naming`` (what the
workflow's rule files need at parse time) and the torch-free analysis never import torch.
``from holdout.training import train`` works as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holdout.training.augment import (
        CIFAR10_MEAN,
        CIFAR10_STD,
        AugmentConfig,
        AugmentedBatch,
        augment_batch,
        cutout,
        mixup,
        normalize,
        one_hot,
        random_crop,
        random_erasing,
        random_horizontal_flip,
        smooth_labels,
    )
    from holdout.training.device import (
        ONEDNN_MIN_STRIDED_1X1_CHANNELS,
        ExecutionPlan,
        execution_plan,
        memory_format_for,
        select_device,
    )
    from holdout.training.loop import (
        LOG_FIELDS,
        LOG_NAME,
        STATE_NAME,
        LRSchedule,
        RunSettings,
        TrainConfig,
        TrainResult,
        build_optimizer,
        build_scheduler,
        load_checkpoint,
        parameter_groups,
        predict,
        soft_cross_entropy,
        train,
        training_loss,
        training_step,
    )
    from holdout.training.models import (
        BasicBlock,
        BottleneckBlock,
        ResNetPreact,
        ResNetPreactConfig,
        build_resnet_preact,
        count_parameters,
    )
    from holdout.training.naming import checkpoint_epochs, checkpoint_paths
    from holdout.training.progress import LogStream, log_progress

__all__ = [
    "CIFAR10_MEAN",
    "CIFAR10_STD",
    "ENV_GPUS",
    "ENV_LOCK_DIR",
    "LOG_FIELDS",
    "LOG_NAME",
    "ONEDNN_MIN_STRIDED_1X1_CHANNELS",
    "STATE_NAME",
    "AugmentConfig",
    "AugmentedBatch",
    "BasicBlock",
    "BottleneckBlock",
    "ExecutionPlan",
    "GpuSlot",
    "LRSchedule",
    "LogStream",
    "ResNetPreact",
    "ResNetPreactConfig",
    "RunSettings",
    "TrainConfig",
    "TrainResult",
    "augment_batch",
    "build_optimizer",
    "build_resnet_preact",
    "build_scheduler",
    "checkpoint_epochs",
    "checkpoint_paths",
    "count_parameters",
    "cutout",
    "default_lock_dir",
    "execution_plan",
    "gpu_slot",
    "load_checkpoint",
    "log_progress",
    "memory_format_for",
    "mixup",
    "normalize",
    "one_hot",
    "parameter_groups",
    "predict",
    "random_crop",
    "random_erasing",
    "random_horizontal_flip",
    "select_device",
    "smooth_labels",
    "soft_cross_entropy",
    "train",
    "training_loss",
    "training_step",
    "visible_gpus",
]

# Each public name -> its submodule, imported on first access. holdout.training.gpu is loaded on
# first use too, so that `python -m holdout.training.gpu -- CMD` does not import it twice (runpy
# warns when the package has already imported the module).
_SUBMODULE_OF = {
    **dict.fromkeys(
        (
            "CIFAR10_MEAN",
            "CIFAR10_STD",
            "AugmentConfig",
            "AugmentedBatch",
            "augment_batch",
            "cutout",
            "mixup",
            "normalize",
            "one_hot",
            "random_crop",
            "random_erasing",
            "random_horizontal_flip",
            "smooth_labels",
        ),
        "augment",
    ),
    **dict.fromkeys(
        ("ONEDNN_MIN_STRIDED_1X1_CHANNELS", "ExecutionPlan", "execution_plan", "memory_format_for", "select_device"),
        "device",
    ),
    **dict.fromkeys(
        (
            "LOG_FIELDS",
            "LOG_NAME",
            "STATE_NAME",
            "LRSchedule",
            "RunSettings",
            "TrainConfig",
            "TrainResult",
            "build_optimizer",
            "build_scheduler",
            "load_checkpoint",
            "parameter_groups",
            "predict",
            "soft_cross_entropy",
            "train",
            "training_loss",
            "training_step",
        ),
        "loop",
    ),
    **dict.fromkeys(
        (
            "BasicBlock",
            "BottleneckBlock",
            "ResNetPreact",
            "ResNetPreactConfig",
            "build_resnet_preact",
            "count_parameters",
        ),
        "models",
    ),
    **dict.fromkeys(("checkpoint_epochs", "checkpoint_paths"), "naming"),
    **dict.fromkeys(("LogStream", "log_progress"), "progress"),
    **dict.fromkeys(("ENV_GPUS", "ENV_LOCK_DIR", "GpuSlot", "default_lock_dir", "gpu_slot", "visible_gpus"), "gpu"),
}
_EAGER_SUBMODULES = frozenset(("augment", "device", "loop", "models", "progress"))


def __getattr__(name: str):
    module = _SUBMODULE_OF.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"holdout.training.{module}"), name)
        if module != "gpu":
            globals()[name] = value
        return value
    if name in _EAGER_SUBMODULES:  # imported by this package's __init__ before it was lazy
        return importlib.import_module(f"holdout.training.{name}")
    raise AttributeError(f"module 'holdout.training' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
