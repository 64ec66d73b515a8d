"""Mania et al. (2019) Figure 3 for our search: similarity of every pair of checkpoints with accuracy
>= search_analysis.min_accuracy against independent errors, and the greedy upper bound on N_eta."""

import json

from holdout.plotting import save_figure
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.search_analysis import checkpoint_table, eta_grid, search_figure3
from holdout.search_analysis.plots import search_figure3_figures

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
etas = eta_grid(params.eta)
with timed(log, f"load {inp.predictions}"):
    preds = load_predictions(inp.predictions)
checkpoint_table(preds).to_csv(out.checkpoints, index=False)
f3 = search_figure3(preds, params.min_accuracy, etas, log)
with timed(log, "figures"):
    figs = search_figure3_figures(f3.pairs, f3.covering, preds.test_set, params.min_accuracy)
    save_figure(figs["pairs"], out.pairs_png, out.pairs_pdf, data=f3.pairs.round(6), csv=out.pairs_csv)
    save_figure(figs["covering"], out.covering_png, out.covering_pdf, data=f3.covering, csv=out.covering_csv)
with open(out.summary, "w") as fh:
    json.dump({"source": str(inp.predictions), **f3.summary}, fh, indent=2)
