"""Recht et al. (2018) Eq. (3) and Figure 2: least-squares line of new (v4) on original accuracy,
with standard errors, and the scatter with interval bars, the line's confidence band and y = x."""

from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.cifar10_1.plots import plot_figure2
from holdout.cifar10_1.recht import fit_band, linear_fit, linear_fit_markdown
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, level = snakemake.input, snakemake.output, snakemake.params.level  # noqa: F821
with timed(log, "linear fit and Figure 2"):
    t1 = pd.read_csv(inp.table1)
    fit = linear_fit(t1.orig_accuracy, t1.new_accuracy)
    pd.DataFrame([asdict(fit)]).to_csv(out.fit, index=False)
    Path(out.fit_md).write_text(linear_fit_markdown(fit))
    points = t1[["model", "orig_accuracy", "orig_ci_low", "orig_ci_high", "new_accuracy", "new_ci_low", "new_ci_high"]]
    x = np.linspace(t1.orig_ci_low.min() - 1, 100, 201)
    y, lo, hi = fit_band(fit, x, level)
    line = pd.DataFrame({"x": x, "fit": y, "band_low": lo, "band_high": hi, "y_equals_x": x})
    points.to_csv(out.points, index=False)
    line.to_csv(out.line, index=False)
    plot_figure2(points, line, [out.png, out.pdf], band_level=level)
log.info("acc_new = (%.3f +- %.3f) acc_orig + (%.2f +- %.2f)%% (paper: 1.62 +- 0.04, -65.51 +- 3.16)",
         fit.slope, fit.slope_se, fit.intercept, fit.intercept_se)
