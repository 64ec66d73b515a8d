"""Adaptive analyst study on one test set: overfit per attack x mechanism x split x k, table and summary."""

from holdout.adaptive.outputs import write_study
from holdout.adaptive.study import study_params
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
inp, out, cfg = snakemake.input, snakemake.output, dict(snakemake.params.cfg)  # noqa: F821
preds = load_predictions(inp.predictions)
preds = preds.drop([m for m in cfg.get("exclude_models", []) if m in preds.model_names])
params = study_params(cfg)
log.info(
    "%s: K = %d models, n = %d, %d splits, k up to %d",
    preds.test_set,
    preds.num_models,
    preds.num_examples,
    params.n_splits,
    max(params.k_grid),
)
paths = {key: out[key] for key in ("runs", "table_csv", "table_md", "summary")}
with timed(log, "attacks x mechanisms"):
    summary = write_study(preds, params, paths, progress=log.info)
log.info(
    "largest overfit %.4f; smallest margin under the alpha = 0 bound %.4f",
    summary["max_overfit"],
    summary["min_margin"],
)
