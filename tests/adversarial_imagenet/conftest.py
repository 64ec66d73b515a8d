"""A tiny ImageNet look-alike: generated images in ImageFolder layout."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

CLASSES = ("n00000001", "n00000002", "n00000003")
SIZES = ((50, 60), (64, 45))  # (height, width): landscape and portrait


def make_image_folder(root: Path, per_class: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    for c in CLASSES:
        (root / c).mkdir(parents=True, exist_ok=True)
        for k in range(per_class):
            h, w = SIZES[k % len(SIZES)]
            arr = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
            Image.fromarray(arr).save(root / c / f"img_{k}.png")
    return root


@pytest.fixture(scope="session")
def tiny_imagenet(tmp_path_factory) -> dict[str, Path]:
    """``{"train": <folder>, "val": <folder>}``: 3 classes, 3 and 2 images per class."""
    base = tmp_path_factory.mktemp("tiny_imagenet")
    return {
        "train": make_image_folder(base / "train", per_class=3, seed=1),
        "val": make_image_folder(base / "val", per_class=2, seed=2),
    }
