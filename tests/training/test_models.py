"""holdout.training.models: the CIFAR ResNet-preact family of Mania et al. (2019), Appendix D / Table 2."""

from __future__ import annotations

import itertools

import pytest
import torch

from holdout.training.models import (
    BasicBlock,
    BottleneckBlock,
    ResNetPreactConfig,
    build_resnet_preact,
    count_parameters,
)


@pytest.mark.parametrize(
    ("depth", "block", "channels", "expected"),
    [
        # hysts' README / He et al. (2016): ResNet-preact-110 (basic) and -164 (bottleneck) have ~1.7M parameters.
        (110, "basic", 16, 1_730_522),
        (164, "bottleneck", 16, 1_619_290),
        (20, "basic", 16, 272_282),
        (110, "bottleneck", 16, 1_088_218),
    ],
)
def test_reference_parameter_counts(depth, block, channels, expected):
    model = build_resnet_preact(ResNetPreactConfig(depth=depth, block_type=block, base_channels=channels))
    assert count_parameters(model) == expected


def test_parameter_count_scales_with_base_channels():
    counts = [
        count_parameters(build_resnet_preact(ResNetPreactConfig(depth=20, base_channels=c))) for c in (4, 8, 16, 32)
    ]
    assert counts == sorted(counts) and counts[3] > 3.5 * counts[2] > 3.5**2 * counts[1]


@pytest.mark.parametrize(("depth", "block"), [(111, "basic"), (21, "bottleneck"), (2, "basic"), (110, "resnext")])
def test_invalid_depth_or_block_raises(depth, block):
    with pytest.raises(ValueError, match="depth|block_type"):
        ResNetPreactConfig(depth=depth, block_type=block)


def test_structure_blocks_and_channels():
    cfg = ResNetPreactConfig(depth=29, block_type="bottleneck", base_channels=8)
    m = build_resnet_preact(cfg)
    assert cfg.blocks_per_stage == 3 and cfg.stage_channels == (8, 64, 128)
    assert all(isinstance(b, BottleneckBlock) for s in (m.stage1, m.stage2, m.stage3) for b in s)
    assert m.stage2.block1.conv2.stride == (2, 2)  # bottleneck downsamples in its 3x3 conv
    assert m.stage2.block1.conv2.in_channels == 16  # width cout / 4
    m = build_resnet_preact(ResNetPreactConfig(depth=14, base_channels=4))
    assert all(isinstance(b, BasicBlock) for s in (m.stage1, m.stage2, m.stage3) for b in s)
    assert m.stage3.block1.conv1.stride == (2, 2) and m.fc.in_features == 16
    assert len(m.stage1.block1.shortcut) == 0 and len(m.stage2.block1.shortcut) == 1


@pytest.mark.parametrize("block,depth,last_bn", [("basic", 14, "bn3"), ("bottleneck", 20, "bn4")])
def test_add_last_bn_adds_a_batchnorm_after_the_last_conv(block, depth, last_bn):
    off = build_resnet_preact(ResNetPreactConfig(depth=depth, block_type=block, base_channels=4))
    on = build_resnet_preact(ResNetPreactConfig(depth=depth, block_type=block, base_channels=4, add_last_bn=True))
    units_on = [b for s in (on.stage1, on.stage2, on.stage3) for b in s]
    assert all(isinstance(getattr(b, last_bn), torch.nn.BatchNorm2d) for b in units_on)
    assert all(getattr(b, last_bn) is None for s in (off.stage1, off.stage2, off.stage3) for b in s)
    extra = sum(2 * getattr(b, last_bn).num_features for b in units_on)
    assert count_parameters(on) - count_parameters(off) == extra
    # the BN sees the last convolution's output
    seen = {}
    unit = on.stage2.block2
    last_conv = unit.conv2 if block == "basic" else unit.conv3
    last_conv.register_forward_hook(lambda m, i, o: seen.__setitem__("conv", o.detach().clone()))
    getattr(unit, last_bn).register_forward_hook(lambda m, i, o: seen.__setitem__("bn_in", i[0].detach().clone()))
    on.eval()(torch.randn(2, 3, 16, 16))
    assert torch.equal(seen["conv"], seen["bn_in"])


