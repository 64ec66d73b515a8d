"""Mania et al. Fig. 2: both panels from the grid CSVs (which hold every plotted value)."""

import pandas as pd

from holdout.bounds.plots import figure2
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
with timed(log, "figure 2 plot"):
    save_figure(figure2(pd.read_csv(inp.similarity), pd.read_csv(inp.eps)), out.png, out.pdf)
