"""Fidelity to the code that trained the published models (Recht et al. 2018, Table 2 / Sec. 5.5).

- vgg_15_BN_64: hysts/pytorch_image_classification ``models/vgg.py`` at commit 1d76092. Its
  ``_make_stage`` is rebuilt here in torch, line for line, and our network must have the same
  module sequence (one ReLU per stage: ``stage.add_module('relu', ...)`` reuses the name).
- vgg16_keras: geifmany/cifar-vgg ``cifar10vgg.py`` puts ``kernel_regularizer=l2`` on the 13
  convolution kernels and the ``Dense(512)`` kernel only (lines 34-109; ``Dense(num_classes)`` at
  line 114 has none; BatchNorm and biases none).
- hysts' ``--no_weight_decay_on_bn`` (``train.py`` lines 533-548 at 1d76092): every parameter whose
  name contains ``bn``; in hysts' models those are exactly the BatchNorm weights and biases.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from holdout.training.optim import TrainConfig, parameter_groups  # noqa: E402
from holdout.training.registry import build_model  # noqa: E402


def _hysts_make_stage(in_channels: int, out_channels: int, n_blocks: int, use_bn: bool = True) -> nn.Sequential:
    """hysts' models/vgg.py lines 48-73 (commit 1d76092), verbatim logic."""
    stage = nn.Sequential()
    for index in range(n_blocks):
        if index == 0:
            conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
        else:
            conv = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)
        stage.add_module(f"conv{index}", conv)
        if use_bn:
            stage.add_module(f"bn{index}", nn.BatchNorm2d(out_channels))
        stage.add_module("relu", nn.ReLU(inplace=True))
    stage.add_module("pool", nn.MaxPool2d(kernel_size=2, stride=2))
    return stage


def _hysts_vgg_stages() -> list[nn.Sequential]:
    channels, layers = [64, 128, 256, 512, 512], [2, 2, 3, 3, 3]  # configs/vgg.json
    cins = [3] + channels[:-1]
    return [_hysts_make_stage(c_in, c, n) for c_in, c, n in zip(cins, channels, layers)]


def _layout(stage: nn.Module) -> list[tuple[str, str]]:
    return [(name, type(m).__name__) for name, m in stage.named_children()]


def test_vgg_15_bn_64_is_hysts_network_one_relu_per_stage():
    ours = build_model("vgg_15_BN_64")
    hysts = _hysts_vgg_stages()
    assert [_layout(s) for s in ours.features] == [_layout(s) for s in hysts]
    assert _layout(hysts[0]) == [
        ("conv0", "Conv2d"),
        ("bn0", "BatchNorm2d"),
        ("relu", "ReLU"),
        ("conv1", "Conv2d"),
        ("bn1", "BatchNorm2d"),
        ("pool", "MaxPool2d"),
    ]
    assert sum(isinstance(m, nn.ReLU) for m in ours.modules()) == 5
    # same parameter names and shapes as hysts' stages (state dicts interchange)
    theirs = {f"features.stage{k + 1}.{n}": p.shape for k, s in enumerate(hysts) for n, p in s.state_dict().items()}
    mine = {n: p.shape for n, p in ours.state_dict().items() if n.startswith("features.")}
    assert mine == theirs


def _as_hysts_sequential(state: dict) -> dict:
    """``features.stage<k>.<name>`` -> ``<k - 1>.<name>`` (the stages in one nn.Sequential)."""
    out = {}
    for key, value in state.items():
        if key.startswith("features."):
            _, stage, rest = key.split(".", 2)
            out[f"{int(stage.removeprefix('stage')) - 1}.{rest}"] = value
    return out


def test_vgg_15_bn_64_forward_matches_hysts_stages_with_same_weights():
    torch.manual_seed(0)
    ours = build_model("vgg_15_BN_64").eval()
    hysts = nn.Sequential(*_hysts_vgg_stages()).eval()
    hysts.load_state_dict(_as_hysts_sequential(ours.state_dict()))
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        assert torch.equal(ours.features(x), hysts(x))


def test_vgg_13_relu_variant_is_a_named_option_with_the_same_parameters():
    thirteen = build_model("vgg_15_BN_64", relu_every_layer=True)
    assert sum(isinstance(m, nn.ReLU) for m in thirteen.modules()) == 13
    count = sum(p.numel() for p in thirteen.parameters())
    assert count == sum(p.numel() for p in build_model("vgg_15_BN_64").parameters()) == 14_728_266


def _decay_of(model: nn.Module, groups: list[dict]) -> dict[str, float]:
    ids = {id(p): g["weight_decay"] for g in groups for p in g["params"]}
    return {n: ids[id(p)] for n, p in model.named_parameters()}


def test_vgg16_keras_weight_decay_on_conv_kernels_and_dense512_kernel_only():
    model = build_model("vgg16_keras")
    cfg = TrainConfig(weight_decay=1e-3, weight_decay_scope="keras_kernels")
    decay = _decay_of(model, parameter_groups(model, cfg.weight_decay, cfg.weight_decay_bn, cfg.weight_decay_scope))
    decayed = {n for n, wd in decay.items() if wd > 0}
    convs = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    expect = {id(m.weight) for m in convs} | {id(linears[0].weight)}
    assert len(convs) == 13 and linears[0].out_features == 512 and linears[1].out_features == 10
    assert {id(p) for n, p in model.named_parameters() if n in decayed} == expect
    assert all(decay[n] == 1e-3 for n in decayed)


def test_no_weight_decay_on_bn_selects_batchnorm_by_module_type():
    """hysts' flag exempts the BatchNorm parameters; VGG16Keras's Sequential has numeric names,
    which a name match on "bn" never exempted."""
    for name in ("vgg16_keras", "vgg_15_BN_64", "wide_resnet_28_10", "shake_shake_64d_cutout"):
        model = build_model(name)
        decay = _decay_of(model, parameter_groups(model, 1e-4, decay_bn=False))
        bn = {
            id(p)
            for m in model.modules()
            if isinstance(m, nn.modules.batchnorm._BatchNorm)
            for p in m.parameters(recurse=False)
        }
        assert bn, name
        assert {id(p) for n, p in model.named_parameters() if decay[n] == 0.0} == bn, name