def _capture_input(module, store, key):
    return module.register_forward_hook(lambda m, i, o: store.__setitem__(key, i[0].detach().clone()))


@pytest.mark.parametrize("block,depth", [("basic", 14), ("bottleneck", 20)])
def test_remove_first_relu_feeds_the_raw_batchnorm_output_to_the_first_conv(block, depth):
    torch.manual_seed(0)
    x = torch.randn(4, 3, 16, 16)
    for remove in (False, True):
        m = build_resnet_preact(
            ResNetPreactConfig(depth=depth, block_type=block, base_channels=4, remove_first_relu=remove)
        ).eval()
        unit = m.stage1.block2  # a non-preact unit
        store = {}
        _capture_input(unit.conv1, store, "conv1")
        _capture_input(unit.bn1, store, "bn1")
        m(x)
        bn_out = unit.bn1(store["bn1"])
        expected = bn_out if remove else torch.relu(bn_out)
        assert torch.allclose(store["conv1"], expected)
        assert (store["conv1"] < 0).any() == remove


@pytest.mark.parametrize("stage", [0, 1, 2])
def test_preact_stage_moves_the_shortcut_after_the_preactivation(stage):
    torch.manual_seed(0)
    x = torch.randn(4, 3, 16, 16)
    for preact in (False, True):
        flags = [True, True, True]
        flags[stage] = preact
        m = build_resnet_preact(ResNetPreactConfig(depth=14, base_channels=4, preact_stage=tuple(flags))).eval()
        unit = getattr(m, f"stage{stage + 1}").block1
        assert unit.preact is preact
        assert getattr(m, f"stage{stage + 1}").block2.preact is False  # only the first unit of a stage
        store = {}
        _capture_input(unit.shortcut, store, "shortcut")
        _capture_input(unit.bn1, store, "bn1")
        m(x)
        if preact:
            assert torch.allclose(store["shortcut"], torch.relu(unit.bn1(store["bn1"])))
        else:
            assert torch.equal(store["shortcut"], store["bn1"])  # raw block input
            assert (store["shortcut"] < 0).any()


def test_forward_shape_for_every_switch_combination():
    x = torch.randn(2, 3, 8, 8)
    for block, remove, last_bn, *preact in itertools.product(("basic", "bottleneck"), *([(False, True)] * 5)):
        depth = 8 if block == "basic" else 11
        cfg = ResNetPreactConfig(
            depth=depth,
            block_type=block,
            base_channels=4,
            remove_first_relu=remove,
            add_last_bn=last_bn,
            preact_stage=tuple(preact),
            num_classes=7,
        )
        out = build_resnet_preact(cfg)(x)
        assert out.shape == (2, 7) and torch.isfinite(out).all(), cfg


def test_kaiming_fan_out_initialisation():
    torch.manual_seed(0)
    m = build_resnet_preact(ResNetPreactConfig(depth=20, base_channels=32))
    w = m.stage3.block1.conv2.weight  # 128 out channels, 3x3: fan_out = 1152
    assert abs(w.std().item() - (2.0 / (128 * 9)) ** 0.5) < 0.002
    assert torch.all(m.bn.weight == 1) and torch.all(m.bn.bias == 0) and torch.all(m.fc.bias == 0)


def test_config_round_trip_and_deterministic_construction():
    cfg = ResNetPreactConfig(depth=20, block_type="bottleneck", preact_stage=[False, True, False])
    assert cfg.preact_stage == (False, True, False)
    assert ResNetPreactConfig.from_dict(cfg.to_dict()) == cfg
    torch.manual_seed(3)
    a = build_resnet_preact(cfg).state_dict()
    torch.manual_seed(3)
    b = build_resnet_preact(cfg).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="unknown keys"):
        ResNetPreactConfig.from_dict({"depth": 20, "width": 3})
