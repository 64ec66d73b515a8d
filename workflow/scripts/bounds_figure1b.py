"""Mania et al. Fig. 1b: testable models under the union, similarity and naive-Bayes bounds."""

from holdout.bounds.plots import figure1b
from holdout.bounds.study import figure1b_table, load_setting
from holdout.plotting import save_figure
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
setting = load_setting(snakemake.input.setting)  # noqa: F821
log.info("setting %s, eps=%s, delta=%s, form=%s", setting, p.eps, p.delta, p.form)
with timed(log, "testable models (three bounds)"):
    table = figure1b_table(setting, eps=float(p.eps), delta=float(p.delta), form=p.form)
log.info("table:\n%s", table.to_string())
save_figure(figure1b(table), out.png, out.pdf, data=table, csv=out.csv)
