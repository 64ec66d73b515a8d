"""Recht et al. (2018) Figure 3 (Appendix B): new-test images that none of the published models
classifies correctly, with the true class and the majority prediction."""

import numpy as np

from holdout.data.core import CIFAR10_CLASSES
from holdout.plotting import save_figure
from holdout.predictions import load_predictions
from holdout.retraining import hard_images
from holdout.retraining.plots import figure3
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, p = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
preds = load_predictions(inp.predictions)
images = np.load(inp.images)
if len(images) != preds.num_examples:
    raise ValueError(f"{inp.images}: {len(images)} images but {inp.predictions} has {preds.num_examples} examples")
hard = hard_images(preds)
fig, data = figure3(images, hard, list(CIFAR10_CLASSES), int(p.columns), p.max_images)
save_figure(fig, out.png, out.pdf, data, out.csv)
log.info(
    "%d of %d images are misclassified by all %d models (%d shown)",
    len(hard),
    preds.num_examples,
    preds.num_models,
    len(data),
)
