"""Predict with every checkpoint of a trained model, in large batches, into holdout.predictions.

One call of [`predict_checkpoints`][holdout.training.inference.predict_checkpoints] loads each test set once onto the
device (uint8)
and runs every checkpoint of one model over it (``batch_size`` images per forward,
bf16 autocast and channels_last on CUDA by default). The result is one
[`holdout.predictions.Predictions`][holdout.predictions.Predictions] per test set with the logits in ``scores``,
model names ``<model>@e<epoch:03d>`` and metadata naming the configuration and epoch.
[`gather_predictions`][holdout.training.inference.gather_predictions] concatenates the per-model files of a study.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from holdout.predictions import Predictions, save_predictions
from holdout.training.augment import center_window
from holdout.training.checkpoints import load_checkpoint
from holdout.training.device import select_device
from holdout.training.evaluation import predict
from holdout.training.gather import gather_predictions
from holdout.training.subset import train_subset

__all__ = [
    "checkpoint_name",
    "gather_predictions",
    "load_test_sets",
    "predict_checkpoints",
    "prepare_images",
    "save_per_test_set",
]


def checkpoint_name(model: str, epoch: int) -> str:
    """``<model>@e<epoch:03d>``, the model name of one checkpoint in a predictions file."""
    return f"{model}@e{epoch:03d}"


def prepare_images(images: torch.Tensor, test_time: Mapping[str, Any]) -> torch.Tensor:
    """The network input of a checkpoint: the centre window when it was trained on windows."""
    window = test_time.get("window")
    return images if window is None else center_window(images, int(window))


def predict_checkpoints(
    model: str,
    checkpoints: Sequence[str | Path],
    test_sets: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    config: Mapping[str, Any] | None = None,
    batch_size: int = 2048,
    device: str | None = None,
    autocast: bool | None = None,
    channels_last: bool = True,
    log: logging.Logger | None = None,
) -> dict[str, Predictions]:
    """Logits of every checkpoint of ``model`` on every test set (uint8 N x C x H x W, labels).

    ``config`` (e.g. the sampled Table 2 row) goes into each checkpoint's metadata with
    its epoch and training metrics. ``autocast`` (bf16) defaults to on for CUDA only.
    """
    log = log or logging.getLogger("holdout.training.inference")
    dev = select_device(device)
    autocast = dev.type == "cuda" if autocast is None else autocast
    data = {name: torch.as_tensor(x).to(dev) for name, (x, _) in test_sets.items()}
    logits: dict[str, list[np.ndarray]] = {name: [] for name in test_sets}
    names: list[str] = []
    metas: list[dict[str, Any]] = []
    for path in checkpoints:
        net, meta = load_checkpoint(path, device=dev)
        epoch = int(meta["epoch"])
        names.append(checkpoint_name(model, epoch))
        metas.append(
            {
                "model": model,
                "epoch": epoch,
                "checkpoint": Path(path).name,
                "seed": meta.get("seed"),
                "train_metrics": meta.get("metrics", {}),
                "config": dict(config or {}),
            }
        )
        tt = meta["test_time"]
        for name, x in data.items():
            t0 = time.perf_counter()
            _, z = predict(
                net,
                prepare_images(x, tt),
                batch_size,
                device=dev,
                mean=tt["mean"],
                std=tt["std"],
                channels_last=channels_last,
                autocast=autocast,
            )
            dt = time.perf_counter() - t0
            if not np.isfinite(z).all():  # a diverged run (Table 2 draws learning rates up to 0.5)
                log.warning("%s on %s: non-finite logits (diverged training) set to 0 / +-max", names[-1], name)
                z = np.nan_to_num(z, nan=0.0)
                metas[-1]["finite_logits"] = False
            logits[name].append(z)
            acc = float((z.argmax(1) == test_sets[name][1]).mean())
            log.info(
                "%s on %s: accuracy %.4f, %d images in %.2f s (%.0f images/s)",
                names[-1],
                name,
                acc,
                x.shape[0],
                dt,
                x.shape[0] / max(dt, 1e-9),
            )
    out = {}
    for name, (_, y) in test_sets.items():
        z = np.stack(logits[name])
        out[name] = Predictions.create(
            z.argmax(2),
            y,
            names,
            num_classes=z.shape[2],
            test_set=name,
            metadata=metas,
            scores=z,
            source=f"{model} on {name}",
        )
    return out


def load_test_sets(
    arrays: str | Path,
    train_subset_path: str | Path,
    *,
    study: str,
    subset_size: int,
    subset_seed: int,
    test_sets: Sequence[str] = (),
    files: Mapping[str, str | Path] | None = None,
    missing_cifar10_1: Sequence[str] = (),
    max_images: int | None = None,
    log: logging.Logger | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The test sets of a trained study's models, as (uint8 N x C x H x W, labels) by name.

    ``cifar10_test``; ``cifar10_train_subset``: for ``study == "seeds"`` exactly the images every
    seed model was trained on (``train_subset_path``), otherwise a seeded subset (``subset_size``,
    ``subset_seed``, [`holdout.training.subset.train_subset`][holdout.training.subset.train_subset]) of the images the
    search trained
    on; each ``cifar10_1_<v>`` in ``test_sets`` from ``files["images_<v>"]`` (N x H x W x C) and
    ``files["labels_<v>"]`` (the rule's ``.npy`` inputs).
    ``missing_cifar10_1`` (versions whose images this config cannot have) is logged.
    ``max_images`` (a dress rehearsal's ``training.cap.images``) keeps the first images of each set.
    """
    log = log or logging.getLogger("holdout")
    if missing_cifar10_1:
        log.info(
            "CIFAR-10.1 %s: images not available under this config (not in the data mirror or no checksum): "
            "those test sets are left out",
            ", ".join(missing_cifar10_1),
        )
    with np.load(arrays) as z:
        sets = {"cifar10_test": (z["test_images"], z["test_labels"])}
        idx = np.load(train_subset_path)
        if study != "seeds":
            idx = idx[train_subset(len(idx), min(int(subset_size), len(idx)), int(subset_seed))]
        sets["cifar10_train_subset"] = (z["train_images"][idx], z["train_labels"][idx])
    for name in test_sets:
        if name.startswith("cifar10_1_"):
            v = name.removeprefix("cifar10_1_")
            x = np.load(files[f"images_{v}"])  # type: ignore[index]
            sets[name] = (np.ascontiguousarray(x.transpose(0, 3, 1, 2)), np.load(files[f"labels_{v}"]))  # type: ignore[index]
    if max_images is not None:
        sets = {name: (x[:max_images], y[:max_images]) for name, (x, y) in sets.items()}
    for name, (x, y) in sets.items():
        log.info("%s: %d images %s", name, len(y), x.shape)
    return sets


def save_per_test_set(paths: Sequence[str | Path], preds: Mapping[str, Predictions]) -> None:
    """Save each ``<dir>/<test_set>.npz`` in ``paths`` from ``preds[test_set]``."""
    for path in paths:
        save_predictions(path, preds[Path(path).name.removesuffix(".npz")])
