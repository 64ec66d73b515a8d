"""VGG networks for CIFAR-10: hysts' VGG-15-BN-64 and the Keras VGG-16 of geifmany/cifar-vgg.

Recht et al. (2018) retrain ``vgg_15_BN_64`` (Table 2; hysts/pytorch_image_classification
``models/vgg.py`` with ``configs/vgg.json`` at commit 1d76092: five stages of 2, 2, 3, 3, 3
``conv3x3 - BN`` layers with 64, 128, 256, 512, 512 channels, each stage ending in 2x2 max pooling,
then one linear layer on the 512 x 1 x 1 features). hysts' ``_make_stage`` (``models/vgg.py``
lines 48-73) adds the ReLU with ``stage.add_module('relu', ...)`` inside the layer loop: the name is
reused, so ``nn.Sequential`` keeps ONE ReLU per stage, at its first position (after the first
BatchNorm), 5 in the network. That is the network of the published predictions and our default;
``relu_every_layer=True`` is the 13-ReLU reading (``conv - BN - ReLU`` everywhere, same parameters),
a named option only) and ``vgg16_keras`` (Sec. 5.5; geifmany/cifar-vgg
``cifar10vgg.py``, Liu & Deng 2015: the same 13 convolutions, each ``conv3x3 - ReLU - BN``
with dropout 0.3 after the first and 0.4 after every other convolution that is not the last of
its stage, dropout 0.5 after the last pooling, ``Dense(512) - ReLU - BN - Dropout(0.5) - Dense(10)``).
``dropout_scale`` multiplies every dropout rate (Recht et al. Sec. 5.3's grid varies it).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn

__all__ = ["VGG", "VGG16Keras", "VGG16KerasConfig", "VGGConfig"]

_CHANNELS = (64, 128, 256, 512, 512)
_LAYERS = (2, 2, 3, 3, 3)


def _check_stages(name: str, channels: tuple[int, ...], layers: tuple[int, ...]) -> None:
    if len(channels) != 5 or len(layers) != 5:
        raise ValueError(f"{name}: channels and layers need 5 entries (5 pooling stages for 32 x 32 inputs)")
    if min(channels) < 1 or min(layers) < 1:
        raise ValueError(f"{name}: channels and layers must be >= 1")


@dataclass(frozen=True)
class VGGConfig:
    """hysts' VGG (defaults: VGG-15-BN-64, ``configs/vgg.json`` at commit 1d76092)."""

    channels: tuple[int, ...] = _CHANNELS
    layers: tuple[int, ...] = _LAYERS
    use_bn: bool = True
    relu_every_layer: bool = False
    num_classes: int = 10
    in_channels: int = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "channels", tuple(int(c) for c in self.channels))
        object.__setattr__(self, "layers", tuple(int(n) for n in self.layers))
        _check_stages("VGGConfig", self.channels, self.layers)
        if self.num_classes < 2 or self.in_channels < 1:
            raise ValueError("VGGConfig: num_classes must be >= 2 and in_channels >= 1")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["channels"], d["layers"] = list(self.channels), list(self.layers)
        return d


class VGG(nn.Module):
    """hysts' VGG: stages ``conv0 [- bn0] - relu - conv1 [- bn1] ... - pool`` (one ReLU per stage,
    module docstring), then one linear layer; module names as hysts' (``stage1.conv0`` ...)."""

    def __init__(self, config: VGGConfig) -> None:
        super().__init__()
        self.config = config
        cin = config.in_channels
        stages = OrderedDict()
        for k, (cout, n) in enumerate(zip(config.channels, config.layers), start=1):
            stages[f"stage{k}"] = _hysts_stage(cin, cout, n, config.use_bn, config.relu_every_layer)
            cin = cout
        self.features = nn.Sequential(stages)
        self.fc = nn.Linear(cin, config.num_classes)
        self.apply(_init_vgg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).flatten(1))


