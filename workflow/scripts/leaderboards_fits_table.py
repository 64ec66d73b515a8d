"""Every pair's fits in one table (CSV + Markdown), with the imagenetv2 study's testbed fit when it ran."""

from holdout.leaderboards.outputs import fits_table
from holdout.runlog import script_logger, timed
from holdout.tables import markdown_table, write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out = snakemake.input, snakemake.output  # noqa: F821
with timed(log, "fits table"):
    table = fits_table(list(inp.summaries), list(inp.imagenetv2))
    shown = table.round(4).astype(object).where(table.notna(), "")
    write_table(table, out.csv, out.md, markdown_text=markdown_table(shown))
log.info("%d fits", len(table))
