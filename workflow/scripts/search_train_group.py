"""Train a fused group of sampled models of the random search (Mania et al. Sec. 5.2) as one network."""

from pathlib import Path

from holdout.runlog import script_logger, timed
from holdout.training.jobs import load_train_subset, train_group_folders
from holdout.training.search import search_job

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, params = snakemake.input, snakemake.params  # noqa: F821
cfg = params.cfg
jobs = [search_job(inp.configs, m, cfg, log) for m in params.models]
folders = [Path(f"results/search/models/{m}") for m in params.models]
with timed(log, "load CIFAR-10 arrays"):
    images, labels = load_train_subset(inp.arrays, inp.train_subset)
train_group_folders(
    jobs,
    images,
    labels,
    folders,
    study=cfg,
    state_dirs=params.state_dirs,
    jobs_per_gpu=params.jobs_per_gpu,
    threads=snakemake.threads,  # noqa: F821
    cap=params.cap,
    log=log,
)
