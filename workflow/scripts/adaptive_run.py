"""Adaptive analyst study on one test set: overfit per attack x mechanism x split x k, table and summary."""

import json

from holdout.adaptive.study import models_similarity, run_study, study_params, summarize
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.tables import markdown_table, write_table

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
with timed(log, "attacks x mechanisms"):
    runs = run_study(preds, params, progress=log.info)
runs.to_csv(out.runs, index=False)
table = summarize(runs, params.delta)
cols = [
    "attack",
    "mechanism",
    "k",
    "overfit_mean",
    "overfit_sd",
    "overfit_max",
    "acc_heldout",
    "similarity",
    "sqrt_k_over_n",
    "bound",
    "margin",
]
shown = table[cols].copy()
for c in cols[3:]:
    shown[c] = shown[c].map(lambda v: f"{v:.4f}")
notes = [
    "overfit = attack-half accuracy - held-out-half accuracy of the submitted classifier, over splits.",
    "bound: Mania et al. Corollary 4 (eq. 7) at the queries' measured similarity, submission as query k+1, "
    "plus the held-out half's Hoeffding term (delta split in two); margin = bound - largest overfit.",
]
write_table(
    table,
    out.table_csv,
    out.table_md,
    markdown_table(shown, title=f"Adaptive overfitting on {preds.test_set}", notes=notes),
)
worst = table.loc[table["margin"].idxmin()]
summary = {
    "test_set": preds.test_set,
    "num_models": preds.num_models,
    "n": preds.num_examples,
    "models_similarity": models_similarity(preds),
    "params": {k: v for k, v in params.__dict__.items()},
    "bound_holds": bool((table["margin"] > 0).all()),
    "min_margin": float(worst["margin"]),
    "min_margin_at": {"attack": worst["attack"], "mechanism": worst["mechanism"], "k": int(worst["k"])},
    "max_overfit": float(table["overfit_max"].max()),
}
with open(out.summary, "w") as fh:
    json.dump(summary, fh, indent=2, default=list)
log.info("bound holds: %s (smallest margin %.4f)", summary["bound_holds"], summary["min_margin"])
