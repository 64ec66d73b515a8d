"""One training job of a workflow rule: the block the search and seeds studies share.

A job ([`TrainJob`][holdout.training.jobs.TrainJob]) is what a study's configuration resolves to for one model: the
model and training configs, the seed, the metadata stored with the checkpoints and the
``config.json`` record written beside them. [`train_job`][holdout.training.jobs.train_job] holds a GPU slot
([`holdout.training.gpu.gpu_slot`][holdout.training.gpu.gpu_slot]), picks the device, trains
([`holdout.training.loop.train`][holdout.training.loop.train]), logs the final epoch and moves the per-epoch log to
the rule's output. Imported by the workflow scripts only (not by ``holdout.training``), so
that ``python -m holdout.training.gpu`` keeps loading its module once.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from holdout.data.core import CIFAR10, CIFAR10_CLASSES
from holdout.predictions import Predictions
from holdout.runlog import timed
from holdout.training.cap import WorkCap
from holdout.training.gpu import gpu_slot
from holdout.training.inference import predict_checkpoints
from holdout.training.loop import LOG_NAME, RunSettings, TrainConfig, TrainResult, train

__all__ = [
    "TrainJob",
    "load_cifar10_arrays",
    "load_train_subset",
    "predict_job",
    "train_group_folders",
    "train_group_jobs",
    "train_job",
    "write_json",
]


@dataclass(frozen=True)
class TrainJob:
    """One model to train: configs, seed, checkpoint metadata and the ``config.json`` record."""

    name: str
    model_config: Any
    train_config: TrainConfig
    seed: int
    metadata: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)

    def config_json(self, train_subset_size: int) -> dict[str, Any]:
        """The job's ``config.json``: its record, the training subset size and both configs."""
        return {
            **self.record,
            "train_subset_size": int(train_subset_size),
            "model_config": self.model_config.to_dict(),
            "train_config": self.train_config.to_dict(),
        }


