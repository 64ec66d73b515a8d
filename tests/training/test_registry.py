"""Recht et al. (2018) retrained architectures: parameter counts against published ones, the registry,
shake-shake's per-image mixing, and training a registry model with the existing engine."""

from __future__ import annotations

import itertools

import pytest
import torch

from holdout.training import RunSettings, TrainConfig, load_checkpoint, train
from holdout.training.augment import AugmentConfig
from holdout.training.models import ResNetPreact, count_parameters
from holdout.training.registry import (
    MODELS,
    ModelSpec,
    build_model,
    build_network,
    model_config_from_dict,
)
from holdout.training.shake_shake import ShakeShake, ShakeShakeConfig, shake
from holdout.training.vgg import VGG, VGG16Keras
from holdout.training.wide_resnet import WideResNet


@pytest.mark.parametrize(
    ("name", "published", "tolerance"),
    [
        # Zagoruyko & Komodakis (2016), Table 4 / hysts README: WRN-28-10 has 36.5M parameters.
        ("wide_resnet_28_10", 36.5e6, 0.05e6),
        # Gastaldi (2017), Table 1: shake-shake 26 2x32d 2.9M, 26 2x64d 11.7M parameters.
        ("shake_shake_32d", 2.9e6, 0.05e6),
        ("shake_shake_64d_cutout", 11.7e6, 0.05e6),
        # geifmany/cifar-vgg cifar10vgg.py, Keras model.summary(): 14,991,946 trainable parameters
        # (15,001,418 total incl. the 9,472 BatchNorm moving statistics).
        ("vgg16_keras", 14_991_946, 0),
        # He et al. (2016, identity mappings), Table 2 / hysts README: ResNet-preact-110 1.7M, -164 1.7M.
        ("resnet_v2_basic_110", 1.7e6, 0.05e6),
        ("resnet_v2_bottleneck_164", 1.7e6, 0.1e6),
    ],
)
def test_parameter_counts_match_published(name, published, tolerance):
    assert abs(count_parameters(build_model(name)) - published) <= tolerance


def test_exact_counts_pinned():
    # Exact counts of our builds, so an architecture change cannot slip through the rounding above.
    assert count_parameters(build_model("wide_resnet_28_10")) == 36_479_194
    assert count_parameters(build_model("shake_shake_64d")) == 11_709_514


def test_vgg_15_bn_64_count_from_layer_shapes():
    # hysts' configs/vgg.json (commit 1d76092): no published count, so the closed form of its layers:
    # 13 conv3x3 with bias + BN (2 parameters per channel), channels 64,64,128,128,256x3,512x6, fc 512 -> 10.
    chans = [3, 64, 64, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512, 512]
    convs = sum(9 * a * b + b + 2 * b for a, b in itertools.pairwise(chans))
    assert count_parameters(build_model("vgg_15_BN_64")) == convs + 512 * 10 + 10 == 14_728_266


def test_registry_builds_every_name_and_forward_shape():
    x = torch.randn(2, 3, 32, 32)
    small = {
        "wide_resnet": {"depth": 10, "widening_factor": 1, "base_channels": 4},
        "shake_shake": {"depth": 8, "base_channels": 4},
        "vgg": {"channels": [4, 4, 8, 8, 8]},
        "resnet": {"depth": 20, "base_channels": 4},
    }
    for name in MODELS:
        over = next(v for k, v in small.items() if name.startswith(k))
        if "bottleneck" in name:
            over = {**over, "depth": 29}
        net = build_model(name, **over)
        assert net(x).shape == (2, 10), name
    assert isinstance(build_model("resnet_v2_basic_110"), ResNetPreact)
    assert isinstance(build_model("wide_resnet_28_10_cutout", depth=10, widening_factor=1), WideResNet)
    assert isinstance(build_model("vgg_15_BN_64", channels=[4] * 5), VGG)
    assert isinstance(build_model("vgg16_keras", channels=[4] * 5, hidden=8), VGG16Keras)


def test_registry_rejects_unknown_names_and_overrides():
    with pytest.raises(ValueError, match="unknown model 'vgg19'"):
        build_model("vgg19")
    with pytest.raises(ValueError, match="unknown overrides \\['width'\\]"):
        build_model("wide_resnet_28_10", width=2)
    with pytest.raises(ValueError, match="depth"):
        build_model("wide_resnet_28_10", depth=27)


def test_model_spec_round_trip_and_dispatch():
    spec = ModelSpec("vgg16_keras", {"channels": [4, 4, 8, 8, 8], "hidden": 16})
    assert spec == ModelSpec.from_dict(spec.to_dict()) == model_config_from_dict(spec.to_dict())
    assert spec.num_classes == 10 and spec.in_channels == 3
    assert isinstance(build_network(spec), VGG16Keras)
    with pytest.raises(TypeError):
        build_network("vgg16_keras")


