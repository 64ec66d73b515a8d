"""Figure 5 of Werpachowski et al. (2019) for one model: p-values of the pairwise test
against the sample size for the four AEGs, and R_S, R_g with 97.5% intervals for the
strongest AEG, on the training-set sample and on the validation set."""

import pandas as pd

from holdout.adversarial import plots_imagenet as plots
from holdout.adversarial import imagenet as inet
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
model = snakemake.wildcards.model

tables = []
with timed(log, "figure 5 table"):
    for split, path in zip(snakemake.params.splits, snakemake.input.per_image):
        df = pd.read_csv(path)
        t = inet.figure5_table(
            df, cfg["sample_sizes"], seed=int(cfg["seed"]), confidence_delta=float(cfg["confidence_delta"])
        )
        t.insert(0, "split", split)
        t.insert(0, "model", model)
        tables.append(t)
        full = t[t["sample_size"] == t["sample_size"].max()]
        for _, r in full.iterrows():
            log.info("%s %s %s m=%d: R_S=%.4f R_g=%.4f p=%.4g", model, split, r["attack"],
                     r["sample_size"], r["R_S"], r["R_g"], r["p_value"])
table = pd.concat(tables, ignore_index=True)
table.to_csv(snakemake.output.csv, index=False)
plots.save_figure(plots.plot_figure5(table, model), snakemake.output.figure)
