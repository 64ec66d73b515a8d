"""Figures of one test set: Mania et al. Fig. 1a, the pair scatter, Fig. 4, covering numbers."""

import json

import pandas as pd

from holdout.similarity.plots import (
    plot_covering_numbers,
    plot_difficulty,
    plot_pair_similarities,
    plot_similarity_scatter,
    save_figure,
)
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
label = snakemake.params.label
with open(snakemake.input.summary) as fh:
    summary = json.load(fh)
pairs = pd.read_csv(snakemake.input.pairs)
cover = pd.read_csv(snakemake.input.covering)
difficulty = pd.read_csv(snakemake.input.difficulty)
k = int(summary["num_models"])
out = snakemake.output

with timed(log, "figures"):
    save_figure(plot_pair_similarities(pairs["similarity"], pairs["independent_similarity"],
                                       f"{label}: model similarities", k), out.fig1a_png, out.fig1a_pdf)
    save_figure(plot_similarity_scatter(pairs["similarity"], pairs["independent_similarity"],
                                        f"{label}: pairs of models"), out.scatter_png, out.scatter_pdf)
    marks = sorted({0, min(6, k), k - 1})
    save_figure(plot_difficulty(difficulty["fraction_misclassified_by_at_most_m"].to_numpy(),
                                f"{label}: difficulty of test points", marks=marks, n=int(summary["n"])),
                out.fig4_png, out.fig4_pdf)
    save_figure(plot_covering_numbers(cover["eta"].to_numpy(), cover["covering_number_upper_bound"].to_numpy(),
                                      k, f"{label}: similarity covering numbers"), out.cover_png, out.cover_pdf)
log.info("wrote %s", ", ".join(str(p) for p in out))
