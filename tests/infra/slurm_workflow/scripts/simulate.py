"""Simulated predictions of a few models with known accuracies (seeded)."""

import numpy as np

from holdout.predictions import Predictions, save_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
with timed(log, "simulate predictions"):
    seed = int(snakemake.wildcards.seed)
    rng = np.random.default_rng(seed)
    k, n, classes = int(snakemake.params.num_models), int(snakemake.params.num_examples), 10
    labels = rng.integers(0, classes, size=n)
    target_acc = np.linspace(0.6, 0.95, k)
    correct = rng.random((k, n)) < target_acc[:, None]
    wrong = (labels[None, :] + rng.integers(1, classes, size=(k, n))) % classes
    preds = np.where(correct, labels[None, :], wrong)
    p = Predictions.create(
        preds, labels, [f"model{i}" for i in range(k)], num_classes=classes, test_set=f"simulated-{seed}"
    )
    save_predictions(snakemake.output[0], p)
    log.info("%d models x %d examples written to %s", k, n, snakemake.output[0])
