"""Bar chart of the summary table."""

import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
with timed(log, "figure"):
    with open(snakemake.input[0]) as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(range(len(rows)), [float(r["accuracy"]) for r in rows])
    ax.set_xticks(range(len(rows)), [f"{r['test_set']}\n{r['model']}" for r in rows], rotation=90, fontsize=6)
    ax.set_ylabel("accuracy")
    fig.tight_layout()
    fig.savefig(snakemake.output[0], dpi=80, metadata={"Software": None})
