"""Recht et al. (2018) Table 1, Eq. (3) and Figure 2 for our search's checkpoints: the CIFAR-10 test
set (original) against a CIFAR-10.1 set (new)."""

from dataclasses import asdict

import pandas as pd

from holdout.cifar10_1.plots import figure2
from holdout.cifar10_1.recht import linear_fit_markdown, table1_markdown
from holdout.plotting import save_figure
from holdout.predictions import load_predictions
from holdout.runlog import script_logger
from holdout.search_analysis import search_recht
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, cfg = snakemake.input, snakemake.output, snakemake.params.recht  # noqa: F821
new_set = snakemake.wildcards.new_set  # noqa: F821
t1, fit, points, line = search_recht(load_predictions(inp.original), load_predictions(inp.new), cfg, log)
write_table(t1, csv=out.table1, markdown=out.table1_md, markdown_text=table1_markdown(t1))
write_table(pd.DataFrame([asdict(fit)]), csv=out.fit, markdown=out.fit_md, markdown_text=linear_fit_markdown(fit))
line.to_csv(out.line, index=False)
fig = figure2(
    points,
    line,
    band_level=cfg["fit_band_level"],
    title=f"Our search ({len(t1)} checkpoints): {new_set} vs CIFAR-10 test set",
    new_label=f"{new_set} accuracy (%)",
)
save_figure(fig, out.png, out.pdf, data=points, csv=out.points)
