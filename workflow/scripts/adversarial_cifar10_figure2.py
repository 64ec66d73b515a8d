"""Werpachowski et al. Figure 2 on the seeds models: the strongest AEG's most confident
adversarial translation of a CIFAR-10 test image."""

import numpy as np

from holdout.adversarial.cifar10 import figures as cf
from holdout.adversarial.cifar10.attack import read_per_image
from holdout.adversarial.cifar10.plots import plot_figure2
from holdout.data import load_cifar10
from holdout.plotting import save_figure
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
window = int(params.window_eps[0])
frames = {m: f for (m, s), f in read_per_image(inp.per_image).items() if s == "test"}
successes = cf.strongest_successes(frames)
log.info("%d successful strongest-AEG examples over %d models", len(successes), len(frames))
data = load_cifar10(inp.archive)
checkpoints = dict(zip(params.models, inp.checkpoints))
lo, lt = cf.success_logits(checkpoints, data.test_images, successes, window)
ex = cf.figure2_example(successes, lo, lt)
log.info("Figure 2: %s", ex)
img = data.test_images[[int(ex["index"])]]
original = cf.windows_of(img, window, np.zeros((1, 2), int))[0]
translated = cf.windows_of(img, window, np.array([[ex["v_row"], ex["v_col"]]]))[0]
fig, table = plot_figure2(original, translated, ex, list(cf.CIFAR10_CLASSES))
save_figure(fig, out.png, out.pdf, data=table, csv=out.csv)
