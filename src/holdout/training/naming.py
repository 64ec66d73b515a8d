"""Names and file paths of the training studies, without torch.

The workflow's rule files import these at parse time (``workflow/rules/search_helpers.smk``,
``seeds_helpers.smk``, ``adversarial_cifar10_helpers.smk``), so this module imports only the
standard library: ``snakemake -n`` never loads torch. [`holdout.training.loop`][holdout.training.loop],
[`holdout.training.search`][holdout.training.search] and [`holdout.training.seeds`][holdout.training.seeds] re-export
them under their
old names.
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["checkpoint_epochs", "checkpoint_paths", "search_model_name", "seed_model_name"]


def checkpoint_epochs(epochs: int, num_checkpoints: int) -> list[int]:
    """The K evenly spaced epochs ``ceil(k * E / K)``, k = 1..K (the last is E)."""
    if num_checkpoints < 1:
        raise ValueError(f"num_checkpoints must be >= 1, got {num_checkpoints}")
    if num_checkpoints > epochs:
        raise ValueError(f"num_checkpoints={num_checkpoints} exceeds epochs={epochs}: checkpoints would repeat")
    return [math.ceil(k * epochs / num_checkpoints) for k in range(1, num_checkpoints + 1)]


def checkpoint_paths(out_dir: str | Path, num_checkpoints: int) -> list[Path]:
    """``out_dir/checkpoint_01.pt`` ... (the files [`holdout.training.loop.train`][holdout.training.loop.train] writes;
    for Snakemake outputs): at least two digits, more when K has more."""
    width = max(2, len(str(num_checkpoints)))
    return [Path(out_dir) / f"checkpoint_{k:0{width}d}.pt" for k in range(1, num_checkpoints + 1)]


def search_model_name(index: int) -> str:
    """Name of sampled model ``index`` of the search study: ``m000``, ``m001``, ..."""
    return f"m{index:03d}"


def seed_model_name(seed: int) -> str:
    """Name of the seeds study's model trained with ``seed``: ``seed000``, ``seed001``, ..."""
    return f"seed{int(seed):03d}"
