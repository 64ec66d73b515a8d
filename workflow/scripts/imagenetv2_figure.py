"""ImageNetV2 figure: new vs original top-1, both fits and the band (Recht et al. 2018 Figure 2 style)."""

import pandas as pd

from holdout.imagenetv2 import fit_lines
from holdout.imagenetv2.plots import plot_imagenetv2_top1
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, level = snakemake.input, snakemake.output, snakemake.params.level  # noqa: F821
with timed(log, "figure"):
    table, fits = pd.read_csv(inp.accuracies), pd.read_csv(inp.fit)
    lines = fit_lines(table, fits, level)
    lines.to_csv(out.lines, index=False)
    cols = ["model", "group"] + [f"{s}_top1_{c}" for s in ("orig", "new") for c in ("accuracy", "ci_low", "ci_high")]
    save_figure(plot_imagenetv2_top1(table, lines, level), out.png, out.pdf, data=table[cols], csv=out.points)
