"""Similarity, covering numbers and difficulty of the models of one test set (Mania et al. 2019)."""

import json

import numpy as np
import pandas as pd

from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.core import (
    covering_numbers,
    difficulty_distribution,
    independent_similarity,
    pairwise_similarity,
    summarize_similarity,
)

log = script_logger(snakemake.log[0])
params = snakemake.params
test_set = snakemake.wildcards.set

with timed(log, f"load {snakemake.input.predictions}"):
    preds = load_predictions(snakemake.input.predictions)
excluded = [m for m in params.exclude_models if m in preds.model_names]
preds = preds.drop(excluded)
log.info("%s: %d models on %d points (excluded: %s)", test_set, preds.num_models, preds.num_examples,
         ", ".join(excluded) or "none")
if preds.num_models < 2:
    raise ValueError(f"{snakemake.input.predictions}: need at least 2 models after excluding "
                     f"similarity.exclude_models, got {preds.num_models}")

errors = preds.errors()
error_rates = errors.mean(axis=1)
with timed(log, f"pairwise similarity ({params.method})"):
    sim = pairwise_similarity(errors, method=params.method)
indep = independent_similarity(error_rates)
summary = summarize_similarity(errors, sim, quantiles=params.quantiles)
log.info("mean accuracy %.4f, mean similarity %.4f, independent %.4f", summary.mean_accuracy,
         summary.mean_similarity, summary.mean_independent_similarity)

if params.eta_min > params.eta_max:
    raise ValueError(f"config similarity.eta: min={params.eta_min} is above max={params.eta_max}")
etas = np.linspace(params.eta_min, params.eta_max, params.eta_num)
with timed(log, f"greedy covering numbers for {etas.size} values of eta"):
    cover = covering_numbers(sim, error_rates, etas)
with timed(log, "difficulty distribution"):
    at_most = difficulty_distribution(errors)

names = list(preds.model_names)
acc = 1.0 - error_rates
pd.DataFrame({"model": names, "accuracy": acc, "num_errors": errors.sum(axis=1)}).to_csv(
    snakemake.output.models, index=False)
iu, ju = np.triu_indices(len(names), k=1)
pd.DataFrame({
    "model_i": np.array(names)[iu], "model_j": np.array(names)[ju],
    "accuracy_i": acc[iu], "accuracy_j": acc[ju],
    "similarity": sim[iu, ju], "independent_similarity": indep[iu, ju],
}).to_csv(snakemake.output.pairs, index=False, float_format="%.6f")
pd.DataFrame({"eta": np.round(etas, 10), "covering_number_upper_bound": cover,
              "num_models": len(names)}).to_csv(snakemake.output.covering, index=False)
counts = np.bincount(errors.sum(axis=0), minlength=len(names) + 1)
pd.DataFrame({"m": np.arange(len(names) + 1), "num_points_misclassified_by_exactly_m": counts,
              "fraction_misclassified_by_at_most_m": at_most}).to_csv(snakemake.output.difficulty, index=False)

out = {
    "test_set": test_set,
    "source": str(snakemake.input.predictions),
    "n": summary.n,
    "num_models": summary.num_models,
    "num_pairs": summary.num_pairs,
    "excluded_models": excluded,
    "mean_accuracy": summary.mean_accuracy,
    "mean_similarity": summary.mean_similarity,
    "mean_independent_similarity": summary.mean_independent_similarity,
    "min_similarity": summary.min_similarity,
    "max_similarity": summary.max_similarity,
    "fraction_pairs_above_independent": summary.fraction_above_independent,
    "similarity_quantiles": {str(q): v for q, v in summary.similarity_quantiles.items()},
    "independent_similarity_quantiles": {str(q): v for q, v in summary.independent_quantiles.items()},
    "fraction_correct_by_all": float(at_most[0]),
    "fraction_wrong_by_all": float(1.0 - at_most[-2]),
}
with open(snakemake.output.summary, "w") as fh:
    json.dump(out, fh, indent=2)
