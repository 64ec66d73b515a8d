"""Translational AEGs with exact densities on one torchvision model and one ImageNet
split (Werpachowski et al. 2019, Sec. 5.2, Appendix B): the per-image table."""

import torch

from holdout.adversarial.imagenet import study as inet
from holdout.runlog import script_logger

log = script_logger(snakemake.log[0])  # noqa: F821
params, w = snakemake.params, snakemake.wildcards  # noqa: F821
torch.set_num_threads(int(snakemake.threads))  # noqa: F821
frame = inet.attack_split(
    w.model, params.folder, w.split, params.cfg, params.sample_size, inet.resolve_device(params.cfg["device"]), log
)
frame.to_csv(snakemake.output.per_image, index=False)  # noqa: F821
