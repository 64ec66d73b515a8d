"""Concatenate the per-model predictions of one study on one test set."""

from holdout.predictions import load_predictions, save_predictions
from holdout.runlog import script_logger
from holdout.training.gather import gather_predictions  # numpy only: this job loads no torch

log = script_logger(snakemake.log[0])
parts = [load_predictions(p) for p in snakemake.input]
preds = gather_predictions(parts, snakemake.wildcards.test_set)
save_predictions(snakemake.output[0], preds)
acc = preds.accuracies()
log.info(
    "%s / %s: %d checkpoints of %d models, %d images; accuracy min %.4f, median %.4f, max %.4f",
    snakemake.wildcards.study,
    snakemake.wildcards.test_set,
    preds.num_models,
    len(parts),
    preds.num_examples,
    acc.min(),
    float(sorted(acc)[len(acc) // 2]),
    acc.max(),
)
