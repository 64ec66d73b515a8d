"""Recht et al. (2018) Figure 1: class-balanced random draws from the new (when its images are
present) and the original test set, one row per class."""

import numpy as np

from holdout.plotting import save_figure
from holdout.retraining import balanced_draw
from holdout.retraining.plots import figure1
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, p = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
arrays = np.load(inp.arrays)
classes = [str(c) for c in arrays["classes"]]
panels = []
if hasattr(inp, "new_images"):
    new_x, new_y = np.load(inp.new_images), np.load(inp.new_labels).astype(np.int64)
    panels.append((f"Test Set A (CIFAR-10.1 {p.version})", new_x, balanced_draw(new_y, int(p.per_class), int(p.seed))))
else:
    log.warning("CIFAR-10.1 %s images not available: Figure 1 shows the original test set only", p.version)
orig = balanced_draw(arrays["test_labels"], int(p.per_class), int(p.seed))
panels.append(("Test Set B (CIFAR-10 test)", arrays["test_images"], orig))
fig, data = figure1(panels, classes)
save_figure(fig, out.png, out.pdf, data, out.csv)
log.info("Figure 1: %d panel(s), %d images per class, seed %d", len(panels), int(p.per_class), int(p.seed))
