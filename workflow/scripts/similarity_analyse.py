"""Similarity, covering numbers and difficulty of the models of one test set (Mania et al. 2019)."""

from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.study import (
    analyse_set,
    drop_excluded,
    eta_grid,
    write_analysis,
)

log = script_logger(snakemake.log[0])  # noqa: F821
inp, params = snakemake.input, snakemake.params  # noqa: F821
preds, excluded = drop_excluded(load_predictions(inp.predictions), params.exclude_models)
log.info(
    "%s: %d models on %d points (excluded: %s)",
    inp.predictions,
    preds.num_models,
    preds.num_examples,
    ", ".join(excluded) or "none",
)
with timed(log, f"similarity ({params.method}), covering numbers and difficulty"):
    analysis = analyse_set(
        preds,
        test_set=snakemake.wildcards.set,
        source=str(inp.predictions),  # noqa: F821
        etas=eta_grid(params.eta_min, params.eta_max, params.eta_num),
        method=params.method,
        quantiles=params.quantiles,
        excluded=excluded,
    )
write_analysis(analysis, snakemake.output)  # noqa: F821
log.info("summary: %s", analysis.summary)
