"""The translations file of the seeds models on a sample of the CIFAR-10 test set: the input
of `holdout audit --translations` (Werpachowski et al.'s test without the models)."""

import torch

from holdout.adversarial.cifar10.attack import resolve_device, sample_indices
from holdout.adversarial.cifar10.figures import seed_model_translations
from holdout.data import load_cifar10
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
torch.set_num_threads(int(snakemake.threads))  # noqa: F821
window, eps = params.window_eps
data = load_cifar10(inp.archive)
idx = sample_indices(len(data.test_labels), int(params.cfg["translations_sample_size"]), int(params.cfg["seed"]))
with timed(log, f"{len(params.models)} models on {len(idx)} test images, every offset within 3 eps = {3 * eps}"):
    tr = seed_model_translations(
        dict(zip(params.models, inp.checkpoints)),
        data.test_images[idx],
        data.test_labels[idx],
        idx,
        window=window,
        eps=eps,
        norm=params.cfg["norm"],
        device=resolve_device(params.cfg["device"]),
        path=out.translations,
    )
log.info("wrote %s: predictions %s", out.translations, tr.predictions.shape)
