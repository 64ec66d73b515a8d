"""Mania et al. (2019) Figure 3 for our search: similarity of every pair of checkpoints with accuracy
>= search_analysis.min_accuracy against independent errors, and the greedy upper bound on N_eta."""

import json

import numpy as np

from holdout.plotting import save_figure
from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed
from holdout.similarity.own_models import checkpoint_table, figure3
from holdout.similarity.plots import plot_covering_numbers, plot_pair_similarities

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
eta = params.eta
if eta["min"] > eta["max"]:
    raise ValueError(f"config search_analysis.eta: min={eta['min']} is above max={eta['max']}")
with timed(log, f"load {inp.predictions}"):
    preds = load_predictions(inp.predictions)
checkpoint_table(preds).to_csv(out.checkpoints, index=False)
etas = np.round(np.linspace(eta["min"], eta["max"], eta["num"]), 10)
with timed(log, f"similarities of {preds.num_models} checkpoints and {etas.size} covering numbers"):
    f3 = figure3(preds, params.min_accuracy, etas)
s = f3.summary
log.info(
    "%d of %d checkpoints (%d models) have accuracy >= %g (paper: 1,235 of 3,200); best %.4f",
    s["num_kept"],
    s["num_checkpoints"],
    s["num_models"],
    params.min_accuracy,
    s["best_accuracy"],
)
log.info(
    "mean similarity %.4f vs independent errors %.4f; %.1f%% of %d pairs above independent",
    s["mean_similarity"],
    s["mean_independent_similarity"],
    100 * s["fraction_pairs_above_independent"],
    s["num_pairs"],
)
label = f"Our random search, {preds.test_set}"
k = int(s["num_kept"])
with timed(log, "figures"):
    save_figure(
        plot_pair_similarities(
            f3.pairs["similarity"],
            f3.pairs["independent_similarity"],
            f"{label}: checkpoints with accuracy >= {params.min_accuracy:g}",
            k,
        ),
        out.pairs_png,
        out.pairs_pdf,
        data=f3.pairs.round(6),
        csv=out.pairs_csv,
    )  # K(K-1)/2 rows
    save_figure(
        plot_covering_numbers(
            f3.covering["eta"].to_numpy(),
            f3.covering["covering_number_upper_bound"].to_numpy(),
            k,
            f"{label}: similarity covering numbers",
        ),
        out.covering_png,
        out.covering_pdf,
        data=f3.covering,
        csv=out.covering_csv,
    )
with open(out.summary, "w") as fh:
    json.dump({"source": str(inp.predictions), **s}, fh, indent=2)
