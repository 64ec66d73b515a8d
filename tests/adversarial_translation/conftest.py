"""Hand-built classifiers whose output depends only on where the window sits.

The canvas of image k has channel 0 = pixel row, channel 1 = pixel column and
channel 2 = k, so the top-left pixel of a window tells the model which image and
which window position it sees; the model returns ``table[k, top, left]``.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from torch import nn


def position_canvases(n: int, size: tuple[int, int]) -> torch.Tensor:
    """(n, 3, H, W) canvases encoding (row, column, image index)."""
    H, W = size
    rows = torch.arange(H, dtype=torch.float32)[:, None].expand(H, W)
    cols = torch.arange(W, dtype=torch.float32)[None, :].expand(H, W)
    out = torch.empty(n, 3, H, W)
    out[:, 0] = rows
    out[:, 1] = cols
    out[:, 2] = torch.arange(n, dtype=torch.float32)[:, None, None]
    return out


class PositionClassifier(nn.Module):
    """Logits looked up by (image, window top, window left); records every input."""

    def __init__(self, table: torch.Tensor):
        super().__init__()
        self.register_buffer("table", torch.as_tensor(table, dtype=torch.float32))
        self.seen: list[tuple[int, int, int]] = []
        self.calls = 0
        self.batch_sizes: list[int] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        img = x[:, 2, 0, 0].long()
        top = x[:, 0, 0, 0].long()
        left = x[:, 1, 0, 0].long()
        self.seen.extend(zip(img.tolist(), top.tolist(), left.tolist()))
        self.calls += 1
        self.batch_sizes.append(x.shape[0])
        return self.table[img, top, left]


def correct_table(n: int, size: tuple[int, int], classes: int = 3, label: int = 0) -> torch.Tensor:
    """Every window classified correctly as ``label`` (logit 2 vs 0)."""
    H, W = size
    t = torch.zeros(n, H, W, classes)
    t[..., label] = 2.0
    return t


def set_error(table: torch.Tensor, k: int, pos: tuple[int, int], excess: float, label: int = 0, wrong: int = 1) -> None:
    """Make window ``pos`` (absolute top, left) of image k misclassified with excess logit."""
    row = torch.zeros(table.shape[-1])
    row[label] = 0.0
    row[wrong] = excess
    table[k, pos[0], pos[1]] = row


@pytest.fixture(scope="session")
def hand() -> SimpleNamespace:
    """The hand-built classifiers and canvases above, for the tests of this folder."""
    return SimpleNamespace(
        position_canvases=position_canvases,
        PositionClassifier=PositionClassifier,
        correct_table=correct_table,
        set_error=set_error,
    )