def load_train_subset(arrays: str | Path, subset: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """CIFAR-10 training images and labels at the indices in the ``.npy`` file ``subset``."""
    idx = np.load(subset)
    with np.load(arrays) as z:
        return z["train_images"][idx], z["train_labels"][idx]


def load_cifar10_arrays(arrays: str | Path) -> CIFAR10:
    """CIFAR-10 from the workflow's decoded arrays (``training_cifar10_arrays``: uint8 N x 3 x 32 x 32)
    in [`holdout.data.load_cifar10`][holdout.data.load_cifar10]'s layout (N x 32 x 32 x 3): the same images, read in
    0.4 CPU-seconds instead of 3.9 for decoding the archive again."""
    with np.load(arrays) as z:
        missing = {"train_images", "train_labels", "test_images", "test_labels"} - set(z.files)
        if missing:
            raise ValueError(f"{arrays}: not the CIFAR-10 arrays file (missing {sorted(missing)})")
        hwc = {k: np.ascontiguousarray(z[k].transpose(0, 2, 3, 1)) for k in ("train_images", "test_images")}
        return CIFAR10(
            train_images=hwc["train_images"],
            train_labels=z["train_labels"].astype(np.int64),
            test_images=hwc["test_images"],
            test_labels=z["test_labels"].astype(np.int64),
            classes=CIFAR10_CLASSES,
        )


def write_json(path: str | Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON (the workflow's ``config.json`` / summary files)."""
    with open(path, "w") as fh:
        json.dump(obj, fh, indent=2)


def train_job(
    job: TrainJob,
    images: np.ndarray,
    labels: np.ndarray,
    *,
    out_dir: str | Path,
    log_out: str | Path,
    state_dir: str | Path,
    num_checkpoints: int,
    device: str = "auto",
    jobs_per_gpu: int | None = None,
    threads: int | None = None,
    cap: WorkCap | None = None,
    cuda_graphs: bool = False,
    log: logging.Logger | None = None,
) -> TrainResult:
    """Train ``job`` on ``images``/``labels`` inside a GPU slot; move the epoch log to ``log_out``.

    ``device="auto"`` takes the slot's device (a free GPU, else the CPU); any other value is
    used as given. ``cap``: the dress rehearsal's work cap (``training.cap``); ``cuda_graphs``
    (``training.cuda_graphs``): replay each step as a CUDA graph on a GPU. Logs the final train
    loss, accuracy and wall time of the run.
    """
    log = log or logging.getLogger("holdout")
    with gpu_slot(log=log, jobs_per_gpu=jobs_per_gpu) as slot:
        dev = slot.device if device == "auto" else device
        epochs = job.train_config.epochs
        with timed(log, f"train {job.name} on {len(labels)} images, {epochs} epochs, device {dev}"):
            res = train(
                job.model_config,
                job.train_config,
                images,
                labels,
                RunSettings(
                    out_dir=Path(out_dir),
                    state_dir=Path(state_dir),
                    seed=job.seed,
                    num_checkpoints=num_checkpoints,
                    device=dev,
                    threads=threads,
                    extra_metadata=job.metadata,
                    cap=cap,
                    cuda_graphs=cuda_graphs,
                ),
                log=log,
            )
    last = res.history[-1]
    log.info(
        "%s done: final train loss %.4f, train accuracy %.4f, %.0f s",
        *(job.name, last["train_loss"], last["train_accuracy"], last["wall_time_s"]),
    )
    os.replace(Path(out_dir) / LOG_NAME, log_out)
    return res


def train_group_jobs(
    jobs: Sequence[TrainJob],
    images: np.ndarray,
    labels: np.ndarray,
    *,
    out_dirs: Sequence[str | Path],
    log_outs: Sequence[str | Path],
    state_dirs: Sequence[str | Path],
    num_checkpoints: int,
    device: str = "auto",
    jobs_per_gpu: int | None = None,
    threads: int | None = None,
    cap: WorkCap | None = None,
    log: logging.Logger | None = None,
) -> list[TrainResult]:
    """[`train_job`][holdout.training.jobs.train_job] for a fused group: ``jobs`` trained as one network
    ([`holdout.training.fused.train_group`][holdout.training.fused.train_group]) inside one GPU slot,
    each writing its own checkpoints into its ``out_dirs`` entry and its epoch log to ``log_outs``."""
    from holdout.training.fused import Member, train_group

    log = log or logging.getLogger("holdout")
    with gpu_slot(log=log, jobs_per_gpu=jobs_per_gpu) as slot:
        dev = slot.device if device == "auto" else device
        members = [
            Member(
                job.model_config,
                job.train_config,
                RunSettings(
                    *(Path(out), Path(state), job.seed, num_checkpoints, dev, threads),
                    extra_metadata=job.metadata,
                    cap=cap,
                ),
            )
            for job, out, state in zip(jobs, out_dirs, state_dirs, strict=True)
        ]
        with timed(log, f"train {len(jobs)} models as one on {len(labels)} images, device {dev}"):
            results = train_group(members, images, labels, log=log)
    for job, res, out, log_out in zip(jobs, results, out_dirs, log_outs, strict=True):
        last = res.history[-1]
        log.info(
            "%s done: final train loss %.4f, train accuracy %.4f", job.name, last["train_loss"], last["train_accuracy"]
        )
        os.replace(Path(out) / LOG_NAME, log_out)
    return results


def train_group_folders(
    jobs: Sequence[TrainJob],
    images: np.ndarray,
    labels: np.ndarray,
    folders: Sequence[str | Path],
    *,
    study: Mapping[str, Any],
    state_dirs: Sequence[str | Path],
    jobs_per_gpu: int | None,
    threads: int | None,
    cap: Mapping[str, Any] | None,
    log: logging.Logger,
) -> list[TrainResult]:
    """A fused group of a study's training rule (``<study>_train_groupNNN``), one model per folder:
    [`train_group_jobs`][holdout.training.jobs.train_group_jobs] writes each model's checkpoints and
    ``log.csv`` into its folder, then each job's ``config.json`` goes beside them. ``study`` is the
    study's config section (``num_checkpoints``, ``device``); ``cap`` the ``training.cap`` mapping."""
    results = train_group_jobs(
        jobs,
        images,
        labels,
        out_dirs=folders,
        log_outs=[Path(d) / "log.csv" for d in folders],
        state_dirs=state_dirs,
        num_checkpoints=int(study["num_checkpoints"]),
        device=study["device"],
        jobs_per_gpu=jobs_per_gpu,
        threads=threads,
        cap=WorkCap.from_config(cap),
        log=log,
    )
    for job, folder in zip(jobs, folders, strict=True):
        write_json(Path(folder) / "config.json", job.config_json(len(labels)))
    return results


def predict_job(
    model: str,
    checkpoints: Sequence[str | Path],
    sets: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    config: Mapping[str, Any],
    batch_size: int,
    device: str = "auto",
    jobs_per_gpu: int | None = None,
    threads: int = 1,
    log: logging.Logger | None = None,
) -> dict[str, Predictions]:
    """Every checkpoint of ``model`` on every test set inside a GPU slot
    ([`predict_checkpoints`][holdout.training.jobs.predict_checkpoints]).

    ``device="auto"`` takes the slot's device; ``config`` (the model's ``config.json``) goes
    into the predictions' metadata.
    """
    import torch

    log = log or logging.getLogger("holdout")
    with gpu_slot(log=log, jobs_per_gpu=jobs_per_gpu) as slot:
        dev = slot.device if device == "auto" else device
        torch.set_num_threads(threads)
        with timed(log, f"{len(checkpoints)} checkpoints x {len(sets)} test sets on {dev}"):
            return predict_checkpoints(
                model, checkpoints, sets, config=config, batch_size=batch_size, device=dev, log=log
            )
