"""Mania et al. Fig. 1b: testable models under the union, similarity and naive-Bayes bounds."""

import json

from holdout.bounds.study import Setting, figure1b_table
from holdout.bounds.plots import figure1b
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
p = snakemake.params  # noqa: F821

with open(snakemake.input.setting) as fh:  # noqa: F821
    data = json.load(fh)
setting = Setting(
    n=data["n"], mean_accuracy=data["mean_accuracy"], similarity=data["similarity"], source=data["source"]
)
log.info("setting %s, eps=%s, delta=%s, form=%s", setting, p.eps, p.delta, p.form)
with timed(log, "testable models (three bounds)"):
    table = figure1b_table(setting, eps=float(p.eps), delta=float(p.delta), form=p.form)
for row in table.to_dict("records"):
    log.info("%s: k = %s (gain %.4g)", row["bound"], row["testable_models"], row["gain_over_union"])
table.to_csv(snakemake.output.csv, index=False)  # noqa: F821
with timed(log, "plot"):
    fig = figure1b(table)
    fig.savefig(snakemake.output.png, dpi=150)  # noqa: F821
    fig.savefig(snakemake.output.pdf)  # noqa: F821
