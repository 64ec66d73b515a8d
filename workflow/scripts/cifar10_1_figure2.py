"""Recht et al. (2018) Eq. (3) and Figure 2: least-squares line of new (v4) on original accuracy,
with standard errors, and the scatter with interval bars, the line's confidence band and y = x."""

from dataclasses import asdict

import pandas as pd

from holdout.cifar10_1.plots import plot_figure2
from holdout.cifar10_1.recht import figure2_data, linear_fit_markdown
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out, level = snakemake.input, snakemake.output, snakemake.params.level  # noqa: F821
with timed(log, "linear fit and Figure 2"):
    fit, points, line = figure2_data(pd.read_csv(inp.table1), level)
    write_table(pd.DataFrame([asdict(fit)]), csv=out.fit, markdown=out.fit_md, markdown_text=linear_fit_markdown(fit))
    line.to_csv(out.line, index=False)
    save_figure(plot_figure2(points, line, band_level=level), out.png, out.pdf, data=points, csv=out.points)
log.info(
    "acc_new = (%.3f +- %.3f) acc_orig + (%.2f +- %.2f)%% (paper: 1.62 +- 0.04, -65.51 +- 3.16)",
    fit.slope,
    fit.slope_se,
    fit.intercept,
    fit.intercept_se,
)
