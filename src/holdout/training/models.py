"""The CIFAR pre-activation ResNet family searched by Mania et al. (2019), Appendix D.

Mania et al. train ResNet-110 variants with the ``resnet_preact`` model of
hysts/pytorch_image_classification; Table 2 varies the base channels
{4, 8, 16, 32}, the residual block type (basic or bottleneck), whether the ReLU
before each residual unit is removed, whether a BatchNorm follows the last
convolution of each unit, and whether the shortcut of the first (downsampling)
unit of a stage is taken after the pre-activation. This module builds that
family from a frozen [`ResNetPreactConfig`][holdout.training.models.ResNetPreactConfig] (He et al. 2016, "Identity
mappings in deep residual networks", Fig. 4(e) / Table 2 of that paper).

Architecture (depth ``d``; basic: ``d = 6n + 2``, bottleneck: ``d = 9n + 2``):
``conv3x3(3 -> c)`` - three stages of ``n`` units (strides 1, 2, 2; output
channels ``c, 2c·e, 4c·e`` with expansion ``e = 1`` basic, ``4`` bottleneck) -
``BN - ReLU - global average pool - linear``. Initialisation as in hysts'
argparse-era ``models/resnet_preact.py`` (commit 1d76092): convolutions
Kaiming-normal with ``mode="fan_out"``, BatchNorm weights 1 and biases 0, and the
final linear layer keeps PyTorch's default weight initialisation
(``kaiming_uniform_(a=sqrt(5))``) with its bias set to 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "BasicBlock",
    "BottleneckBlock",
    "ResNetPreact",
    "ResNetPreactConfig",
    "build_resnet_preact",
    "count_parameters",
]

BlockType = Literal["basic", "bottleneck"]


@dataclass(frozen=True)
class ResNetPreactConfig:
    """Hyperparameters of the CIFAR ResNet-preact (defaults: hysts' ResNet-preact-110).

    ``preact_stage[s]``: the first unit of stage ``s`` applies BN-ReLU to its
    input *before* the split, so its shortcut sees the pre-activated tensor
    (Table 2: "Preactivation of shortcuts after downsampling"); as in hysts,
    ``remove_first_relu`` does not apply to such a unit (its ReLU feeds the shortcut).
    """

    depth: int = 110
    base_channels: int = 16
    block_type: BlockType = "basic"
    remove_first_relu: bool = False
    add_last_bn: bool = False
    preact_stage: tuple[bool, bool, bool] = (True, True, True)
    num_classes: int = 10
    in_channels: int = 3

    def __post_init__(self) -> None:
        if self.block_type not in ("basic", "bottleneck"):
            raise ValueError(f"ResNetPreactConfig.block_type must be 'basic' or 'bottleneck', got {self.block_type!r}")
        per = 6 if self.block_type == "basic" else 9
        if self.depth < per + 2 or (self.depth - 2) % per:
            raise ValueError(
                f"ResNetPreactConfig.depth={self.depth} is invalid for {self.block_type} blocks "
                f"(needs depth = {per}n + 2 with n >= 1)"
            )
        if self.base_channels < 1:
            raise ValueError(f"ResNetPreactConfig.base_channels must be >= 1, got {self.base_channels}")
        ps = tuple(bool(p) for p in self.preact_stage)
        if len(ps) != 3:
            raise ValueError(f"ResNetPreactConfig.preact_stage needs 3 booleans, got {self.preact_stage!r}")
        object.__setattr__(self, "preact_stage", ps)
        if self.num_classes < 2 or self.in_channels < 1:
            raise ValueError("ResNetPreactConfig: num_classes must be >= 2 and in_channels >= 1")

    @property
    def expansion(self) -> int:
        return 1 if self.block_type == "basic" else 4

    @property
    def blocks_per_stage(self) -> int:
        return (self.depth - 2) // (6 if self.block_type == "basic" else 9)

    @property
    def stage_channels(self) -> tuple[int, int, int]:
        c, e = self.base_channels, self.expansion
        return (c, 2 * c * e, 4 * c * e)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["preact_stage"] = list(self.preact_stage)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ResNetPreactConfig:
        d = dict(d)
        if "preact_stage" in d:
            d["preact_stage"] = tuple(d["preact_stage"])
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"ResNetPreactConfig: unknown keys {sorted(unknown)}")
        return cls(**d)


def _conv(cin: int, cout: int, k: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, kernel_size=k, stride=stride, padding=k // 2, bias=False)


class _PreactUnit(nn.Module):
    """Shared forward of both unit types: pre-activation, residual branch, shortcut."""

    def __init__(self, cin: int, cout: int, stride: int, remove_first_relu: bool, preact: bool) -> None:
        super().__init__()
        self.remove_first_relu = remove_first_relu
        self.preact = preact
        self.bn1 = nn.BatchNorm2d(cin)
        self.shortcut = nn.Sequential()
        if cin != cout:
            self.shortcut.add_module("conv", _conv(cin, cout, 1, stride))

    def branch(self, y: torch.Tensor) -> torch.Tensor:  # pragma: no cover - overridden
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.preact:
            # BN-ReLU before the split: the shortcut sees the pre-activated input.
            x = F.relu(self.bn1(x))
            y = x
        else:
            # Pre-activation on the residual branch only.
            y = self.bn1(x)
            if not self.remove_first_relu:
                y = F.relu(y)
        return self.branch(y) + self.shortcut(x)


class BasicBlock(_PreactUnit):
    """conv3x3 (stride) - BN - ReLU - conv3x3 [- BN] on the pre-activated input."""

    expansion = 1

    def __init__(
        self, cin: int, cout: int, stride: int, remove_first_relu: bool, add_last_bn: bool, preact: bool
    ) -> None:
        super().__init__(cin, cout, stride, remove_first_relu, preact)
        self.conv1 = _conv(cin, cout, 3, stride)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = _conv(cout, cout, 3)
        self.bn3 = nn.BatchNorm2d(cout) if add_last_bn else None

    def branch(self, y: torch.Tensor) -> torch.Tensor:
        y = self.conv2(F.relu(self.bn2(self.conv1(y)), inplace=True))
        return self.bn3(y) if self.bn3 is not None else y


class BottleneckBlock(_PreactUnit):
    """conv1x1 - BN - ReLU - conv3x3 (stride) - BN - ReLU - conv1x1 [- BN]; width cout / 4."""

    expansion = 4

    def __init__(
        self, cin: int, cout: int, stride: int, remove_first_relu: bool, add_last_bn: bool, preact: bool
    ) -> None:
        super().__init__(cin, cout, stride, remove_first_relu, preact)
        mid = cout // self.expansion
        self.conv1 = _conv(cin, mid, 1)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv2 = _conv(mid, mid, 3, stride)
        self.bn3 = nn.BatchNorm2d(mid)
        self.conv3 = _conv(mid, cout, 1)
        self.bn4 = nn.BatchNorm2d(cout) if add_last_bn else None

    def branch(self, y: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn2(self.conv1(y)), inplace=True)
        y = F.relu(self.bn3(self.conv2(y)), inplace=True)
        y = self.conv3(y)
        return self.bn4(y) if self.bn4 is not None else y


class ResNetPreact(nn.Module):
    """CIFAR pre-activation ResNet built from a [`ResNetPreactConfig`][holdout.training.models.ResNetPreactConfig]."""

    def __init__(self, config: ResNetPreactConfig) -> None:
        super().__init__()
        self.config = config
        block = BasicBlock if config.block_type == "basic" else BottleneckBlock
        ch = config.stage_channels
        self.conv = _conv(config.in_channels, ch[0], 3)
        cins = (ch[0], ch[0], ch[1])
        strides = (1, 2, 2)
        for s in range(3):
            stage = nn.Sequential()
            for i in range(config.blocks_per_stage):
                stage.add_module(
                    f"block{i + 1}",
                    block(
                        cins[s] if i == 0 else ch[s],
                        ch[s],
                        strides[s] if i == 0 else 1,
                        config.remove_first_relu,
                        config.add_last_bn,
                        config.preact_stage[s] if i == 0 else False,
                    ),
                )
            self.add_module(f"stage{s + 1}", stage)
        self.bn = nn.BatchNorm2d(ch[2])
        self.fc = nn.Linear(ch[2], config.num_classes)
        self.apply(_kaiming_fan_out)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stage3(self.stage2(self.stage1(self.conv(x))))
        x = F.relu(self.bn(x), inplace=True)
        return F.adaptive_avg_pool2d(x, 1).flatten(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x))


def _kaiming_fan_out(module: nn.Module) -> None:
    """hysts' ``initialize_weights`` (commit 1d76092): Kaiming-normal fan-out convolutions
    (He et al. 2015, Eq. 14 with fan-out), BatchNorm (1, 0), linear bias 0 (weight: PyTorch default)."""
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Linear):
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


def build_resnet_preact(config: ResNetPreactConfig) -> ResNetPreact:
    """Construct the network of ``config`` (weights from torch's global RNG; seed it first)."""
    return ResNetPreact(config)


def count_parameters(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
