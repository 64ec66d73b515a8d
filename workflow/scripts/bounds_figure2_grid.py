"""Mania et al. Fig. 2, one panel: gains of SB and NBB over the union bound on a grid."""

from holdout.bounds.study import figure2_panel, load_setting
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
p, panel = snakemake.params, snakemake.wildcards.panel  # noqa: F821
setting = load_setting(snakemake.input.setting)  # noqa: F821
log.info(
    "panel %s: %s, grid %s, delta=%s, form=%s, threads=%d",
    panel,
    setting,
    dict(p.grid),
    p.delta,
    p.form,
    snakemake.threads,
)  # noqa: F821
with timed(log, f"figure 2 grid ({panel})"):
    table = figure2_panel(setting, panel, p.grid, eps=p.eps, delta=p.delta, form=p.form, threads=snakemake.threads)  # noqa: F821
log.info("grid:\n%s", table.drop(columns="setting_source").to_string())
table.to_csv(snakemake.output.csv, index=False)  # noqa: F821
