"""The CIFAR ResNet-preact family, batched augmentation, devices and memory format, the training loop, GPU slots."""

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
    checkpoint_epochs,
    checkpoint_paths,
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


# holdout.training.gpu is loaded on first use, so that `python -m holdout.training.gpu -- CMD`
# does not import it twice (runpy warns when the package has already imported the module).
_GPU_NAMES = ("ENV_GPUS", "ENV_LOCK_DIR", "GpuSlot", "default_lock_dir", "gpu_slot", "visible_gpus")


def __getattr__(name: str):
    if name in _GPU_NAMES:
        from holdout.training import gpu

        return getattr(gpu, name)
    raise AttributeError(f"module 'holdout.training' has no attribute {name!r}")
