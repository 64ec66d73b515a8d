"""Figure 5 of Werpachowski et al. (2019) for one model: p-values of the pairwise test
against the sample size for the four AEGs, and R_S, R_g with 97.5% intervals for the
strongest AEG, on the training-set sample and on the validation set."""

import pandas as pd

from holdout.adversarial.imagenet import plots
from holdout.adversarial.imagenet import study as inet
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
cfg, model, out = snakemake.params.cfg, snakemake.wildcards.model, snakemake.output  # noqa: F821
frames = {split: pd.read_csv(path) for split, path in zip(snakemake.params.splits, snakemake.input.per_image)}  # noqa: F821
with timed(log, "figure 5 table"):
    table = inet.figure5_tables(
        frames, model, cfg["sample_sizes"], seed=int(cfg["seed"]), confidence_delta=float(cfg["confidence_delta"])
    )
log.info(
    "at the full sample sizes:\n%s",
    table[table.sample_size == table.groupby("split").sample_size.transform("max")].to_string(),
)
save_figure(plots.plot_figure5(table, model), out.figure, out.pdf, data=table, csv=out.csv)
