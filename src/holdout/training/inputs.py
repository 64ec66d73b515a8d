"""The inputs of one training run, checked once: uint8 images, labels, the optional test set.

[`check_training_data`][holdout.training.inputs.check_training_data] validates what
[`holdout.training.loop.train`][holdout.training.loop.train] is given (clear
errors naming the argument), fingerprints it ([`training_fingerprint`][holdout.training.inputs.training_fingerprint]:
resuming another
run's state is refused) and moves it once to the training device.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from holdout.training.evaluation import as_uint8_images
from holdout.training.models import ResNetPreactConfig
from holdout.training.optim import TrainConfig

__all__ = ["TrainingData", "as_labels", "check_training_data", "training_fingerprint"]


def as_labels(labels: Any, n: int, num_classes: int, what: str) -> torch.Tensor:
    """``labels`` as an int64 tensor of ``n`` class indices in [0, num_classes)."""
    t = torch.as_tensor(np.asarray(labels)).long()
    if t.dim() != 1 or t.shape[0] != n:
        raise ValueError(f"{what}: expected {n} labels, got shape {tuple(t.shape)}")
    if n and (int(t.min()) < 0 or int(t.max()) >= num_classes):
        raise ValueError(f"{what}: labels must lie in [0, {num_classes}), got [{int(t.min())}, {int(t.max())}]")
    return t


def training_fingerprint(
    model_config: ResNetPreactConfig,
    config: TrainConfig,
    seed: int,
    num_checkpoints: int,
    images: torch.Tensor,
    labels: torch.Tensor,
) -> str:
    """SHA-256 of the configs, seed, K, the labels and a strided sample of the images: the
    identity of a run, checked before an interrupted run's state is resumed."""
    h = hashlib.sha256()
    h.update(json.dumps([model_config.to_dict(), config.to_dict(), seed, num_checkpoints], sort_keys=True).encode())
    h.update(str(tuple(images.shape)).encode())
    h.update(labels.cpu().numpy().astype(np.int64).tobytes())
    flat = images.reshape(-1).cpu()
    h.update(flat[:: max(1, flat.numel() // 65536)].numpy().tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class TrainingData:
    """Checked training (and optional test) tensors on the training device."""

    images: torch.Tensor
    labels: torch.Tensor
    test_images: torch.Tensor | None
    test_labels: torch.Tensor | None
    steps_per_epoch: int
    fingerprint: str


def check_training_data(
    model_config: ResNetPreactConfig,
    config: TrainConfig,
    run_key: tuple[int, int],
    images: Any,
    labels: Any,
    test_images: Any,
    test_labels: Any,
    device: torch.device,
) -> TrainingData:
    """Validate the arrays, fingerprint them (on CPU, with ``run_key`` = (seed, K)) and move them
    once to ``device``; errors name the argument of [`holdout.training.loop.train`][holdout.training.loop.train]."""
    x_all = as_uint8_images(images, "train: images")
    n, c = x_all.shape[:2]
    y_all = as_labels(labels, n, model_config.num_classes, "train: labels")
    if c != model_config.in_channels:
        raise ValueError(f"train: images have {c} channels but model_config.in_channels={model_config.in_channels}")
    steps_per_epoch = n // config.batch_size  # last incomplete batch dropped (hysts: drop_last=True)
    if steps_per_epoch < 1:
        raise ValueError(f"train: {n} images are fewer than one batch of {config.batch_size}")
    xt = yt = None
    if test_images is not None:
        xt = as_uint8_images(test_images, "train: test_images")
        yt = as_labels(test_labels, xt.shape[0], model_config.num_classes, "train: test_labels")
    fingerprint = training_fingerprint(model_config, config, *run_key, x_all, y_all)
    return TrainingData(
        x_all.to(device),
        y_all.to(device),
        None if xt is None else xt.to(device),
        None if yt is None else yt.to(device),
        steps_per_epoch,
        fingerprint,
    )
