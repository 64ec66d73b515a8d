"""Mania et al. Table 1: gains of SB and NBB over the union bound for families of models."""

from holdout.bounds.study import table1, table1_markdown, table1_notes
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821
p, out = snakemake.params, snakemake.output  # noqa: F821
with timed(log, f"table 1 ({len(p.rows)} rows)"):
    table = table1(
        [dict(r) for r in p.rows], eps=float(p.eps), delta=float(p.delta), form=p.form, threads=snakemake.threads
    )  # noqa: F821
log.info("table 1:\n%s", table.to_string())
md = table1_markdown(
    table,
    table1_notes(table, p.eps, p.delta, p.form),
    title="# Mania et al. (2019), Table 1: increase in testable models",
)
write_table(table, csv=out.csv, markdown=out.md, markdown_text=md)
