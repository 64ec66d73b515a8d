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
- :func:`load_checkpoint`       the model of a checkpoint, in eval mode, and its metadata.
- :func:`predict`               the predicted classes of a model on images.

The studies that train: :mod:`holdout.training.search`, :mod:`holdout.training.seeds` (their
jobs: :mod:`holdout.training.jobs`, predictions: :mod:`holdout.training.inference`).
"""

from holdout.training.augment import AugmentConfig, augment_batch, normalize
from holdout.training.device import execution_plan, memory_format_for, select_device
from holdout.training.loop import TrainConfig, load_checkpoint, predict, train
from holdout.training.models import ResNetPreactConfig, build_resnet_preact

__all__ = [
    "AugmentConfig",
    "ResNetPreactConfig",
    "TrainConfig",
    "augment_batch",
    "build_resnet_preact",
    "execution_plan",
    "gpu_slot",
    "load_checkpoint",
    "memory_format_for",
    "normalize",
    "predict",
    "select_device",
    "train",
]


# holdout.training.gpu is loaded on first use, so that `python -m holdout.training.gpu -- CMD`
# does not import it twice (runpy warns when the package has already imported the module).
_GPU_NAMES = ("ENV_GPUS", "ENV_LOCK_DIR", "GpuSlot", "default_lock_dir", "gpu_slot", "visible_gpus")


def __getattr__(name: str):
    if name in _GPU_NAMES:
        from holdout.training import gpu

        return getattr(gpu, name)
    raise AttributeError(f"module 'holdout.training' has no attribute {name!r}")
