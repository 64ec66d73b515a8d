"""Mania et al. Fig. 2: both panels from the grid CSVs (which hold every plotted value)."""

import pandas as pd

from holdout.bounds.plots import figure2
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821

with timed(log, "figure 2 plot"):
    fig = figure2(pd.read_csv(snakemake.input.similarity), pd.read_csv(snakemake.input.eps))  # noqa: F821
    fig.savefig(snakemake.output.png, dpi=150)  # noqa: F821
    fig.savefig(snakemake.output.pdf)  # noqa: F821
