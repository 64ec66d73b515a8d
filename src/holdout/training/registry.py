"""One registry of the CIFAR-10 architectures, by their names in Recht et al. (2018), Table 1.

``build_model("wide_resnet_28_10")`` builds WRN-28-10; ``build_model("vgg16_keras",
channels=[8, 16, 32, 32, 32])`` a narrow variant of the same family (overrides are fields of the
family's config dataclass). A [`ModelSpec`][holdout.training.registry.ModelSpec] (name + overrides) is what the training
engine
([`holdout.training.loop.train`][holdout.training.loop.train]) and its checkpoints carry for these models;
[`build_network`][holdout.training.registry.build_network] also takes a
[`ResNetPreactConfig`][holdout.training.models.ResNetPreactConfig], so every
existing call keeps working. Names and architectures follow Recht et al. Appendix A and the
hysts/pytorch_image_classification commands that trained the published models (names with
``_cutout`` differ only in the training recipe, not in the network).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from torch import nn

from holdout.training.models import ResNetPreactConfig, build_resnet_preact
from holdout.training.shake_shake import ShakeShake, ShakeShakeConfig
from holdout.training.vgg import VGG, VGG16Keras, VGG16KerasConfig, VGGConfig
from holdout.training.wide_resnet import WideResNet, WideResNetConfig

__all__ = [
    "MODELS",
    "ModelSpec",
    "build_model",
    "build_network",
    "describe_model",
    "model_config",
    "model_config_from_dict",
    "model_names",
]

# name -> (config class, network class, the config's non-default fields for this name)
MODELS: dict[str, tuple[type, type, dict[str, Any]]] = {
    "wide_resnet_28_10": (WideResNetConfig, WideResNet, {}),
    "wide_resnet_28_10_cutout": (WideResNetConfig, WideResNet, {}),
    "shake_shake_32d": (ShakeShakeConfig, ShakeShake, {"base_channels": 32}),
    "shake_shake_64d": (ShakeShakeConfig, ShakeShake, {"base_channels": 64}),
    "shake_shake_96d": (ShakeShakeConfig, ShakeShake, {"base_channels": 96}),
    "shake_shake_64d_cutout": (ShakeShakeConfig, ShakeShake, {"base_channels": 64}),
    "vgg_15_BN_64": (VGGConfig, VGG, {}),
    "vgg16_keras": (VGG16KerasConfig, VGG16Keras, {}),
    "resnet_v2_basic_110": (ResNetPreactConfig, None, {"depth": 110, "block_type": "basic"}),
    "resnet_v2_bottleneck_164": (ResNetPreactConfig, None, {"depth": 164, "block_type": "bottleneck"}),
    "resnet_preact_basic_110": (ResNetPreactConfig, None, {"depth": 110, "block_type": "basic"}),
    "resnet_preact_bottleneck_164": (ResNetPreactConfig, None, {"depth": 164, "block_type": "bottleneck"}),
}


def model_names() -> list[str]:
    """Every name [`build_model`][holdout.training.registry.build_model] knows."""
    return list(MODELS)


def _entry(name: str) -> tuple[type, type, dict[str, Any]]:
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(MODELS)}") from None


def model_config(name: str, **overrides: Any) -> Any:
    """The config dataclass of ``name`` with ``overrides`` (a field of that config each)."""
    cls, _, fixed = _entry(name)
    unknown = set(overrides) - set(cls.__dataclass_fields__)
    if unknown:
        raise ValueError(
            f"model {name!r}: unknown overrides {sorted(unknown)} (fields of {cls.__name__}: "
            f"{', '.join(cls.__dataclass_fields__)})"
        )
    kwargs = {**fixed, **overrides}
    if cls is ResNetPreactConfig and "preact_stage" in kwargs:
        kwargs["preact_stage"] = tuple(kwargs["preact_stage"])
    return cls(**kwargs)


@dataclass(frozen=True)
class ModelSpec:
    """A model by its Recht et al. name plus config overrides (what checkpoints record)."""

    name: str
    overrides: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        items = self.overrides.items() if isinstance(self.overrides, Mapping) else self.overrides
        frozen = tuple(sorted((str(k), tuple(v) if isinstance(v, list) else v) for k, v in items))
        object.__setattr__(self, "overrides", frozen)
        model_config(self.name, **dict(frozen))  # validates name and overrides

    @property
    def config(self) -> Any:
        return model_config(self.name, **dict(self.overrides))

    @property
    def num_classes(self) -> int:
        return int(self.config.num_classes)

    @property
    def in_channels(self) -> int:
        return int(self.config.in_channels)

    def to_dict(self) -> dict[str, Any]:
        return {
            "registry_name": self.name,
            "overrides": json.loads(json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in self.overrides})),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ModelSpec:
        unknown = set(d) - {"registry_name", "overrides"}
        if unknown or "registry_name" not in d:
            raise ValueError(f"ModelSpec: expected keys registry_name, overrides; got {sorted(d)}")
        return cls(str(d["registry_name"]), tuple(dict(d.get("overrides") or {}).items()))


def build_model(name: str, **overrides: Any) -> nn.Module:
    """The network ``name`` (Recht et al. Table 1) with config ``overrides``; weights from torch's global RNG."""
    _, net, _ = _entry(name)
    config = model_config(name, **overrides)
    return build_resnet_preact(config) if net is None else net(config)


def build_network(model_config: ResNetPreactConfig | ModelSpec) -> nn.Module:
    """The training engine's one constructor: a ResNet-preact config or a
    [`ModelSpec`][holdout.training.registry.ModelSpec]."""
    if isinstance(model_config, ModelSpec):
        return build_model(model_config.name, **dict(model_config.overrides))
    if isinstance(model_config, ResNetPreactConfig):
        return build_resnet_preact(model_config)
    raise TypeError(f"build_network: expected ResNetPreactConfig or ModelSpec, got {type(model_config).__name__}")


def model_config_from_dict(d: Mapping[str, Any]) -> ResNetPreactConfig | ModelSpec:
    """Inverse of ``to_dict`` for both kinds (a checkpoint's ``model_config``)."""
    return ModelSpec.from_dict(d) if "registry_name" in d else ResNetPreactConfig.from_dict(dict(d))


def describe_model(model_config: ResNetPreactConfig | ModelSpec) -> str:
    """Short name for logs, e.g. ``ResNet-preact-110 (basic, 16 ch)`` or ``vgg16_keras {...}``."""
    if isinstance(model_config, ModelSpec):
        extra = f" {dict(model_config.overrides)}" if model_config.overrides else ""
        return f"{model_config.name}{extra}"
    c = model_config
    return f"ResNet-preact-{c.depth} ({c.block_type}, {c.base_channels} ch)"
