"""Figure of the adaptive study on one test set (PNG + PDF + CSV of the plotted values)."""

import pandas as pd

from holdout.adaptive.plots import overfit_figure
from holdout.plotting import save_figure
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
fig, data = overfit_figure(pd.read_csv(inp.table), snakemake.params.label)  # noqa: F821
save_figure(fig, out.png, out.pdf, data, out.csv)
log.info("wrote %s", out.png)
