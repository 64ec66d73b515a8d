"""CIFAR-10 archive -> one uncompressed NPZ of uint8 arrays (read once; every training job loads it in
well under a second instead of decompressing the 170 MB archive again)."""

import numpy as np

from holdout.data.core import load_cifar10
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
with timed(log, f"reading {snakemake.input.archive}"):  # noqa: F821
    c = load_cifar10(snakemake.input.archive)  # noqa: F821
np.savez(
    snakemake.output.arrays,
    train_images=c.train_images,
    train_labels=c.train_labels,  # noqa: F821
    test_images=c.test_images,
    test_labels=c.test_labels,
    classes=np.array(c.classes),
)
log.info("%d training, %d test images", len(c.train_labels), len(c.test_labels))
