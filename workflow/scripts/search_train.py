"""Train one model of the random search (Mania et al. Sec. 5.2) from its Table 2 row."""

import json
import os
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.runlog import script_logger, timed
from holdout.training import LOG_NAME, gpu_slot, train
from holdout.training.search import SearchScale, row_to_configs, row_to_record

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
model = snakemake.wildcards.model
table = pd.read_csv(snakemake.input.configs)
rows = table[table["model"] == model]
if len(rows) != 1:
    raise ValueError(f"{snakemake.input.configs}: no row for model {model}")
record = row_to_record(rows.iloc[0].to_dict())
scale = SearchScale(
    depth=int(cfg["depth"]),
    depth_bottleneck=cfg["depth_bottleneck"],
    max_base_channels=cfg["max_base_channels"],
    epochs=int(cfg["epochs"]),
    reference_epochs=int(cfg["reference_epochs"]),
)
model_cfg, train_cfg = row_to_configs(record, scale)
index = int(model[1:])
train_seed = int(np.random.SeedSequence([int(cfg["seed"]), index]).generate_state(1)[0])
log.info("%s: %s", model, json.dumps(record))
log.info("model %s; training %s; seed %d", model_cfg, train_cfg, train_seed)

with timed(log, "load CIFAR-10 arrays"):
    idx = np.load(snakemake.input.train_subset)
    with np.load(snakemake.input.arrays) as z:
        images, labels = z["train_images"][idx], z["train_labels"][idx]
out_dir = Path(snakemake.output.config).parent
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
            seed=train_seed,
            num_checkpoints=int(cfg["num_checkpoints"]),
            device=device,
            threads=snakemake.threads,
            log=log,
            extra_metadata={"model_name": model, "table2": record},
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
            "table2": record,
            "scale": asdict(scale),
            "seed": train_seed,
            "train_subset_size": len(idx),
            "model_config": model_cfg.to_dict(),
            "train_config": train_cfg.to_dict(),
        },
        fh,
        indent=2,
    )
