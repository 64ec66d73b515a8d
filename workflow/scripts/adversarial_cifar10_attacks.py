"""Translational AEGs with exact densities (Werpachowski et al. 2019, Sec. 5.2, Appendix B) on one
seeds model: its training subset and the CIFAR-10 test set, one per-image table each."""

import torch

from holdout.adversarial.cifar10 import attack as ac
from holdout.runlog import script_logger, timed
from holdout.training.jobs import load_cifar10_arrays

log = script_logger(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
inp, out, params = snakemake.input, snakemake.output, snakemake.params  # noqa: F821
model = snakemake.wildcards.model  # noqa: F821
window, eps = params.window_eps
torch.set_num_threads(int(snakemake.threads))  # noqa: F821
ac.check_recipe(ac.read_recipe(inp.recipe), window, [int(model.removeprefix("seed"))], path=inp.recipe)
with timed(log, f"load {inp.arrays}"):
    data = load_cifar10_arrays(inp.arrays)
frames = ac.attack_seed_model(
    inp.checkpoint,
    data,
    ac.read_train_subset(inp.train_subset, len(data.train_labels)),
    params.cfg,
    model=model,
    window=window,
    eps=eps,
    device=ac.resolve_device(params.cfg["device"]),
    subset_path=inp.train_subset,
    log=log,
)
for split, frame in frames.items():
    frame.to_csv(out[split], index=False)
