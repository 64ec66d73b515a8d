"""Recht et al. (2018) Table 2: accuracy of each retrained model on each cross-validation split, with
Clopper-Pearson intervals, beside our original-test accuracy of the same recipe (standard split)."""

from pathlib import Path

import pandas as pd

from holdout.predictions import load_predictions
from holdout.retraining import table2
from holdout.retraining.core import table2_markdown
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
p = snakemake.params  # noqa: F821
rows = []
for path, (model, run) in zip(snakemake.input.predictions, p.runs):  # noqa: F821
    pr = load_predictions(path)
    rows.append(
        {
            "model": model,
            "dataset": "original" if run == "standard" else run,
            "correct": int(pr.correct_counts()[0]),
            "n": pr.num_examples,
        }
    )
t2 = table2(pd.DataFrame(rows), float(p.alpha))
t2.to_csv(snakemake.output.csv, index=False)  # noqa: F821
Path(snakemake.output.md).write_text(table2_markdown(t2, p.notes))  # noqa: F821
for model, g in t2.groupby("model"):
    s = g[g.dataset != "original"]
    log.info(
        "%s: splits %.2f-%.2f%%, original test %.2f%% (max |split - original| %.2f points)",
        model,
        s.accuracy.min(),
        s.accuracy.max(),
        g[g.dataset == "original"].accuracy.iloc[0],
        s.minus_original.abs().max(),
    )
