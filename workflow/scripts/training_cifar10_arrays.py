"""CIFAR-10 archive -> uint8 N x 3 x 32 x 32 arrays (train_images, train_labels, test_images, test_labels)."""

import numpy as np

from holdout.data.core import load_cifar10
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
with timed(log, f"decode {snakemake.input.archive}"):
    c = load_cifar10(snakemake.input.archive)
np.savez(
    snakemake.output[0],
    train_images=np.ascontiguousarray(c.train_images.transpose(0, 3, 1, 2)),
    train_labels=c.train_labels,
    test_images=np.ascontiguousarray(c.test_images.transpose(0, 3, 1, 2)),
    test_labels=c.test_labels,
)
log.info("%d training and %d test images -> %s", len(c.train_labels), len(c.test_labels), snakemake.output[0])
