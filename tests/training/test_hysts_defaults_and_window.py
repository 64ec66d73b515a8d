"""hysts' argparse-era defaults (commit 1d76092) in the engine, and the window augmentation of the seeds study."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from holdout.training import (
    AugmentConfig,
    ResNetPreactConfig,
    TrainConfig,
    augment_batch,
    build_resnet_preact,
    normalize,
)
from holdout.training.augment import center_window, cutout, random_erasing, random_window
from holdout.training.loop import LRSchedule, parameter_groups


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _images(n=32, size=32, seed=0):
    return torch.randint(0, 256, (n, 3, size, size), generator=_gen(seed), dtype=torch.uint8)


def test_cosine_anneals_to_zero_by_default():
    assert TrainConfig().lr_min_factor == 0.0
    s = LRSchedule("cosine", steps_per_epoch=10, epochs=5)
    assert s(0) == 1.0 and s(25) == pytest.approx(0.5) and s(50) == pytest.approx(0.0, abs=1e-12)


def test_final_linear_layer_keeps_pytorch_default_initialisation():
    torch.manual_seed(0)
    m = build_resnet_preact(ResNetPreactConfig(depth=20, base_channels=32))
    w, fan_in = m.fc.weight, m.fc.in_features  # 128 inputs
    bound = 1.0 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.9 * bound
    assert abs(w.std().item() - bound / math.sqrt(3)) < 0.1 * bound / math.sqrt(3)
    assert torch.all(m.fc.bias == 0)


def test_no_weight_decay_on_bn_exempts_every_parameter_named_bn():
    torch.manual_seed(0)
    m = build_resnet_preact(ResNetPreactConfig(depth=11, base_channels=4, block_type="bottleneck", add_last_bn=True))
    decayed, exempt = parameter_groups(m, 1e-3, decay_bn=False)
    names = {id(p): n for n, p in m.named_parameters()}
    assert {names[id(p)] for p in exempt["params"]} == {n for n in names.values() if "bn" in n}
    assert all("bn" not in names[id(p)] for p in decayed["params"]) and exempt["weight_decay"] == 0.0
    assert any(names[id(p)] == "fc.weight" for p in decayed["params"])
    bn_params = {id(p) for mod in m.modules() if isinstance(mod, torch.nn.BatchNorm2d) for p in mod.parameters()}
    assert {id(p) for p in exempt["params"]} == bn_params  # in ResNetPreact: exactly the BatchNorm parameters


def test_random_erasing_runs_before_cutout():
    x = _images(16)
    y = torch.arange(16) % 10
    cfg = AugmentConfig(
        random_crop=False,
        horizontal_flip=False,
        cutout=True,
        cutout_size=16,
        random_erasing=True,
        erasing_prob=1.0,
        erasing_area=(0.3, 0.5),
    )
    out = augment_batch(x, y, cfg, 10, _gen(3), np.random.default_rng(0)).views[0]
    g = _gen(3)
    ref = normalize(x, cfg.mean, cfg.std)
    ref = random_erasing(ref, 1.0, (0.3, 0.5), cfg.erasing_min_aspect, cfg.erasing_max_attempts, g)
    ref = cutout(ref, 16, 1.0, g)
    assert torch.equal(out, ref)
    g = _gen(3)
    other = random_erasing(
        cutout(normalize(x, cfg.mean, cfg.std), 16, 1.0, g),
        1.0,
        (0.3, 0.5),
        cfg.erasing_min_aspect,
        cfg.erasing_max_attempts,
        g,
    )
    assert not torch.equal(out, other)


def test_cutout_with_dual_cutout_cuts_each_view_once():
    x = _images(64)
    y = torch.arange(64) % 10
    cfg = AugmentConfig(random_crop=False, horizontal_flip=False, cutout=True, dual_cutout=True, cutout_size=8)
    base = normalize(x, cfg.mean, cfg.std)
    for v in augment_batch(x, y, cfg, 10, _gen(1), np.random.default_rng(0)).views:
        zeros = (v == 0) & (base != 0)
        per_image = zeros.all(1).flatten(1).sum(1)  # pixels zeroed in all channels
        assert per_image.max().item() <= 64  # one 8 x 8 square at most, never two


def test_random_window_is_a_uniform_per_sample_window():
    x = _images(400, 32)
    out = random_window(x, 28, _gen(5))
    assert out.shape == (400, 3, 28, 28)
    offsets = []
    for i in range(x.shape[0]):
        hits = [
            (dy, dx) for dy in range(5) for dx in range(5) if torch.equal(out[i], x[i, :, dy : dy + 28, dx : dx + 28])
        ]
        assert len(hits) == 1
        offsets.append(hits[0])
    counts = np.zeros((5, 5))
    for dy, dx in offsets:
        counts[dy, dx] += 1
    assert counts.min() > 0  # all 25 positions occur (expected 16 each)
    assert torch.equal(random_window(x, 28, _gen(5)), out) and not torch.equal(random_window(x, 28, _gen(6)), out)
    assert torch.equal(random_window(x, 32, _gen(0)), x)
    with pytest.raises(ValueError, match="does not fit"):
        random_window(x, 33, _gen(0))


def test_center_window_and_window_pipeline():
    x = _images(8, 32)
    c = center_window(x, 28)
    assert torch.equal(c, x[:, :, 2:30, 2:30])
    assert np.array_equal(center_window(x.numpy(), 27), x.numpy()[:, :, 2:29, 2:29])
    cfg = AugmentConfig(window=24, random_crop=False, horizontal_flip=False)
    b = augment_batch(x, torch.zeros(8, dtype=torch.long), cfg, 10, _gen(0), np.random.default_rng(0))
    assert b.views[0].shape == (8, 3, 24, 24)
    assert AugmentConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="window"):
        AugmentConfig(window=0)


def test_window_random_false_trains_on_the_centre_window():
    """``window_random=False``: the training view is the centre window, as at test time (no translation
    augmentation; the seeds study's default, so that the adversarial test can see the training set)."""
    import torch

    from holdout.training.augment import AugmentConfig, augment_batch, center_window, normalize

    x = torch.randint(0, 256, (5, 3, 32, 32), dtype=torch.uint8)
    y = torch.arange(5)
    cfg = AugmentConfig(random_crop=False, horizontal_flip=False, window=26, window_random=False)
    batch = augment_batch(x, y, cfg, 10, torch.Generator().manual_seed(0), np.random.default_rng(0))
    expected = normalize(center_window(x, 26), cfg.mean, cfg.std)
    assert torch.equal(batch.views[0], expected)
    moving = augment_batch(
        x,
        y,
        AugmentConfig(random_crop=False, horizontal_flip=False, window=26),
        10,
        torch.Generator().manual_seed(0),
        np.random.default_rng(0),
    )
    assert not torch.equal(moving.views[0], expected)  # random positions differ from the centre
