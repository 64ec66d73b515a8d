"""Recht et al. (2018) Sec. 5.5: vgg16_keras trained with a class-balanced half of CIFAR-10.1 v4 added,
tested on the held-out half (two draws), against the same recipe without the extra images."""

from pathlib import Path

import numpy as np

from holdout.predictions import load_predictions
from holdout.retraining import sec55_from_predictions
from holdout.retraining.core import sec55_markdown
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, p = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
preds = [load_predictions(path) for path in inp.predictions]
t = sec55_from_predictions(preds, p.runs, np.load(inp.v4_labels), int(p.n_half), float(p.alpha))
t.to_csv(out.csv, index=False)
Path(out.md).write_text(sec55_markdown(t, p.notes))
log.info("\n%s", t.to_string())
