"""Training the CIFAR models: the ResNet-preact family, batched augmentation, devices, the loop, GPU slots.

Models (:mod:`holdout.training.models`, :mod:`holdout.training.registry`)
-------------------------------------------------------------------------
- :class:`ResNetPreactConfig`   hyperparameters of the CIFAR ResNet-preact (hysts' defaults).
- :func:`build_resnet_preact`   the network of a configuration.

Augmentation (:mod:`holdout.training.augment`)
----------------------------------------------
- :class:`AugmentConfig`        the augmentation options of Recht et al. Table 2.
- :func:`augment_batch`         a whole batch augmented on the device (crop, flip, cutout, ...).
- :func:`normalize`             per-channel normalisation with the CIFAR-10 mean and std.

Devices (:mod:`holdout.training.device`, :mod:`holdout.training.gpu`)
---------------------------------------------------------------------
- :func:`select_device`         cuda, then mps, then cpu (or the one asked for).
- :func:`memory_format_for`     channels_last where it is fast and safe, else contiguous.
- :func:`execution_plan`        device, memory format, autocast and compile for one run.
- :func:`gpu_slot`              a GPU slot shared by several jobs (loaded on first use).

Training and prediction (:mod:`holdout.training.loop`)
------------------------------------------------------
- :class:`TrainConfig`          optimisation and augmentation settings (hysts' defaults).
- :func:`train`                 one seeded run with checkpoints and a resumable state.
- :class:`RunSettings`          where and how :func:`train` runs (output, state, seed, device).
- :func:`checkpoint_paths`      the checkpoint files :func:`train` writes (torch-free).
- :func:`load_checkpoint`       the model of a checkpoint, in eval mode, and its metadata.
- :func:`predict`               the predicted classes of a model on images.

The studies that train: :mod:`holdout.training.search`, :mod:`holdout.training.seeds` (their
jobs: :mod:`holdout.training.jobs`, predictions: :mod:`holdout.training.inference`).

Every name loads on first use (PEP 562), so that ``import holdout.training.naming`` (what the
workflow's rule files need at parse time) and the torch-free analysis never import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holdout.training.augment import AugmentConfig, augment_batch, normalize
    from holdout.training.device import execution_plan, memory_format_for, select_device
    from holdout.training.gpu import gpu_slot
    from holdout.training.loop import RunSettings, TrainConfig, load_checkpoint, predict, train
    from holdout.training.models import ResNetPreactConfig, build_resnet_preact
    from holdout.training.naming import checkpoint_paths

__all__ = [
    "AugmentConfig",
    "ResNetPreactConfig",
    "RunSettings",
    "TrainConfig",
    "augment_batch",
    "build_resnet_preact",
    "checkpoint_paths",
    "execution_plan",
    "gpu_slot",
    "load_checkpoint",
    "memory_format_for",
    "normalize",
    "predict",
    "select_device",
    "train",
]

# Each public name -> its submodule, imported on first access. holdout.training.gpu is not cached
# here, so that `python -m holdout.training.gpu -- CMD` does not import it twice (runpy warns when
# the package has already imported the module).
_SUBMODULE_OF = {
    **dict.fromkeys(("AugmentConfig", "augment_batch", "normalize"), "augment"),
    **dict.fromkeys(("execution_plan", "memory_format_for", "select_device"), "device"),
    **dict.fromkeys(("RunSettings", "TrainConfig", "load_checkpoint", "predict", "train"), "loop"),
    "checkpoint_paths": "naming",
    **dict.fromkeys(("ResNetPreactConfig", "build_resnet_preact"), "models"),
    **dict.fromkeys(("ENV_GPUS", "ENV_LOCK_DIR", "GpuSlot", "default_lock_dir", "gpu_slot", "visible_gpus"), "gpu"),
}


def __getattr__(name: str):
    module = _SUBMODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'holdout.training' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"holdout.training.{module}"), name)
    if module != "gpu":
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