def test_shake_mixes_forward_and_backward_with_different_coefficients():
    x1 = torch.ones(2, 1, 1, 1, requires_grad=True)
    x2 = torch.zeros(2, 1, 1, 1, requires_grad=True)
    alpha = torch.tensor([0.2, 0.7]).view(2, 1, 1, 1)
    beta = torch.tensor([0.9, 0.1]).view(2, 1, 1, 1)
    y = shake(x1, x2, alpha, beta)
    assert torch.allclose(y.flatten(), torch.tensor([0.2, 0.7]))
    y.sum().backward()
    assert torch.allclose(x1.grad.flatten(), beta.flatten())
    assert torch.allclose(x2.grad.flatten(), 1 - beta.flatten())


def test_shake_shake_is_stochastic_per_image_in_training_and_deterministic_in_eval():
    torch.manual_seed(0)
    net = ShakeShake(ShakeShakeConfig(depth=8, base_channels=4))
    x = torch.randn(1, 3, 32, 32).repeat(4, 1, 1, 1)  # four copies of one image
    net.train()
    out = net(x)
    assert not torch.allclose(out[0], out[1])  # per-image coefficients differ within a batch
    net.eval()
    a, b = net(x), net(x)
    assert torch.equal(a, b) and torch.allclose(a[0], a[3])


def test_train_and_reload_a_registry_model(tmp_path):
    g = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (64, 3, 32, 32), generator=g, dtype=torch.uint8)
    labels = torch.arange(64) % 10
    spec = ModelSpec("shake_shake_64d_cutout", {"depth": 8, "base_channels": 4})
    cfg = TrainConfig(epochs=1, batch_size=32, scheduler="cosine", augment=AugmentConfig(cutout=True, cutout_size=8))
    res = train(
        spec,
        cfg,
        images,
        labels,
        RunSettings(
            out_dir=tmp_path / "out",
            state_dir=tmp_path / "state",
            num_checkpoints=1,
            device="cpu",
            threads=1,
            channels_last=False,
        ),
    )
    model, meta = load_checkpoint(res.checkpoints[0])
    assert isinstance(model, ShakeShake)
    assert meta["model_config"] == spec.to_dict()
    assert len(res.history) == 1


def _train_shake_shake(tmp_path, name: str, epochs: int, **settings):
    g = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (64, 3, 32, 32), generator=g, dtype=torch.uint8)
    labels = torch.arange(64) % 10
    spec = ModelSpec("shake_shake_32d", {"depth": 8, "base_channels": 4})
    cfg = TrainConfig(epochs=epochs, batch_size=32, scheduler="cosine")
    run = RunSettings(
        out_dir=tmp_path / name,
        state_dir=tmp_path / f"{name}_state",
        num_checkpoints=1,
        device="cpu",
        threads=1,
        seed=5,
        channels_last=False,
        **settings,
    )
    return train(spec, cfg, images, labels, run)


def test_shake_shake_training_is_reproducible_whatever_the_global_rng(tmp_path):
    """Shake-shake draws alpha and beta from torch's global generator: train() seeds it from the
    run's seed, so two runs agree bit for bit even when the process drew different numbers before
    (before the fix, Table 2's shake-shake column changed from run to run)."""
    torch.manual_seed(1)
    first = _train_shake_shake(tmp_path, "a", epochs=1)
    torch.rand(1000)
    second = _train_shake_shake(tmp_path, "b", epochs=1)
    assert first.history[0]["train_loss"] == second.history[0]["train_loss"]
    for p, q in zip(first.model.state_dict().values(), second.model.state_dict().values(), strict=True):
        assert torch.equal(p, q)


def test_shake_shake_resume_restores_the_layers_generator(tmp_path, monkeypatch):
    """Interrupted in epoch 2 of 2 and resumed (with the global generator disturbed in between), a
    shake-shake run ends with the same weights as one uninterrupted run."""
    import holdout.training.loop as loop

    whole = _train_shake_shake(tmp_path, "whole", epochs=2)
    real_epoch = loop._run_epoch

    def crash_in_epoch_2(job, run, fwd, epoch, bar):
        if epoch == 2:
            raise KeyboardInterrupt("interrupted")
        return real_epoch(job, run, fwd, epoch, bar)

    monkeypatch.setattr(loop, "_run_epoch", crash_in_epoch_2)
    with pytest.raises(KeyboardInterrupt):
        _train_shake_shake(tmp_path, "cut", epochs=2)
    monkeypatch.setattr(loop, "_run_epoch", real_epoch)
    torch.rand(1000)
    resumed = _train_shake_shake(tmp_path, "cut", epochs=2)
    assert resumed.resumed_from_epoch == 1
    for p, q in zip(whole.model.state_dict().values(), resumed.model.state_dict().values(), strict=True):
        assert torch.equal(p, q)
