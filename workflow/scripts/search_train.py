"""Train one model of the random search (Mania et al. Sec. 5.2) from its Table 2 row."""

from pathlib import Path

from holdout.runlog import script_logger, timed
from holdout.training.cap import WorkCap
from holdout.training.jobs import load_train_subset, train_job, write_json
from holdout.training.search import search_job

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
cfg = params.cfg
job = search_job(inp.configs, snakemake.wildcards.model, cfg, log)  # noqa: F821
with timed(log, "load CIFAR-10 arrays"):
    images, labels = load_train_subset(inp.arrays, inp.train_subset)
train_job(
    job,
    images,
    labels,
    out_dir=Path(out.config).parent,
    log_out=out.log,
    state_dir=params.state_dir,
    num_checkpoints=int(cfg["num_checkpoints"]),
    device=cfg["device"],
    jobs_per_gpu=params.jobs_per_gpu,
    threads=snakemake.threads,  # noqa: F821
    cap=WorkCap.from_config(params.cap),
    cuda_graphs=bool(snakemake.config["training"]["cuda_graphs"]),  # noqa: F821
    log=log,
)
write_json(out.config, job.config_json(len(labels)))
