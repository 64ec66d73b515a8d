"""Arora & Zhang (2021) Tables 1-2: the Rip van Winkle bound for the configured rows."""

from pathlib import Path

import pandas as pd

from holdout.runlog import script_logger, timed
from holdout.rvw.core import TABLE_COLUMNS, EnglishRubric, rvw_table, rvw_table_markdown

log = script_logger(snakemake.log[0])  # noqa: F821 (snakemake injects it)
p = snakemake.params  # noqa: F821
english = EnglishRubric(**dict(p.english))
log.info(
    "table %s: %d rows, C=%g, delta=%g, English %s",
    snakemake.wildcards.table,  # noqa: F821
    len(p.rows),
    p.C,
    p.delta,
    english,
)
with timed(log, "bounds"):
    table = rvw_table(p.rows, C=p.C, delta=p.delta, english=english)
for r in table:
    log.info(
        "%s (%s): %.4f test error, %g bits -> bound %.4f%s",
        r["name"],
        r["setting"],
        r["test_error"],
        r["bits"],
        r["bound"],
        "" if r["paper_bound"] is None else f" (paper {r['paper_bound']:.4f})",
    )
pd.DataFrame(table, columns=list(TABLE_COLUMNS)).to_csv(snakemake.output.csv, index=False)  # noqa: F821
Path(snakemake.output.md).write_text(rvw_table_markdown(table, p.title))  # noqa: F821
log.info("wrote %s and %s", snakemake.output.csv, snakemake.output.md)  # noqa: F821
