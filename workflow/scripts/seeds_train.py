"""Train the seeds study's recipe with one seed (Werpachowski et al. Sec. 3.3)."""

import json
import os
from pathlib import Path

import numpy as np

from holdout.runlog import script_logger, timed
from holdout.training import LOG_NAME, ResNetPreactConfig, TrainConfig, gpu_slot, train
from holdout.training.seeds import window_test_time

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
model = snakemake.wildcards.model
seed = int(model.removeprefix("seed"))
with open(snakemake.input.recipe) as fh:
    recipe = json.load(fh)
if seed not in recipe["seeds"]:
    raise ValueError(f"{snakemake.input.recipe}: seed {seed} is not one of the recipe's seeds")
model_cfg = ResNetPreactConfig.from_dict(recipe["model"])
train_cfg = TrainConfig.from_dict(recipe["train"])
log.info("%s: model %s; training %s", model, model_cfg, train_cfg)

with timed(log, "load CIFAR-10 arrays"):
    idx = np.load(snakemake.input.train_subset)
    with np.load(snakemake.input.arrays) as z:
        images, labels = z["train_images"][idx], z["train_labels"][idx]
out_dir = Path(snakemake.output.config).parent
meta = {"model_name": model, "test_time": window_test_time(train_cfg.augment, model_cfg.num_classes, images.shape[-1])}
with gpu_slot(log=log, jobs_per_gpu=snakemake.params.jobs_per_gpu) as slot:
    device = slot.device if cfg["device"] == "auto" else cfg["device"]
    with timed(log, f"train {model} on {len(idx)} images, {train_cfg.epochs} epochs, device {device}"):
        res = train(
            model_cfg,
            train_cfg,
            images,
            labels,
            out_dir=out_dir,
            state_dir=snakemake.params.state_dir,
            seed=seed,
            num_checkpoints=int(cfg["num_checkpoints"]),
            device=device,
            threads=snakemake.threads,
            log=log,
            extra_metadata=meta,
        )
last = res.history[-1]
log.info(
    "%s done: final train loss %.4f, train accuracy %.4f, %.0f s",
    model,
    last["train_loss"],
    last["train_accuracy"],
    last["wall_time_s"],
)
os.replace(out_dir / LOG_NAME, snakemake.output.log)
with open(snakemake.output.config, "w") as fh:
    json.dump(
        {
            "model": model,
            "seed": seed,
            "window": recipe["window"],
            "train_subset_size": len(idx),
            "model_config": model_cfg.to_dict(),
            "train_config": train_cfg.to_dict(),
        },
        fh,
        indent=2,
    )
