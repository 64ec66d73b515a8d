"""Recht et al. (2018) Table 1 (accuracies, 95% intervals, gap, Delta Rank) and Table 4 (errors, ratio)."""

from holdout.cifar10_1.recht import (
    accuracy_table,
    table1,
    table1_markdown,
    table4,
    table4_markdown,
)
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out, alpha = snakemake.input, snakemake.output, snakemake.params.alpha  # noqa: F821
with timed(log, "Tables 1 and 4"):
    t1 = table1(accuracy_table(load_predictions(inp.original), alpha), accuracy_table(load_predictions(inp.new), alpha))
    t4 = table4(t1)
write_table(t1, csv=out.table1, markdown=out.table1_md, markdown_text=table1_markdown(t1))
write_table(t4, csv=out.table4, markdown=out.table4_md, markdown_text=table4_markdown(t4))
log.info(
    "gap: %.1f to %.1f points; error ratio: %.2f to %.2f",
    t1.gap.min(),
    t1.gap.max(),
    t4.error_ratio.min(),
    t4.error_ratio.max(),
)
