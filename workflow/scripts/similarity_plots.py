"""Figures of one test set: Mania et al. Fig. 1a, the pair scatter, Fig. 4, covering numbers."""

import json

import pandas as pd

from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed
from holdout.similarity.plots import set_figures

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out = snakemake.input, snakemake.output  # noqa: F821
with open(inp.summary) as fh:
    summary = json.load(fh)
with timed(log, "figures"):
    figures = set_figures(
        summary, pd.read_csv(inp.pairs), pd.read_csv(inp.covering), pd.read_csv(inp.difficulty), snakemake.params.label
    )  # noqa: F821
    for key, fig in figures.items():
        save_figure(fig, out[f"{key}_png"], out[f"{key}_pdf"])
log.info("wrote %s", ", ".join(str(p) for p in out))
