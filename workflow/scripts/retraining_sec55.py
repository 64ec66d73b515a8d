"""Recht et al. (2018) Sec. 5.5: vgg16_keras trained with a class-balanced half of CIFAR-10.1 v4 added,
tested on the held-out half (two draws), against the same recipe without the extra images."""

from pathlib import Path

import numpy as np
import pandas as pd

from holdout.predictions import load_predictions
from holdout.retraining import PAPER_SEC55, half_split, sec55_table
from holdout.runlog import script_logger
from holdout.tables import markdown_table

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, p = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
labels = np.load(inp.v4_labels).astype(np.int64)
rows, held = [], {}
for path, run in zip(inp.predictions, p.runs):
    pr = load_predictions(path)
    rows.append({"run": run, "correct_mask": pr.predictions[0] == pr.labels})
    if run != "standard":
        held[run] = ~half_split(labels, int(p.n_half), int(run[4:]))
t = sec55_table(pd.DataFrame(rows), held, float(p.alpha))
t.to_csv(out.csv, index=False)
shown = t.assign(
    accuracy=t.accuracy.map("{:.2f}".format), interval=[f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(t.ci_low, t.ci_high)]
)
notes = [*p.notes, "Paper (Recht et al. 2018, Sec. 5.5): " + ", ".join(f"{k} {v}%" for k, v in PAPER_SEC55.items())]
Path(out.md).write_text(
    markdown_table(
        shown,
        {
            "draw": "Draw",
            "training": "Training data",
            "correct": "Correct",
            "n": "n",
            "accuracy": "Accuracy (%)",
            "interval": "95% CI",
        },
        notes=notes,
    )
)
log.info("\n%s", t.to_string())
