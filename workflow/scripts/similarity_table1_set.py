"""Rows of a Mania-Table-1-like table for one test set: subsets, mean accuracy/similarity, SB/NBB gains."""

from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.study import drop_excluded, table1_rows

log = script_logger(snakemake.log[0])  # noqa: F821
params = snakemake.params  # noqa: F821
preds, _ = drop_excluded(load_predictions(snakemake.input.predictions), params.exclude_models)  # noqa: F821
with timed(log, f"table 1 rows of {snakemake.wildcards.set}"):  # noqa: F821
    table = table1_rows(
        preds,
        test_set=snakemake.wildcards.set,
        subsets=params.subsets,  # noqa: F821
        eps_values=params.eps,
        delta=params.delta,
        n=params.n,
    )
log.info("rows:\n%s", table.drop(columns="model_names").to_string())
table.to_csv(snakemake.output.table, index=False)  # noqa: F821
