"""Recht et al. (2018) Sec. 5.6: five class-balanced, seeded splits of the 50,000 training images."""

import numpy as np
import pandas as pd

from holdout.retraining import cv_splits
from holdout.retraining.core import cv_splits_frame
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
p = snakemake.params  # noqa: F821
labels = np.load(snakemake.input.arrays)["train_labels"]  # noqa: F821
split = cv_splits(labels, int(p.n_splits), int(p.seed))
cv_splits_frame(split).to_csv(snakemake.output.splits, index=False)  # noqa: F821
log.info("split sizes x class counts:\n%s", pd.crosstab(split + 1, labels).to_string())
