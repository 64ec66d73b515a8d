"""Checkpoint and log files of [`holdout.training.loop.train`][holdout.training.loop.train] (Mania et al. 2019, Sec.
5.2).

Mania et al. keep K evenly spaced checkpoints per model;
[`checkpoint_epochs`][holdout.training.checkpoints.checkpoint_epochs] says which
epochs, [`checkpoint_paths`][holdout.training.checkpoints.checkpoint_paths] where (``checkpoint_01.pt`` ...: the
Snakemake outputs; both live
in the torch-free [`holdout.training.naming`][holdout.training.naming], which the workflow imports at parse time),
[`load_checkpoint`][holdout.training.checkpoints.load_checkpoint] rebuilds a model from one. The writers are atomic
(temporary file, then
``os.replace``), so an interrupted job never leaves a half-written checkpoint, state or log.
"""

from __future__ import annotations

import csv
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holdout.training.naming import checkpoint_epochs, checkpoint_paths

if TYPE_CHECKING:
    import torch
    from torch import nn

__all__ = [
    "LOG_FIELDS",
    "LOG_NAME",
    "STATE_NAME",
    "atomic_copy",
    "atomic_save",
    "checkpoint_epochs",
    "checkpoint_paths",
    "cpu_state",
    "load_checkpoint",
    "write_log",
]

LOG_NAME = "training_log.csv"
STATE_NAME = "state.pt"
LOG_FIELDS = (
    "epoch",
    "train_loss",
    "train_accuracy",
    "lr",
    "images_per_s",
    "epoch_time_s",
    "wall_time_s",
    "test_loss",
    "test_accuracy",
)


def _tmp_beside(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_save(obj: Any, path: Path) -> None:
    """``torch.save(obj, path)`` through a temporary file in the same folder."""
    import torch

    tmp = _tmp_beside(path)
    torch.save(obj, tmp)
    os.replace(tmp, path)


def atomic_copy(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` through a temporary file beside ``dst``."""
    tmp = _tmp_beside(dst)
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def write_log(path: Path, history: list[dict[str, float]]) -> None:
    """The per-epoch log (``LOG_FIELDS`` columns; empty where a row lacks one), atomically."""
    tmp = _tmp_beside(path)
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=LOG_FIELDS)
        w.writeheader()
        for row in history:
            w.writerow({k: row.get(k, "") for k in LOG_FIELDS})
    os.replace(tmp, path)


def cpu_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of ``model.state_dict()`` (what checkpoints and the resumable state store)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def load_checkpoint(path: str | Path, device: str | torch.device = "cpu") -> tuple[nn.Module, dict[str, Any]]:
    """Rebuild the model of a checkpoint written by `train`; returns ``(model in eval mode, metadata)``."""
    import torch

    from holdout.training.registry import build_network, model_config_from_dict

    path = Path(path)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ValueError(f"{path}: not a readable checkpoint ({exc})") from exc
    if not isinstance(ckpt, dict) or "model_state" not in ckpt or "model_config" not in ckpt:
        raise ValueError(f"{path}: not a holdout checkpoint (missing model_state / model_config)")
    model = build_network(model_config_from_dict(ckpt["model_config"]))
    model.load_state_dict(ckpt["model_state"])
    model.to(device).eval()
    meta = {k: v for k, v in ckpt.items() if k != "model_state"}
    return model, meta
