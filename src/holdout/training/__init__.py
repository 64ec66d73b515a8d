"""Training the CIFAR models: the ResNet-preact family, batched augmentation, devices, the loop, GPU slots.

Models ([`holdout.training.models`][holdout.training.models], [`holdout.training.registry`][holdout.training.registry])
-------------------------------------------------------------------------
- [`ResNetPreactConfig`][holdout.training.ResNetPreactConfig]   hyperparameters of the CIFAR ResNet-preact (hysts'
  defaults).
- [`build_resnet_preact`][holdout.training.build_resnet_preact]   the network of a configuration.

Augmentation ([`holdout.training.augment`][holdout.training.augment])
----------------------------------------------
- [`AugmentConfig`][holdout.training.AugmentConfig]        the augmentation options of Recht et al. Table 2.
- [`augment_batch`][holdout.training.augment_batch]         a whole batch augmented on the device (crop, flip, cutout,
  ...).
- [`normalize`][holdout.training.normalize]             per-channel normalisation with the CIFAR-10 mean and std.

Devices ([`holdout.training.device`][holdout.training.device], [`holdout.training.gpu`][holdout.training.gpu])
---------------------------------------------------------------------
- [`select_device`][holdout.training.select_device]         cuda, then mps, then cpu (or the one asked for).
- [`memory_format_for`][holdout.training.memory_format_for]     channels_last where it is fast and safe, else
  contiguous.
- [`execution_plan`][holdout.training.execution_plan]        device, memory format, autocast and compile for one run.
- [`gpu_slot`][holdout.training.gpu_slot]              a GPU slot shared by several jobs (loaded on first use).

Training and prediction ([`holdout.training.loop`][holdout.training.loop])
------------------------------------------------------
- [`TrainConfig`][holdout.training.TrainConfig]          optimisation and augmentation settings (hysts' defaults).
- [`train`][holdout.training.train]                 one seeded run with checkpoints and a resumable state.
- [`RunSettings`][holdout.training.RunSettings]          where and how [`train`][holdout.training.train] runs (output,
  state, seed, device).
- [`checkpoint_paths`][holdout.training.checkpoint_paths]      the checkpoint files [`train`][holdout.training.train]
  writes (torch-free).
- [`load_checkpoint`][holdout.training.load_checkpoint]       the model of a checkpoint, in eval mode, and its metadata.
- [`predict`][holdout.training.predict]               the predicted classes of a model on images.

The studies that train: [`holdout.training.search`][holdout.training.search],
[`holdout.training.seeds`][holdout.training.seeds] (their
jobs: [`holdout.training.jobs`][holdout.training.jobs], predictions:
    [`holdout.training.inference`][holdout.training.inference]).

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
