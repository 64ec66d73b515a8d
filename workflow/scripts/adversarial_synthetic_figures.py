"""Figure 4, Figure 7 (rows 1-3, last row) and Figure 8 of Werpachowski et al. (2019),
with every plotted value in a CSV, and a summary next to the paper's numbers."""

import pandas as pd

from holdout.adversarial.synthetic import check_plot_eps
from holdout.adversarial.synthetic import plots as pa
from holdout.adversarial.synthetic.study import (
    FIGURE4_COLUMNS,
    paper_comparison,
    synthetic_figure_tables,
)
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
cfg, inp, out = snakemake.params.cfg, snakemake.input, snakemake.output  # noqa: F821
check_plot_eps(cfg)
per_run, groups, training = (
    pd.concat([pd.read_csv(p) for p in paths], ignore_index=True) for paths in (inp.per_run, inp.n_model, inp.training)
)
with timed(log, "figures"):
    tables = synthetic_figure_tables(per_run, groups, training, cfg)
    tables["figure4"][FIGURE4_COLUMNS].to_csv(out.figure4_csv, index=False)
    for key in ("risks", "densities", "histograms", "figure8"):
        tables[key].to_csv(out[f"{key}_csv"], index=False)
    for key, fig in pa.synthetic_figures(tables).items():
        save_figure(fig, out[key])
summary = paper_comparison(training, tables["figure4"], per_run, groups, cfg["figure8"]["eps_dependent"])
summary.to_csv(out.summary, index=False)
log.info("summary beside the paper:\n%s", summary.to_string())
