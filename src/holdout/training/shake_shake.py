"""Shake-Shake regularised ResNets (Gastaldi 2017), as in hysts/pytorch_image_classification.

Recht et al. (2018) retrain ``shake_shake_64d_cutout`` (Table 2): shake-shake 26 2x64d,
"Shake-Shake-Image" (S-S-I). Each residual unit has two branches
``ReLU - conv3x3(stride) - BN - ReLU - conv3x3 - BN``; in training their outputs are mixed as
``alpha * b1 + (1 - alpha) * b2`` in the forward pass and the gradient is split with an
independent ``beta`` in the backward pass (Gastaldi 2017, Sec. 2.1), one ``alpha`` and one
``beta ~ U(0, 1)`` per image ("Image" level). At test time ``alpha = 0.5``. Downsampling
shortcut: ReLU, then two 1x1 convolutions on the input and on the input shifted by one
pixel, each sampled with stride 2, concatenated, BN. Stem ``conv3x3 - BN - ReLU``; head
global average pool - linear. Depth 26 = 6 * 4 + 2 (4 units per stage); base channels
64 -> stages of 64, 128, 256 channels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["ShakeShake", "ShakeShakeConfig", "mixing_coefficients", "shake"]


@dataclass(frozen=True)
class ShakeShakeConfig:
    """Shake-shake ``depth`` 2x``base_channels``d (defaults: 26 2x64d S-S-I, 11.7M parameters)."""

    depth: int = 26
    base_channels: int = 64
    shake_forward: bool = True
    shake_backward: bool = True
    shake_image: bool = True
    num_classes: int = 10
    in_channels: int = 3

    def __post_init__(self) -> None:
        if self.depth < 8 or (self.depth - 2) % 6:
            raise ValueError(f"ShakeShakeConfig.depth={self.depth} is invalid (needs depth = 6n + 2 with n >= 1)")
        if self.base_channels < 1:
            raise ValueError(f"ShakeShakeConfig.base_channels must be >= 1, got {self.base_channels}")
        if self.num_classes < 2 or self.in_channels < 1:
            raise ValueError("ShakeShakeConfig: num_classes must be >= 2 and in_channels >= 1")

    @property
    def blocks_per_stage(self) -> int:
        return (self.depth - 2) // 6

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Shake(torch.autograd.Function):
    """Forward ``alpha x1 + (1 - alpha) x2``; backward ``(beta g, (1 - beta) g)`` (Gastaldi 2017, Eq. 1)."""

    @staticmethod
    def forward(ctx: Any, x1: torch.Tensor, x2: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(beta)
        return x1 * alpha + x2 * (1 - alpha)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None, None]:
        (beta,) = ctx.saved_tensors
        return grad * beta, grad * (1 - beta), None, None


def shake(x1: torch.Tensor, x2: torch.Tensor, alpha: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """Mix two branch outputs with forward coefficient ``alpha`` and backward coefficient ``beta``."""
    return _Shake.apply(x1, x2, alpha, beta)


def mixing_coefficients(
    batch: int, forward: bool, backward: bool, per_image: bool, like: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(alpha, beta)``: U(0, 1) draws (one per image if ``per_image``, else one per batch) or 0.5.

    Drawn from torch's global RNG on ``like``'s device, shaped to broadcast over N x C x H x W.
    """
    shape = (batch, 1, 1, 1) if per_image else (1, 1, 1, 1)
    half = torch.full((1, 1, 1, 1), 0.5, device=like.device, dtype=like.dtype)
    alpha = torch.rand(shape, device=like.device, dtype=like.dtype) if forward else half
    beta = torch.rand(shape, device=like.device, dtype=like.dtype) if backward else half
    return alpha, beta


class _Branch(nn.Sequential):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__(
            nn.ReLU(inplace=False),
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
            nn.BatchNorm2d(cout),
        )


class _Downsample(nn.Module):
    """ReLU; two stride-2 1x1 convolutions (second on the one-pixel-shifted input); concat; BN."""

    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout // 2, 1, bias=False)
        self.conv2 = nn.Conv2d(cin, cout - cout // 2, 1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(x)
        y1 = self.conv1(x[:, :, ::2, ::2])
        y2 = self.conv2(F.pad(x[:, :, 1:, 1:], (0, 1, 0, 1))[:, :, ::2, ::2])
        return self.bn(torch.cat([y1, y2], dim=1))


class _ShakeBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, config: ShakeShakeConfig) -> None:
        super().__init__()
        self.config = config
        self.branch1 = _Branch(cin, cout, stride)
        self.branch2 = _Branch(cin, cout, stride)
        self.shortcut: nn.Module = _Downsample(cin, cout) if cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y1, y2 = self.branch1(x), self.branch2(x)
        c = self.config
        if self.training:
            alpha, beta = mixing_coefficients(x.shape[0], c.shake_forward, c.shake_backward, c.shake_image, y1)
        else:
            alpha, beta = mixing_coefficients(x.shape[0], False, False, False, y1)
        return self.shortcut(x) + shake(y1, y2, alpha, beta)


class ShakeShake(nn.Module):
    """Shake-shake ResNet built from a [`ShakeShakeConfig`][holdout.training.shake_shake.ShakeShakeConfig]."""

    def __init__(self, config: ShakeShakeConfig) -> None:
        super().__init__()
        self.config = config
        c = config.base_channels
        ch = (c, c, 2 * c, 4 * c)
        self.conv = nn.Conv2d(config.in_channels, c, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(c)
        for s, stride in enumerate((1, 2, 2)):
            stage = nn.Sequential(
                *[
                    _ShakeBlock(ch[s] if i == 0 else ch[s + 1], ch[s + 1], stride if i == 0 else 1, config)
                    for i in range(config.blocks_per_stage)
                ]
            )
            self.add_module(f"stage{s + 1}", stage)
        self.fc = nn.Linear(ch[3], config.num_classes)
        self.apply(_init_shake)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn(self.conv(x)))
        x = self.stage3(self.stage2(self.stage1(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def _init_shake(module: nn.Module) -> None:
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_out")
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Linear):
        nn.init.zeros_(module.bias)
