"""Recht et al. (2018) Table 1, Eq. (3) and Figure 2 for our search's checkpoints: the CIFAR-10 test
set (original) against a CIFAR-10.1 set (new)."""

from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.cifar10_1.plots import figure2
from holdout.cifar10_1.recht import fit_band, linear_fit_markdown, table1_markdown
from holdout.plotting import save_figure
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.own_models import recht_comparison
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, cfg = snakemake.input, snakemake.output, snakemake.params.recht  # noqa: F821
new_set = snakemake.wildcards.new_set  # noqa: F821
with timed(log, f"Table 1 and Eq. (3), {new_set}"):
    t1, fit = recht_comparison(
        load_predictions(inp.original), load_predictions(inp.new), cfg["alpha"], cfg["checkpoints"], cfg["min_accuracy"]
    )
write_table(t1, csv=out.table1, markdown=out.table1_md, markdown_text=table1_markdown(t1))
pd.DataFrame([asdict(fit)]).to_csv(out.fit, index=False)
Path(out.fit_md).write_text(linear_fit_markdown(fit))
points = t1[["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]]
x = np.linspace(t1.orig_ci_low.min() - 1, 100, 201)
y, lo, hi = fit_band(fit, x, cfg["fit_band_level"])
line = pd.DataFrame({"x": x, "fit": y, "band_low": lo, "band_high": hi, "y_equals_x": x})
line.to_csv(out.line, index=False)
fig = figure2(
    points,
    line,
    band_level=cfg["fit_band_level"],
    title=f"Our search ({len(t1)} checkpoints): {new_set} vs CIFAR-10 test set",
    new_label=f"{new_set} accuracy (%)",
)
save_figure(fig, out.png, out.pdf, data=points, csv=out.points)
log.info(
    "%d checkpoints; acc_new = (%.3f +- %.3f) acc_orig + (%.2f +- %.2f)%% (published models: 1.62, -65.51)",
    len(t1),
    fit.slope,
    fit.slope_se,
    fit.intercept,
    fit.intercept_se,
)
