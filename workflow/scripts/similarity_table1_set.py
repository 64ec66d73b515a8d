"""Rows of a Mania-Table-1-like table for one test set: subsets, mean accuracy/similarity, SB/NBB gains."""

import pandas as pd

from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.core import (
    independent_similarity,
    pairwise_similarity,
    resolve_subset,
    gains_in_testable_models,
    upper_pairs,
)

log = script_logger(snakemake.log[0])
params = snakemake.params
test_set = snakemake.wildcards.set
preds = load_predictions(snakemake.input.predictions)
preds = preds.drop([m for m in params.exclude_models if m in preds.model_names])
acc = preds.accuracies()
n = int(params.n) if params.n else preds.num_examples

specs = [{"name": f"all {preds.num_models} models", "models": list(preds.model_names)}] + list(params.subsets)
rows = []
for spec in specs:
    names = resolve_subset(preds.model_names, acc, spec)
    sub = preds.subset(names)
    errors = sub.errors()
    if len(names) < 2:
        raise ValueError(f"similarity.table1.subsets: {spec['name']!r} selects fewer than 2 models on {test_set}")
    s = upper_pairs(pairwise_similarity(errors))
    b = upper_pairs(independent_similarity(errors.mean(axis=1)))
    mean_acc = float(sub.accuracies().mean())
    for eps in params.eps:
        with timed(log, f"{test_set} / {spec['name']} / eps={eps}: bounds"):
            gains = gains_in_testable_models(n, mean_acc, float(s.mean()), eps, params.delta)
        rows.append({
            "test_set": test_set, "models": spec["name"], "num_models": len(names),
            "model_names": " ".join(names), "n": n, "eps": eps, "delta": params.delta,
            "mean_accuracy": mean_acc, "mean_similarity": float(s.mean()),
            "mean_independent_similarity": float(b.mean()), **gains,
        })
        log.info("%s", rows[-1])
pd.DataFrame(rows).to_csv(snakemake.output.table, index=False)
