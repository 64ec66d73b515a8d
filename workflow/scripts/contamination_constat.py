"""ConStat's published tables redone from their columns (holdout.contamination.constat): per-table
rows, the summary next to the published numbers, what is off in the tables, the deltas figure."""

import json

import pandas as pd

from holdout.contamination.constat import read_constat_table, reproduce_constat, reproduction_summary, table_findings
from holdout.contamination.plots import plot_constat_deltas
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
names = [k for k in dict(inp) if k != "roles"]
reproduced, findings = {}, {}
for name, path in zip(names, out.tables, strict=True):
    with timed(log, f"ConStat {name} ({params.n_bootstrap} replicates)"):
        table = read_constat_table(inp[name], inp.roles)
        rows, _ = reproduce_constat(table, n_bootstrap=params.n_bootstrap, seed=params.seed)
    rows.to_csv(path, index=False)
    reproduced[name] = rows
    findings[name] = table_findings(table)
summary = reproduction_summary(reproduced)
write_table(summary, out.summary, out.summary_md)
with open(out.findings, "w") as fh:
    json.dump({"tables": findings}, fh, indent=2)
all_rows = pd.concat([r.assign(table=n) for n, r in reproduced.items()], ignore_index=True)
fig, data = plot_constat_deltas(all_rows)
save_figure(fig, out.figure, out.figure_pdf, data, out.figure_csv)
log.info("largest |delta difference|: %.2f points", summary["max_abs_delta_diff_points"].max())
