"""Table-1-style rows (Mania et al. 2019, Table 1) of our search's checkpoints with accuracy >=
search_analysis.min_accuracy: all, n_random random, n_top highest scoring; SB and NBB gains."""

from holdout.predictions import load_predictions
from holdout.runlog import script_logger
from holdout.search_analysis import search_table1
from holdout.tables import write_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
df, md = search_table1(
    load_predictions(inp.predictions),
    params.min_accuracy,
    params.table1,
    threads=snakemake.threads,
    log=log,  # noqa: F821
)
write_table(df, csv=out.csv, markdown=out.md, markdown_text=md)
