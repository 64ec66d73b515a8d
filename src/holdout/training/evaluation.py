"""Inference of trained CIFAR models: [`predict`][holdout.training.evaluation.predict] (labels and logits) and
[`evaluate`][holdout.training.evaluation.evaluate]
(mean cross-entropy and accuracy), on uint8 images held in memory, normalised per batch on the
device (the test time of Mania et al. 2019 / Recht et al. 2018: every checkpoint on every test set).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from holdout.training.augment import CIFAR10_MEAN, CIFAR10_STD, AugmentConfig, normalize

__all__ = ["as_uint8_images", "evaluate", "predict"]


def as_uint8_images(images: Any, what: str) -> torch.Tensor:
    """``images`` as a uint8 N x C x H x W tensor (no copy for a numpy array); ``what`` names it in errors."""
    t = torch.as_tensor(images)
    if t.dtype != torch.uint8 or t.dim() != 4:
        raise ValueError(f"{what}: expected uint8 images N x C x H x W, got dtype {t.dtype}, shape {tuple(t.shape)}")
    return t


def evaluate(
    model: nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    aug: AugmentConfig,
    batch_size: int,
    device: torch.device,
    memory_format: torch.memory_format,
    autocast: bool,
) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of ``model`` on uint8 ``images`` (eval mode, no gradients,
    ``batch_size`` at a time, normalised with ``aug.mean``/``aug.std``; the mode is restored)."""
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
    [`holdout.training.device.memory_format_for`][holdout.training.device.memory_format_for] pick NCHW for 4-channel
    models on CPU is in
    the backward pass only (forward passes of the faulty convolution under ``ONEDNN_MAX_CPU_ISA=AVX2``
    run clean, and ``tests/training/test_cpu_isa.py`` predicts with every width there).
    """
    x = as_uint8_images(images, "predict: images")
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