def _hysts_stage(cin: int, cout: int, n: int, use_bn: bool, relu_every_layer: bool) -> nn.Sequential:
    """hysts' ``Network._make_stage`` (``models/vgg.py`` lines 48-73, commit 1d76092).

    hysts calls ``stage.add_module('relu', ...)`` for every layer; re-adding a name keeps its first
    position, so the ReLU follows the first layer only. ``relu_every_layer`` names each ReLU apart
    (``relu0``, ``relu1`` ...): the 13-ReLU variant.
    """
    mods: OrderedDict[str, nn.Module] = OrderedDict()
    for i in range(n):
        mods[f"conv{i}"] = nn.Conv2d(cin if i == 0 else cout, cout, 3, 1, 1)
        if use_bn:
            mods[f"bn{i}"] = nn.BatchNorm2d(cout)
        if relu_every_layer:
            mods[f"relu{i}"] = nn.ReLU(inplace=True)
        elif i == 0:
            mods["relu"] = nn.ReLU(inplace=True)
    mods["pool"] = nn.MaxPool2d(2, 2)
    return nn.Sequential(mods)


def _init_vgg(module: nn.Module) -> None:
    """hysts' ``models/vgg.py`` initialiser: Kaiming fan-out convs, zero biases, BN weights U(0, 1)."""
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_out")
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.uniform_(module.weight)
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Linear):
        nn.init.zeros_(module.bias)


@dataclass(frozen=True)
class VGG16KerasConfig:
    """geifmany/cifar-vgg's Keras VGG-16 for CIFAR-10 (defaults: the published model, 93.6%)."""

    channels: tuple[int, ...] = _CHANNELS
    layers: tuple[int, ...] = _LAYERS
    hidden: int = 512
    dropout_scale: float = 1.0
    num_classes: int = 10
    in_channels: int = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "channels", tuple(int(c) for c in self.channels))
        object.__setattr__(self, "layers", tuple(int(n) for n in self.layers))
        _check_stages("VGG16KerasConfig", self.channels, self.layers)
        if self.hidden < 1:
            raise ValueError("VGG16KerasConfig.hidden must be >= 1")
        if not 0.0 <= 0.5 * self.dropout_scale < 1.0:
            raise ValueError(f"VGG16KerasConfig.dropout_scale must keep rates in [0, 1), got {self.dropout_scale}")
        if self.num_classes < 2 or self.in_channels < 1:
            raise ValueError("VGG16KerasConfig: num_classes must be >= 2 and in_channels >= 1")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["channels"], d["layers"] = list(self.channels), list(self.layers)
        return d


class VGG16Keras(nn.Module):
    """``conv3x3 - ReLU - BN [- Dropout]`` stages with max pooling; Dense-ReLU-BN-Dropout-Dense head."""

    def __init__(self, config: VGG16KerasConfig) -> None:
        super().__init__()
        self.config = config
        s = config.dropout_scale
        cin = config.in_channels
        layers: list[nn.Module] = []
        for stage, (cout, n) in enumerate(zip(config.channels, config.layers)):
            for i in range(n):
                layers += [
                    nn.Conv2d(cin if i == 0 else cout, cout, 3, 1, 1),
                    nn.ReLU(inplace=True),
                    nn.BatchNorm2d(cout, eps=1e-3, momentum=0.01),
                ]
                if i < n - 1:
                    layers.append(nn.Dropout((0.3 if stage == 0 and i == 0 else 0.4) * s))
            layers.append(nn.MaxPool2d(2, 2))
            cin = cout
        layers.append(nn.Dropout(0.5 * s))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            nn.Linear(cin, config.hidden),
            nn.ReLU(inplace=True),
            nn.BatchNorm1d(config.hidden, eps=1e-3, momentum=0.01),
            nn.Dropout(0.5 * s),
            nn.Linear(config.hidden, config.num_classes),
        )
        self.apply(_init_keras)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x).flatten(1))


def _init_keras(module: nn.Module) -> None:
    """Keras defaults: Glorot-uniform kernels, zero biases, BN gamma 1 and beta 0."""
    if isinstance(module, (nn.Conv2d, nn.Linear)):
        nn.init.xavier_uniform_(module.weight)
        nn.init.zeros_(module.bias)
    elif isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)
