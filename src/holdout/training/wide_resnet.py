"""Wide residual networks WRN-d-k (Zagoruyko & Komodakis 2016), as in hysts/pytorch_image_classification.

Recht et al. (2018) retrain ``wide_resnet_28_10`` (Table 2) with hysts' ``wrn`` model:
``conv3x3(3 -> 16)`` - three stages of ``n = (d - 4) / 6`` pre-activation basic units with
``16k, 32k, 64k`` channels (strides 1, 2, 2) - ``BN - ReLU - global average pool - linear``.
The first unit of a stage (channels change) applies BN-ReLU before the split, so its 1x1
projection shortcut sees the pre-activated input; other units pre-activate the residual
branch only. Dropout (``drop_rate``) sits between the two 3x3 convolutions. Initialisation:
Kaiming-normal (fan-in) convolutions, BatchNorm weights uniform(0, 1) and biases 0, linear
bias 0 (hysts' ``initialize_weights`` of ``models/wrn.py``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["WideResNet", "WideResNetConfig"]


@dataclass(frozen=True)
class WideResNetConfig:
    """WRN-``depth``-``widening_factor`` (defaults: WRN-28-10, 36.5M parameters)."""

    depth: int = 28
    widening_factor: int = 10
    base_channels: int = 16
    drop_rate: float = 0.0
    num_classes: int = 10
    in_channels: int = 3

    def __post_init__(self) -> None:
        if self.depth < 10 or (self.depth - 4) % 6:
            raise ValueError(f"WideResNetConfig.depth={self.depth} is invalid (needs depth = 6n + 4 with n >= 1)")
        if self.widening_factor < 1 or self.base_channels < 1:
            raise ValueError("WideResNetConfig: widening_factor and base_channels must be >= 1")
        if not 0.0 <= self.drop_rate < 1.0:
            raise ValueError(f"WideResNetConfig.drop_rate must be in [0, 1), got {self.drop_rate}")
        if self.num_classes < 2 or self.in_channels < 1:
            raise ValueError("WideResNetConfig: num_classes must be >= 2 and in_channels >= 1")

    @property
    def blocks_per_stage(self) -> int:
        return (self.depth - 4) // 6

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _WideBlock(nn.Module):
    """Pre-activation basic unit: BN-ReLU-conv3x3(stride) [-dropout] -BN-ReLU-conv3x3, plus shortcut."""

    def __init__(self, cin: int, cout: int, stride: int, drop_rate: float) -> None:
        super().__init__()
        self.drop_rate = drop_rate
        self.preact_both = cin != cout
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.shortcut = nn.Sequential()
        if cin != cout:
            self.shortcut.add_module("conv", nn.Conv2d(cin, cout, 1, stride, 0, bias=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.preact_both:
            x = F.relu(self.bn1(x))
            y = self.conv1(x)
        else:
            y = self.conv1(F.relu(self.bn1(x)))
        if self.drop_rate > 0:
            y = F.dropout(y, p=self.drop_rate, training=self.training)
        y = self.conv2(F.relu(self.bn2(y)))
        return y + self.shortcut(x)


class WideResNet(nn.Module):
    """WRN-d-k built from a [`WideResNetConfig`][holdout.training.wide_resnet.WideResNetConfig]."""

    def __init__(self, config: WideResNetConfig) -> None:
        super().__init__()
        self.config = config
        c, k = config.base_channels, config.widening_factor
        ch = (c, c * k, 2 * c * k, 4 * c * k)
        self.conv = nn.Conv2d(config.in_channels, ch[0], 3, 1, 1, bias=False)
        for s, stride in enumerate((1, 2, 2)):
            stage = nn.Sequential(
                *[
                    _WideBlock(ch[s] if i == 0 else ch[s + 1], ch[s + 1], stride if i == 0 else 1, config.drop_rate)
                    for i in range(config.blocks_per_stage)
                ]
            )
            self.add_module(f"stage{s + 1}", stage)
        self.bn = nn.BatchNorm2d(ch[3])
        self.fc = nn.Linear(ch[3], config.num_classes)
        self.apply(_init_wrn)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stage3(self.stage2(self.stage1(self.conv(x))))
        x = F.adaptive_avg_pool2d(F.relu(self.bn(x)), 1).flatten(1)
        return self.fc(x)


def _init_wrn(module: nn.Module) -> None:
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_in")
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.uniform_(module.weight)
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Linear):
        nn.init.zeros_(module.bias)
