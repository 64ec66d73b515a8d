"""Werpachowski et al. Figure 1: CIFAR-10 test accuracy of the published models by year."""

from holdout.adversarial.cifar10.figures import figure1_table, model_years
from holdout.adversarial.cifar10.plots import plot_figure1
from holdout.plotting import save_figure
from holdout.predictions import load_predictions
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out = snakemake.input, snakemake.output  # noqa: F821
table = figure1_table(load_predictions(inp.predictions), model_years(inp.years))
for year, g in table.groupby("year"):
    best = g.loc[g["accuracy"].idxmax()]
    log.info("%d: %d models, best %.2f%% (%s)", year, len(g), best["accuracy"], best["model"])
fig, data = plot_figure1(table)
save_figure(fig, out.png, out.pdf, data=data, csv=out.csv)
table.to_csv(out.table, index=False)
