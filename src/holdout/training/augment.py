"""Batched data augmentation with per-sample randomness (Mania et al. 2019, Table 2).

Every augmentation in Mania et al.'s Table 2 as a tensor operation over a whole
batch on the training device: each image draws its own crop offset, flip,
cutout centre and erasing rectangle from a ``torch.Generator`` (torchvision's v2
transforms draw one parameter set per call, which is a different distribution).
The pipeline follows the transform order of hysts/pytorch_image_classification's
argparse-era ``dataloader.py`` (commit 1d76092, the release Mania et al. used):

0. (optional, not in Table 2) a random ``window x window`` crop of each image, the
   augmentation of the seeds study; test time takes the centre window
   ([`center_window`][holdout.training.augment.center_window]);
1. random crop with zero padding and horizontal flip, on the uint8 images;
2. conversion to float and per-channel normalisation (CIFAR-10 statistics);
3. random erasing (one uniform(0, 1) value per erased image, normalised space);
4. cutout (mask colour 0 in normalised space, i.e. the channel mean), or, with dual
   cutout, two independently cut-out views of each image (dual cutout *is* cutout
   applied twice, so when both switches are on each view is cut out once);
5. mixup (one ``lambda ~ Beta(alpha, alpha)`` per batch, a random pairing);
6. label smoothing of the (possibly mixed) one-hot targets.

hysts refuses cutout together with dual cutout and mixup together with dual cutout,
and selects one training loss (mixup > label smoothing > dual cutout) when several
are enabled; Table 2 samples every switch independently, so here all enabled options
compose (soft targets are mixed, then smoothed; dual cutout uses them for both views).
See README `training`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

__all__ = [
    "CIFAR10_MEAN",
    "CIFAR10_STD",
    "AugmentConfig",
    "AugmentedBatch",
    "random_crop",
    "random_horizontal_flip",
    "normalize",
    "cutout",
    "random_erasing",
    "random_window",
    "center_window",
    "mixup",
    "smooth_labels",
    "one_hot",
    "augment_batch",
]

#: CIFAR-10 per-channel mean and standard deviation (RGB, images scaled to [0, 1]), as in hysts.
CIFAR10_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR10_STD = (0.2470, 0.2435, 0.2616)


@dataclass(frozen=True)
class AugmentConfig:
    """Augmentation options of Table 2; defaults are hysts' (crop 4 + flip on, rest off).

    ``window`` (not a Table 2 option; ``None``: off): train on a random ``window x window``
    crop of each image (position uniform, per sample) and test on the centre window.
    ``window_random=False`` trains on the centre window too (no translation augmentation).
    """

    random_crop: bool = True
    crop_padding: int = 4
    horizontal_flip: bool = True
    flip_prob: float = 0.5
    cutout: bool = False
    cutout_size: int = 16
    cutout_prob: float = 1.0
    dual_cutout: bool = False
    dual_cutout_alpha: float = 0.1
    random_erasing: bool = False
    erasing_prob: float = 0.5
    erasing_area: tuple[float, float] = (0.02, 0.4)
    erasing_min_aspect: float = 0.3
    erasing_max_attempts: int = 20
    mixup: bool = False
    mixup_alpha: float = 1.0
    label_smoothing: bool = False
    label_smoothing_epsilon: float = 0.1
    mean: tuple[float, float, float] = CIFAR10_MEAN
    std: tuple[float, float, float] = CIFAR10_STD
    window: int | None = None
    window_random: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "erasing_area", tuple(float(a) for a in self.erasing_area))
        object.__setattr__(self, "mean", tuple(float(a) for a in self.mean))
        object.__setattr__(self, "std", tuple(float(a) for a in self.std))
        checks = [
            (self.window is None or self.window >= 1, "window must be None or >= 1"),
            (self.crop_padding >= 0, "crop_padding must be >= 0"),
            (0.0 <= self.flip_prob <= 1.0, "flip_prob must be in [0, 1]"),
            (self.cutout_size >= 1, "cutout_size must be >= 1"),
            (0.0 <= self.cutout_prob <= 1.0, "cutout_prob must be in [0, 1]"),
            (self.dual_cutout_alpha >= 0.0, "dual_cutout_alpha must be >= 0"),
            (0.0 <= self.erasing_prob <= 1.0, "erasing_prob must be in [0, 1]"),
            (
                len(self.erasing_area) == 2 and 0.0 < self.erasing_area[0] <= self.erasing_area[1] < 1.0,
                "erasing_area must be (low, high) with 0 < low <= high < 1",
            ),
            (0.0 < self.erasing_min_aspect <= 1.0, "erasing_min_aspect must be in (0, 1]"),
            (self.erasing_max_attempts >= 1, "erasing_max_attempts must be >= 1"),
            (self.mixup_alpha > 0.0, "mixup_alpha must be > 0"),
            (0.0 <= self.label_smoothing_epsilon < 1.0, "label_smoothing_epsilon must be in [0, 1)"),
            (len(self.mean) == len(self.std) and all(s > 0 for s in self.std), "mean/std must match, std > 0"),
        ]
        for ok, msg in checks:
            if not ok:
                raise ValueError(f"AugmentConfig: {msg}")

    @property
    def num_views(self) -> int:
        return 2 if self.dual_cutout else 1

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("erasing_area", "mean", "std"):
            d[k] = list(d[k])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AugmentConfig:
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"AugmentConfig: unknown keys {sorted(unknown)}")
        d = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
        return cls(**d)


def _uniform(n: int, gen: torch.Generator | None, device: torch.device) -> torch.Tensor:
    return torch.rand(n, generator=gen, device=device)


def random_window(images: torch.Tensor, size: int, gen: torch.Generator | None = None) -> torch.Tensor:
    """Per-sample random ``size x size`` window of each image (N x C x H x W, any dtype).

    The top-left corner ``(y0, x0)`` is uniform on ``{0..H-size} x {0..W-size}``,
    independently per image (two gathers, no per-image Python).
    """
    n, c, h, w = images.shape
    if not 1 <= size <= min(h, w):
        raise ValueError(f"random_window: window {size} does not fit images of size {h} x {w}")
    if size == h == w:
        return images
    dev = images.device
    oy = torch.randint(0, h - size + 1, (n,), generator=gen, device=dev)
    ox = torch.randint(0, w - size + 1, (n,), generator=gen, device=dev)
    rows = (oy[:, None] + torch.arange(size, device=dev))[:, None, :, None].expand(n, c, size, w)
    cols = (ox[:, None] + torch.arange(size, device=dev))[:, None, None, :].expand(n, c, size, size)
    return images.gather(2, rows).gather(3, cols)


def center_window(images: torch.Tensor | np.ndarray, size: int) -> torch.Tensor | np.ndarray:
    """The centre ``size x size`` window (top-left ``((H - size) // 2, (W - size) // 2)``) of N x C x H x W images."""
    h, w = images.shape[-2:]
    if not 1 <= size <= min(h, w):
        raise ValueError(f"center_window: window {size} does not fit images of size {h} x {w}")
    y0, x0 = (h - size) // 2, (w - size) // 2
    return images[..., y0 : y0 + size, x0 : x0 + size]


def random_crop(images: torch.Tensor, padding: int, gen: torch.Generator | None = None) -> torch.Tensor:
    """Per-sample random crop of the zero-padded image back to its size (any dtype, N x C x H x W).

    Equivalent to ``torchvision.transforms.RandomCrop(size, padding, fill=0)``
    applied to each image independently: offsets ``(dy, dx)`` uniform on
    ``{0, ..., 2 * padding}``.
    """
    if padding == 0:
        return images
    n, c, h, w = images.shape
    dev = images.device
    padded = F.pad(images, (padding, padding, padding, padding))
    oy = torch.randint(0, 2 * padding + 1, (n,), generator=gen, device=dev)
    ox = torch.randint(0, 2 * padding + 1, (n,), generator=gen, device=dev)
    # Two gathers (rows, then columns) on the padded batch: O(N C H W), no per-image Python.
    rows = (oy[:, None] + torch.arange(h, device=dev))[:, None, :, None].expand(n, c, h, w + 2 * padding)
    cols = (ox[:, None] + torch.arange(w, device=dev))[:, None, None, :].expand(n, c, h, w)
    return padded.gather(2, rows).gather(3, cols)


def random_horizontal_flip(images: torch.Tensor, prob: float = 0.5, gen: torch.Generator | None = None) -> torch.Tensor:
    """Mirror each image left-right with probability ``prob``, independently per sample."""
    flip = _uniform(images.shape[0], gen, images.device) < prob
    return torch.where(flip[:, None, None, None], images.flip(-1), images)


def normalize(
    images: torch.Tensor, mean: tuple[float, ...], std: tuple[float, ...], dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """uint8 images in [0, 255] to ``(x / 255 - mean) / std`` per channel."""
    m = torch.tensor(mean, dtype=dtype, device=images.device).view(1, -1, 1, 1)
    s = torch.tensor(std, dtype=dtype, device=images.device).view(1, -1, 1, 1)
    return (images.to(dtype) / 255.0 - m) / s


def cutout(images: torch.Tensor, size: int, prob: float = 1.0, gen: torch.Generator | None = None) -> torch.Tensor:
    """Cutout (DeVries & Taylor 2017) per sample, hysts' variant (``cut_inside=False``).

    The square's centre ``(cy, cx)`` is uniform on ``{0, ..., H - 1 + o} x {0, ..., W - 1 + o}``
    with ``o = 1`` for even sizes (so it may lie outside the image), its top-left
    corner is ``centre - size // 2``, and the square is clipped to the image and
    set to 0. Each image is cut with probability ``prob``.
    """
    n, _, h, w = images.shape
    dev = images.device
    off = 1 if size % 2 == 0 else 0
    apply = _uniform(n, gen, dev) < prob
    cy = torch.randint(0, h + off, (n,), generator=gen, device=dev)
    cx = torch.randint(0, w + off, (n,), generator=gen, device=dev)
    y0 = (cy - size // 2)[:, None]
    x0 = (cx - size // 2)[:, None]
    ys = torch.arange(h, device=dev)[None, :]
    xs = torch.arange(w, device=dev)[None, :]
    in_y = (ys >= y0) & (ys < y0 + size)  # n,h
    in_x = (xs >= x0) & (xs < x0 + size)  # n,w
    mask = (in_y[:, :, None] & in_x[:, None, :]) & apply[:, None, None]
    return images.masked_fill(mask[:, None], 0)


def random_erasing(
    images: torch.Tensor,
    prob: float = 0.5,
    area: tuple[float, float] = (0.02, 0.4),
    min_aspect: float = 0.3,
    max_attempts: int = 20,
    gen: torch.Generator | None = None,
) -> torch.Tensor:
    """Random erasing (Zhong et al. 2017), hysts' variant, per sample.

    With probability ``prob`` an image draws up to ``max_attempts`` rectangles
    (area ``U(area) * H * W``, aspect ``U(min_aspect, 1 / min_aspect)``, sides
    truncated to integers) and erases the first that fits strictly inside
    (``h_e < H`` and ``w_e < W``) at a uniform position ``y0 in {0..H-h_e-1}``,
    ``x0 in {0..W-w_e-1}``, with one value ``U(0, 1)`` for all its pixels.
    """
    n, _, h, w = images.shape
    dev = images.device
    k = max_attempts
    apply = _uniform(n, gen, dev) < prob
    target = torch.empty(n, k, device=dev).uniform_(area[0], area[1], generator=gen) * (h * w)
    aspect = torch.empty(n, k, device=dev).uniform_(min_aspect, 1.0 / min_aspect, generator=gen)
    eh = torch.sqrt(target * aspect).floor().long()
    ew = torch.sqrt(target / aspect).floor().long()
    fits = (ew < w) & (eh < h)
    first = torch.argmax(fits.to(torch.uint8), dim=1)  # index of first fitting attempt
    apply = apply & fits.any(dim=1)
    eh = eh.gather(1, first[:, None])[:, 0]
    ew = ew.gather(1, first[:, None])[:, 0]
    y0 = (_uniform(n, gen, dev) * (h - eh).clamp(min=1)).floor().long()
    x0 = (_uniform(n, gen, dev) * (w - ew).clamp(min=1)).floor().long()
    value = _uniform(n, gen, dev).to(images.dtype)
    ys = torch.arange(h, device=dev)[None, :]
    xs = torch.arange(w, device=dev)[None, :]
    in_y = (ys >= y0[:, None]) & (ys < (y0 + eh)[:, None])
    in_x = (xs >= x0[:, None]) & (xs < (x0 + ew)[:, None])
    mask = (in_y[:, :, None] & in_x[:, None, :] & apply[:, None, None])[:, None]
    return torch.where(mask, value[:, None, None, None], images)


def one_hot(labels: torch.Tensor, num_classes: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return F.one_hot(labels.long(), num_classes).to(dtype)


def mixup(
    views: tuple[torch.Tensor, ...],
    targets: torch.Tensor,
    alpha: float,
    rng: np.random.Generator,
    gen: torch.Generator | None = None,
) -> tuple[tuple[torch.Tensor, ...], torch.Tensor, float]:
    """mixup (Zhang et al. 2018): ``x = lam x + (1 - lam) x[perm]``, same for soft targets.

    One ``lam ~ Beta(alpha, alpha)`` per batch (from ``rng``) and a uniform random
    pairing ``perm`` (from ``gen``), as in hysts. All ``views`` (N x C x H x W each)
    are mixed with the same pairing and ``lam``.
    """
    lam = float(rng.beta(alpha, alpha))
    n = targets.shape[0]
    perm = torch.randperm(n, generator=gen, device=gen.device if gen is not None else targets.device)
    perm = perm.to(targets.device)
    mixed = tuple(v * lam + v[perm] * (1.0 - lam) for v in views)
    return mixed, targets * lam + targets[perm] * (1.0 - lam), lam


def smooth_labels(targets: torch.Tensor, epsilon: float) -> torch.Tensor:
    """Label smoothing (Szegedy et al. 2016): ``(1 - eps) * t + eps / C`` (rows still sum to 1)."""
    return targets * (1.0 - epsilon) + epsilon / targets.shape[-1]


@dataclass(frozen=True)
class AugmentedBatch:
    """Network inputs ``views`` (1 or 2 float tensors N x C x H x W) and soft ``targets`` (N x classes)."""

    views: tuple[torch.Tensor, ...]
    targets: torch.Tensor
    hard_labels: torch.Tensor


def augment_batch(
    images: torch.Tensor,
    labels: torch.Tensor,
    config: AugmentConfig,
    num_classes: int,
    gen: torch.Generator | None,
    rng: np.random.Generator,
    memory_format: torch.memory_format = torch.contiguous_format,
) -> AugmentedBatch:
    """The full training-time pipeline (module docstring) on one uint8 batch, on its device."""
    if images.dtype != torch.uint8 or images.dim() != 4:
        raise ValueError(
            f"augment_batch: expected uint8 N x C x H x W images, got {images.dtype} {tuple(images.shape)}"
        )
    x = images
    if config.window is not None:
        x = random_window(x, config.window, gen) if config.window_random else center_window(x, config.window)
    if config.random_crop:
        x = random_crop(x, config.crop_padding, gen)
    if config.horizontal_flip:
        x = random_horizontal_flip(x, config.flip_prob, gen)
    x = normalize(x, config.mean, config.std)
    if config.random_erasing:  # hysts (1d76092): erasing before cutout
        x = random_erasing(
            x, config.erasing_prob, config.erasing_area, config.erasing_min_aspect, config.erasing_max_attempts, gen
        )
    if config.cutout and not config.dual_cutout:  # dual cutout already cuts each view once
        x = cutout(x, config.cutout_size, config.cutout_prob, gen)
    views: tuple[torch.Tensor, ...]
    if config.dual_cutout:
        views = tuple(cutout(x, config.cutout_size, config.cutout_prob, gen) for _ in range(2))
    else:
        views = (x,)
    targets = one_hot(labels, num_classes)
    if config.mixup:
        views, targets, _ = mixup(views, targets, config.mixup_alpha, rng, gen)
    if config.label_smoothing:
        targets = smooth_labels(targets, config.label_smoothing_epsilon)
    views = tuple(v.contiguous(memory_format=memory_format) for v in views)
    return AugmentedBatch(views=views, targets=targets, hard_labels=labels)
