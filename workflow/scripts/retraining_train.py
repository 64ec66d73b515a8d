"""Train one model of Recht et al. (2018) Sec. 5.5 / 5.6 on one run's data and predict its test set.

Runs: split<k> (train on the other splits + the original test set, test on split k), standard
(train on the 50,000 training images, test on the original test set), half<seed> (add a
class-balanced half of CIFAR-10.1 v4, evaluate on all of v4). With ``train_per_class`` set
(CPU-sized default config) only that many CIFAR-10 images per class are trained on.
"""

from pathlib import Path

import numpy as np

from holdout.predictions import Predictions, save_predictions
from holdout.retraining import class_balanced_subset, read_cv_splits, run_data
from holdout.runlog import script_logger, timed
from holdout.training import TrainConfig, predict, train
from holdout.training.registry import ModelSpec

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, p, w = snakemake.input, snakemake.output, snakemake.params, snakemake.wildcards  # noqa: F821
arrays = np.load(inp.arrays)
sources = {
    "train": (arrays["train_images"], arrays["train_labels"]),
    "test": (arrays["test_images"], arrays["test_labels"]),
}
if hasattr(inp, "v4_images"):
    sources["v4"] = (np.load(inp.v4_images), np.load(inp.v4_labels).astype(np.int64))
split = read_cv_splits(inp.splits, len(arrays["train_labels"]))
data = run_data(w.run, split, len(arrays["test_labels"]), sources.get("v4", (None, None))[1], int(p.n_half))

cifar = [(s, i) for s, i in data.train if s != "v4"]
x = np.concatenate([sources[s][0][i] for s, i in cifar])
y = np.concatenate([sources[s][1][i] for s, i in cifar])
if p.train_per_class is not None:
    keep = class_balanced_subset(y, int(p.train_per_class), int(p.seed))
    x, y = x[keep], y[keep]
    log.info("CPU-sized run: %d CIFAR-10 images per class (train_per_class)", int(p.train_per_class))
extra = [(sources[s][0][i], sources[s][1][i]) for s, i in data.train if s == "v4"]
if extra:
    x, y = np.concatenate([x, *[e[0] for e in extra]]), np.concatenate([y, *[e[1] for e in extra]])
    log.info("added %d CIFAR-10.1 v4 images", sum(len(e[1]) for e in extra))
x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))

spec = ModelSpec(w.model, dict(p.overrides))
cfg = TrainConfig.from_dict(dict(p.train))
with timed(log, f"training {w.model} on {w.run} ({len(y)} images)"):
    res = train(
        spec,
        cfg,
        x,
        y,
        out_dir=Path(out.checkpoint).parent,
        state_dir=p.state_dir,
        seed=int(p.seed),
        num_checkpoints=1,
        device=p.device,
        threads=snakemake.threads,
        log=log,  # noqa: F821
        extra_metadata={"retraining_run": w.run, "registry_name": w.model},
    )

src, idx = data.evaluate
xe, ye = sources[src][0][idx], sources[src][1][idx]
with timed(log, f"predicting {data.test_set} ({len(ye)} images)"):
    pred, logits = predict(
        res.model,
        np.ascontiguousarray(xe.transpose(0, 3, 1, 2)),
        1000,
        mean=cfg.augment.mean,
        std=cfg.augment.std,
        channels_last=False,
    )
preds = Predictions.create(
    pred,
    ye,
    [w.model],
    num_classes=10,
    test_set=data.test_set,
    metadata=[{"run": w.run, "overrides": spec.to_dict()["overrides"], "train_examples": len(y), "epochs": cfg.epochs}],
)
save_predictions(out.predictions, preds)
log.info(
    "%s on %s: accuracy %.4f (%d / %d)",
    w.model,
    data.test_set,
    float((pred == ye).mean()),
    int((pred == ye).sum()),
    len(ye),
)
