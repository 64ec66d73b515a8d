"""Mania-Table-1-like table over the CIFAR-10 test sets (CSV and Markdown)."""

import pandas as pd

from holdout.runlog import script_logger
from holdout.similarity.study import table1_markdown
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821
table = pd.concat([pd.read_csv(p) for p in snakemake.input.tables], ignore_index=True)  # noqa: F821
write_table(
    table,
    csv=snakemake.output.csv,
    markdown=snakemake.output.md,  # noqa: F821
    markdown_text=table1_markdown(table),
)
log.info("wrote %d rows", len(table))
