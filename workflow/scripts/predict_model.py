"""Every checkpoint of one model on every test set, in large batches (one load of the data)."""

import json

from holdout.runlog import script_logger, timed
from holdout.training.inference import load_test_sets, save_per_test_set
from holdout.training.jobs import predict_job

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, params = snakemake.input, snakemake.params  # noqa: F821
cfg = params.cfg
with timed(log, "load test sets"):
    sets = load_test_sets(
        inp.arrays,
        inp.train_subset,
        study=snakemake.wildcards.study,  # noqa: F821
        subset_size=int(cfg["train_subset_size"]),
        subset_seed=int(cfg["train_subset_seed"]),
        test_sets=params.test_sets,
        files=inp,
        missing_cifar10_1=params.missing_cifar10_1,
        max_images=params.max_images,
        log=log,
    )
with open(inp.config) as fh:
    record = json.load(fh)
preds = predict_job(
    snakemake.wildcards.model,  # noqa: F821
    inp.checkpoints,
    sets,
    config=record,
    batch_size=int(cfg["batch_size"]),
    device=cfg["device"],
    jobs_per_gpu=params.jobs_per_gpu,
    threads=snakemake.threads,  # noqa: F821
    log=log,
)
save_per_test_set(snakemake.output, preds)  # noqa: F821
