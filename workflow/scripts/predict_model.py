"""Every checkpoint of one model on every test set, in large batches (one load of the data)."""

import json

import numpy as np
import torch

from holdout.predictions import save_predictions
from holdout.runlog import script_logger, timed
from holdout.training import gpu_slot
from holdout.training.inference import predict_checkpoints
from holdout.training.seeds import train_subset

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
study, model = snakemake.wildcards.study, snakemake.wildcards.model
if snakemake.params.missing_cifar10_1:
    log.info(
        "CIFAR-10.1 %s: images not available under this config (not in the data mirror or no checksum): "
        "those test sets are left out",
        ", ".join(snakemake.params.missing_cifar10_1),
    )

with timed(log, "load test sets"):
    with np.load(snakemake.input.arrays) as z:
        sets = {"cifar10_test": (z["test_images"], z["test_labels"])}
        trained_on = np.load(snakemake.input.train_subset)
        if study == "seeds":  # exactly the images every seed model was trained on
            idx = trained_on
        else:  # a fixed seeded subset of the images the search trained on
            pick = train_subset(
                len(trained_on), min(int(cfg["train_subset_size"]), len(trained_on)), int(cfg["train_subset_seed"])
            )
            idx = trained_on[pick]
        sets["cifar10_train_subset"] = (z["train_images"][idx], z["train_labels"][idx])
    for name in snakemake.params.test_sets:
        if name.startswith("cifar10_1_"):
            v = name.removeprefix("cifar10_1_")
            x = np.load(snakemake.input[f"images_{v}"])
            sets[name] = (np.ascontiguousarray(x.transpose(0, 3, 1, 2)), np.load(snakemake.input[f"labels_{v}"]))
    for name, (x, y) in sets.items():
        log.info("%s: %d images %s", name, len(y), x.shape)

with open(snakemake.input.config) as fh:
    record = json.load(fh)
with gpu_slot(log=log, jobs_per_gpu=snakemake.params.jobs_per_gpu) as slot:
    device = slot.device if cfg["device"] == "auto" else cfg["device"]
    torch.set_num_threads(snakemake.threads)
    with timed(log, f"{len(snakemake.input.checkpoints)} checkpoints x {len(sets)} test sets on {device}"):
        preds = predict_checkpoints(
            model,
            snakemake.input.checkpoints,
            sets,
            config=record,
            batch_size=int(cfg["batch_size"]),
            device=device,
            log=log,
        )
for path in snakemake.output:
    name = path.rsplit("/", 1)[1].removesuffix(".npz")
    save_predictions(path, preds[name])
