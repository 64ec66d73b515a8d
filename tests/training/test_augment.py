"""holdout.training.augment: every augmentation of Mania et al. (2019) Table 2, batched with per-sample randomness."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from holdout.training.augment import (
    CIFAR10_MEAN,
    CIFAR10_STD,
    AugmentConfig,
    augment_batch,
    cutout,
    mixup,
    normalize,
    one_hot,
    random_crop,
    random_erasing,
    random_horizontal_flip,
    smooth_labels,
)


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _images(n=64, size=12, seed=0):
    return torch.randint(0, 256, (n, 3, size, size), generator=_gen(seed), dtype=torch.uint8)


def test_random_crop_is_a_per_sample_window_of_the_zero_padded_image():
    x = _images(64)
    p = 4
    out = random_crop(x, p, _gen(1))
    padded = F.pad(x, (p, p, p, p))
    offsets = []
    for i in range(x.shape[0]):
        hits = [
            (dy, dx)
            for dy in range(2 * p + 1)
            for dx in range(2 * p + 1)
            if torch.equal(out[i], padded[i, :, dy : dy + 12, dx : dx + 12])
        ]
        assert hits, f"sample {i} is not a crop of its padded image"
        offsets.append(hits[0])
    assert len(set(offsets)) > 20  # offsets drawn per sample, not once per batch
    assert out.dtype == torch.uint8 and out.shape == x.shape
    assert torch.equal(random_crop(x, 0, _gen(1)), x)


def test_random_flip_is_per_sample():
    x = _images(200)
    out = random_horizontal_flip(x, 0.5, _gen(2))
    same = torch.tensor([torch.equal(out[i], x[i]) for i in range(200)])
    mirrored = torch.tensor([torch.equal(out[i], x[i].flip(-1)) for i in range(200)])
    assert torch.all(same | mirrored)
    assert 70 < int(mirrored.sum()) < 130
    assert torch.equal(random_horizontal_flip(x, 0.0, _gen(2)), x)


def test_normalize_matches_definition():
    x = _images(4)
    y = normalize(x, CIFAR10_MEAN, CIFAR10_STD)
    expected = (x.float() / 255 - torch.tensor(CIFAR10_MEAN).view(1, 3, 1, 1)) / torch.tensor(CIFAR10_STD).view(
        1, 3, 1, 1
    )
    assert torch.allclose(y, expected)


@pytest.mark.parametrize("size", [8, 7, 16])
def test_cutout_zeroes_exactly_the_clipped_square(size):
    n, h, w = 400, 12, 12
    x = torch.rand(n, 3, h, w, generator=_gen(5)) + 1.0  # no zeros before cutout
    gen = _gen(6)
    state = gen.get_state()
    out = cutout(x, size, 1.0, gen)
    # Redraw hysts' parameters with the same generator stream: apply, centre y, centre x.
    gen.set_state(state)
    off = 1 if size % 2 == 0 else 0
    apply = torch.rand(n, generator=gen) < 1.0
    cy = torch.randint(0, h + off, (n,), generator=gen)
    cx = torch.randint(0, w + off, (n,), generator=gen)
    clipped = 0
    for i in range(n):
        y0, x0 = int(cy[i]) - size // 2, int(cx[i]) - size // 2
        ya, yb, xa, xb = max(0, y0), min(h, y0 + size), max(0, x0), min(w, x0 + size)
        mask = torch.zeros(h, w, dtype=torch.bool)
        mask[ya:yb, xa:xb] = bool(apply[i])
        assert torch.equal(out[i] == 0, mask.expand(3, h, w)), i
        assert torch.equal(out[i][:, ~mask], x[i][:, ~mask])
        clipped += (yb - ya) * (xb - xa) < size * size
    assert clipped > 0  # the centre may fall near/outside the border, clipping the square
    assert int(cy.max()) == h - 1 + off  # centre range reaches H - 1 + offset


def test_cutout_probability():
    x = torch.ones(400, 1, 8, 8)
    out = cutout(x, 4, 0.3, _gen(7))
    frac = (out == 0).flatten(1).any(1).float().mean().item()
    assert 0.22 < frac < 0.38


def test_random_erasing_erases_one_inside_rectangle_with_a_constant():
    n, h, w = 600, 16, 16
    x = torch.full((n, 3, h, w), -5.0)
    out = random_erasing(x, 0.5, (0.02, 0.4), 0.3, 20, _gen(8))
    erased = 0
    for i in range(n):
        changed = (out[i] != -5.0).any(0)
        if not changed.any():
            continue
        erased += 1
        rows = changed.any(1).nonzero().flatten()
        cols = changed.any(0).nonzero().flatten()
        r0, r1, c0, c1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
        assert changed[r0:r1, c0:c1].all() and changed.sum() == (r1 - r0) * (c1 - c0)  # a rectangle
        eh, ew = r1 - r0, c1 - c0
        assert eh < h and ew < w and r1 <= h - 1 + 1 and c1 <= w  # strictly smaller than the image
        assert r0 <= h - eh - 1 and c0 <= w - ew - 1  # hysts: randint(0, H - h_e)
        vals = out[i][:, r0:r1, c0:c1]
        assert torch.all(vals == vals.flatten()[0]) and 0.0 <= float(vals.flatten()[0]) < 1.0
        assert eh * ew <= 0.4 * h * w + 1e-9
        # sides are floors of sqrt(area * r), sqrt(area / r) with area >= 0.02 HW, r in [0.3, 1/0.3]
        assert (eh + 1) * (ew + 1) > 0.02 * h * w
        assert (eh + 1) / max(ew, 1) >= 0.3 - 1e-9 and (ew + 1) / max(eh, 1) >= 0.3 - 1e-9
    assert 0.4 * n < erased < 0.6 * n


def test_random_erasing_retries_up_to_max_attempts():
    # On a 4 x 4 image with area ratio ~0.9 only aspect ratios near 1 fit strictly inside
    # (about 7% of draws): one attempt rarely erases, twenty attempts usually do.
    x = torch.zeros(1000, 1, 4, 4)

    def frac(attempts):
        out = random_erasing(x, 1.0, (0.9, 0.95), 0.3, attempts, _gen(9))
        return (out != 0).flatten(1).any(1).float().mean().item()

    assert frac(1) < 0.15 and frac(20) > 0.5


def test_mixup_targets_are_convex_combinations():
    n, c = 32, 10
    x = torch.randn(n, 3, 4, 4)
    y = torch.arange(n) % c
    t = one_hot(y, c)
    rng = np.random.default_rng(0)
    (mixed,), targets, lam = mixup((x,), t, 1.0, rng, _gen(10))
    assert 0.0 <= lam <= 1.0
    assert torch.all(targets >= 0) and torch.allclose(targets.sum(1), torch.ones(n))
    # each row is lam * e_{y_i} + (1 - lam) * e_{y_j} for the partner j whose image was mixed in
    for i in range(n):
        j = [k for k in range(n) if torch.allclose(mixed[i], lam * x[i] + (1 - lam) * x[k], atol=1e-5)]
        assert j, i
        assert torch.allclose(targets[i], lam * t[i] + (1 - lam) * t[j[0]])
    lams = [mixup((x,), t, 0.6, np.random.default_rng(s), _gen(s))[2] for s in range(200)]
    assert abs(np.mean(lams) - 0.5) < 0.06  # Beta(alpha, alpha) has mean 1/2


def test_label_smoothing_targets_sum_to_one():
    t = smooth_labels(one_hot(torch.tensor([0, 3, 9]), 10), 0.1)
    assert torch.allclose(t.sum(1), torch.ones(3))
    assert torch.allclose(t.max(1).values, torch.full((3,), 0.9 + 0.01))
    assert torch.allclose(t.min(1).values, torch.full((3,), 0.01))


def test_dual_cutout_gives_two_independent_views():
    x = _images(32, 16)
    y = torch.arange(32) % 10
    cfg = AugmentConfig(random_crop=False, horizontal_flip=False, dual_cutout=True, cutout_size=8)
    b = augment_batch(x, y, cfg, 10, _gen(11), np.random.default_rng(0))
    assert len(b.views) == 2 and not torch.equal(b.views[0], b.views[1])
    base = normalize(x, cfg.mean, cfg.std)
    for v in b.views:
        kept = v != 0
        assert torch.equal(v[kept], base[kept])  # each view is the image with a cutout square
        assert (~kept).flatten(1).any(1).all()
    assert torch.equal(b.targets, one_hot(y, 10))


def test_augment_batch_is_reproducible_and_composes_all_options():
    x = _images(16, 16)
    y = torch.arange(16) % 10
    cfg = AugmentConfig(
        cutout=True,
        dual_cutout=True,
        random_erasing=True,
        mixup=True,
        label_smoothing=True,
        label_smoothing_epsilon=0.2,
    )
    a = augment_batch(x, y, cfg, 10, _gen(12), np.random.default_rng(3))
    b = augment_batch(x, y, cfg, 10, _gen(12), np.random.default_rng(3), torch.channels_last)
    assert all(torch.equal(u, v) for u, v in zip(a.views, b.views))
    assert b.views[0].is_contiguous(memory_format=torch.channels_last)
    assert torch.allclose(a.targets.sum(1), torch.ones(16)) and a.targets.min() >= 0.02 - 1e-6
    c = augment_batch(x, y, cfg, 10, _gen(13), np.random.default_rng(3))
    assert not torch.equal(a.views[0], c.views[0])
    with pytest.raises(ValueError, match="uint8"):
        augment_batch(x.float(), y, cfg, 10, _gen(0), np.random.default_rng(0))


@pytest.mark.parametrize(
    "bad",
    [
        {"crop_padding": -1},
        {"erasing_area": (0.5, 0.2)},
        {"mixup_alpha": 0},
        {"label_smoothing_epsilon": 1.0},
        {"flip_prob": 2},
    ],
)
def test_invalid_augment_config_raises(bad):
    with pytest.raises(ValueError, match="AugmentConfig"):
        AugmentConfig(**bad)


def test_augment_config_round_trip():
    cfg = AugmentConfig(cutout=True, erasing_area=[0.1, 0.3])
    assert AugmentConfig.from_dict(cfg.to_dict()) == cfg
