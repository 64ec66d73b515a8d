"""Synthetic CIFAR-shaped data for the training tests (no real CIFAR-10 needed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch


def make_synthetic(n: int, size: int = 16, num_classes: int = 10, seed: int = 0, noise: float = 45.0):
    """uint8 images N x 3 x size x size whose class is a colour pattern plus heavy pixel noise.

    Class c has a fixed RGB colour (a point of a 3-level grid) filling the image,
    plus a class-dependent vertical gradient; every pixel gets N(0, noise^2)
    noise. The signal survives crops, flips, cutout and erasing, so a small
    ResNet can learn it within a few epochs; chance accuracy is 1 / num_classes.
    """
    rng = np.random.default_rng(seed)
    levels = np.array([40.0, 128.0, 216.0])
    grid = np.array([[levels[i], levels[j], levels[k]] for i in range(3) for j in range(3) for k in range(3)])
    colours = grid[np.random.default_rng(1234).permutation(len(grid))[:num_classes]]
    slopes = np.linspace(-40.0, 40.0, num_classes)[np.random.default_rng(99).permutation(num_classes)]
    labels = rng.integers(0, num_classes, n)
    ramp = np.linspace(-1.0, 1.0, size)[None, None, :, None]
    x = colours[labels][:, :, None, None] + slopes[labels][:, None, None, None] * ramp
    x = x + rng.normal(0.0, noise, (n, 3, size, size))
    return np.clip(np.rint(x), 0, 255).astype(np.uint8), labels.astype(np.int64)


@pytest.fixture(scope="session")
def synthetic():
    return make_synthetic


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Tiny models on one thread: on a shared 2-core machine, two OpenMP threads spin-wait on
    each other (64 forward passes of 4-channel models: 16 s of CPU time instead of 0.2 s)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
