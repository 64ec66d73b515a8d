"""Predict all of CIFAR-10.1 v4 with a standard-split checkpoint (Sec. 5.5, the run without extra images)."""

import numpy as np
import torch

from holdout.predictions import Predictions, save_predictions
from holdout.runlog import script_logger, timed
from holdout.training import load_checkpoint, predict, select_device

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, w = snakemake.input, snakemake.output, snakemake.wildcards  # noqa: F821
torch.set_num_threads(int(snakemake.threads))  # noqa: F821 (the rule's threads: no oversubscription)
model, meta = load_checkpoint(inp.checkpoint, select_device(snakemake.params.device))  # noqa: F821
n = snakemake.params.max_images  # noqa: F821 (a dress rehearsal's training.cap.images: the first n)
images = np.ascontiguousarray(np.load(inp.v4_images)[:n].transpose(0, 3, 1, 2))
labels = np.load(inp.v4_labels).astype(np.int64)[:n]
with timed(log, f"predicting CIFAR-10.1 v4 ({len(labels)} images)"):
    pred, _ = predict(  # batches of 256: the CPU-fast size (holdout.retraining.train.PREDICT_BATCH)
        model, images, 256, mean=meta["test_time"]["mean"], std=meta["test_time"]["std"], channels_last=False
    )
save_predictions(
    out.predictions,
    Predictions.create(
        pred, labels, [w.model], num_classes=10, test_set="cifar10_1_v4", metadata=[{"run": "standard"}]
    ),
)
log.info("%s (standard split) on v4: accuracy %.4f", w.model, float((pred == labels).mean()))
