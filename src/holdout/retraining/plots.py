"""Recht et al. (2018) Figure 1 (class-balanced random draws, new vs original test set) and
Figure 3 (Appendix B: new-test images no model classifies correctly). One function per figure;
each returns the figure and a DataFrame of what it shows (for
[`holdout.plotting.save_figure`][holdout.plotting.save_figure])."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["figure1", "figure3", "image_mosaic"]


def _hwc(images: np.ndarray, what: str) -> np.ndarray:
    x = np.asarray(images)
    if x.dtype != np.uint8 or x.ndim != 4 or x.shape[-1] != 3:
        raise ValueError(f"{what}: expected uint8 images N x H x W x 3, got {x.dtype} {x.shape}")
    return x


def image_mosaic(images: np.ndarray, index: np.ndarray, pad: int = 1) -> np.ndarray:
    """One RGB image of ``images[index[r, c]]`` laid out in rows and columns, white ``pad`` pixels apart."""
    x = _hwc(images, "image_mosaic")
    rows, cols = index.shape
    h, w = x.shape[1:3]
    out = np.full((rows * (h + pad) - pad, cols * (w + pad) - pad, 3), 255, dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            out[r * (h + pad) : r * (h + pad) + h, c * (w + pad) : c * (w + pad) + w] = x[index[r, c]]
    return out


def figure1(
    panels: Sequence[tuple[str, np.ndarray, np.ndarray]], classes: Sequence[str]
) -> tuple[Figure, pd.DataFrame]:
    """Figure 1: per panel ``(title, images, index)`` a grid with one row per class.

    ``index`` is num_classes x per_class ([`holdout.retraining.balanced_draw`][holdout.retraining.balanced_draw]). The
    paper
    shows the new test set ("Test Set A") beside the original ("Test Set B").
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.6), squeeze=False)
    rows = []
    for ax, (title, images, index) in zip(axes[0], panels):
        index = np.asarray(index)
        ax.imshow(image_mosaic(images, index), interpolation="nearest")
        step = images.shape[1] + 1
        ax.set_yticks(np.arange(index.shape[0]) * step + step / 2 - 1, [classes[c] for c in range(index.shape[0])])
        ax.set_xticks([])
        ax.set_title(title)
        for side in ax.spines.values():
            side.set_visible(False)
        rows += [
            {"panel": title, "class": classes[r], "column": c + 1, "index": int(index[r, c])}
            for r in range(index.shape[0])
            for c in range(index.shape[1])
        ]
    fig.tight_layout()
    return fig, pd.DataFrame(rows)


def figure3(
    images: np.ndarray, hard: pd.DataFrame, classes: Sequence[str], columns: int = 6, max_images: int | None = None
) -> tuple[Figure, pd.DataFrame]:
    """Figure 3: hard images, each titled ``True: <class>`` / ``Predicted: <majority class>``.

    ``hard``: [`holdout.retraining.hard_images`][holdout.retraining.hard_images] (columns index, label, majority, ...).
    """
    x = _hwc(images, "figure3")
    shown = hard if max_images is None else hard.iloc[:max_images]
    n = max(1, len(shown))
    ncols = min(columns, n)
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(1.7 * ncols, 2.0 * nrows), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, r in zip(axes.flat, shown.itertuples(index=False)):
        ax.imshow(x[r.index], interpolation="nearest")
        ax.set_title(f"True: {classes[r.label]}\nPredicted: {classes[r.majority]}", fontsize=8)
    if shown.empty:
        axes.flat[0].text(0.5, 0.5, "no image is misclassified by every model", ha="center", va="center")
    fig.tight_layout()
    data = shown.assign(
        true_class=[classes[c] for c in shown["label"]], predicted_class=[classes[c] for c in shown["majority"]]
    )
    return fig, data.reset_index(drop=True)
