"""Train one retraining model (Recht et al. 2018, Sec. 5.5 / 5.6) and predict its run's test set.

The torch part of [`holdout.retraining`][holdout.retraining] (not imported by the package, which stays torch-free):
[`retrain_and_predict`][holdout.retraining.train.retrain_and_predict] trains a registry model
([`holdout.training.registry.ModelSpec`][holdout.training.registry.ModelSpec])
on a run's [`holdout.retraining.core.RunArrays`][holdout.retraining.core.RunArrays] and returns its predictions.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from holdout.predictions import Predictions
from holdout.retraining.core import RunArrays
from holdout.runlog import timed
from holdout.training import RunSettings, TrainConfig, predict, train
from holdout.training.cap import WorkCap
from holdout.training.registry import ModelSpec

__all__ = ["PREDICT_BATCH", "retrain_and_predict"]

# Images per forward pass of the test-set prediction: on CPUs 256 runs 1.7-2x faster per CPU-second than
# 1000 (the activations stay in cache) with the same logits (docs/performance.md).
PREDICT_BATCH = 256


def retrain_and_predict(
    model: str,
    overrides: Mapping[str, Any],
    cfg: TrainConfig,
    data: RunArrays,
    *,
    run: str,
    test_set: str,
    out_dir: str | Path,
    state_dir: str | Path,
    seed: int = 0,
    device: str | None = None,
    threads: int | None = None,
    cap: WorkCap | None = None,
    log: logging.Logger | None = None,
) -> Predictions:
    """Train registry model ``model`` (with ``overrides``) on ``data.x``/``data.y``, predict ``data.x_test``.

    One checkpoint in ``out_dir`` (``cap``: the dress rehearsal's work cap, ``training.cap``); the
    predictions (one model, ``test_set``) carry the run, the
    overrides, the number of training images and the epochs; logs the test accuracy.
    """
    log = log or logging.getLogger("holdout")
    spec = ModelSpec(model, dict(overrides))
    with timed(log, f"training {model} on {run} ({len(data.y)} images)"):
        res = train(
            spec,
            cfg,
            data.x,
            data.y,
            RunSettings(
                out_dir=Path(out_dir),
                state_dir=Path(state_dir),
                seed=seed,
                num_checkpoints=1,
                device=device,
                threads=threads,
                extra_metadata={"retraining_run": run, "registry_name": model},
                cap=cap,
            ),
            log=log,
        )
    ye = data.y_test
    with timed(log, f"predicting {test_set} ({len(ye)} images)"):
        pred, _ = predict(
            res.model, data.x_test, PREDICT_BATCH, mean=cfg.augment.mean, std=cfg.augment.std, channels_last=False
        )
    meta = {"run": run, "overrides": spec.to_dict()["overrides"], "train_examples": len(data.y), "epochs": cfg.epochs}
    preds = Predictions.create(pred, ye, [model], num_classes=10, test_set=test_set, metadata=[meta])
    correct = np.asarray(pred == ye)
    log.info("%s on %s: accuracy %.4f (%d / %d)", model, test_set, float(correct.mean()), int(correct.sum()), len(ye))
    return preds
