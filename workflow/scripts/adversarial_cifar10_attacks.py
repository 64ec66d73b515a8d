"""Translational AEGs with exact densities (Werpachowski et al. 2019, Sec. 5.2, Appendix B) on one
seeds model: its training subset and the CIFAR-10 test set, one per-image table each."""

import numpy as np
import torch

from holdout.adversarial import cifar10 as ac
from holdout.adversarial.imagenet import resolve_device
from holdout.data import load_cifar10
from holdout.runlog import script_logger, timed
from holdout.training import load_checkpoint

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
window, eps = snakemake.params.window_eps
inp, out = snakemake.input, snakemake.output
model = snakemake.wildcards.model
model_seed = int(model.removeprefix("seed"))
torch.set_num_threads(int(snakemake.threads))

recipe = ac.read_recipe(inp.recipe)
ac.check_recipe(recipe, window, [model_seed], path=inp.recipe)
with timed(log, f"load {inp.archive}"):
    data = load_cifar10(inp.archive)
subset = ac.read_train_subset(inp.train_subset, len(data.train_labels))
device = resolve_device(cfg["device"])
net, meta = load_checkpoint(inp.checkpoint, device)
if int(meta.get("train_examples", len(subset))) != len(subset):
    raise ValueError(
        f"{inp.checkpoint} was trained on {meta['train_examples']} images, {inp.train_subset} lists {len(subset)}"
    )
net = ac.windowed_classifier(net, meta["test_time"]["mean"], meta["test_time"]["std"], device)
log.info(
    "%s (%s, epoch %s) on %s: window %d, eps %d (%s-norm), AEGs %s",
    model,
    inp.checkpoint,
    meta.get("epoch"),
    device,
    window,
    eps,
    cfg["norm"],
    ", ".join(cfg["attacks"]),
)

sets = {
    "train": (subset, data.train_images, data.train_labels, cfg["train_sample_size"]),
    "test": (np.arange(len(data.test_labels)), data.test_images, data.test_labels, cfg["test_sample_size"]),
}
for split, (pool, images, labels, size) in sets.items():
    idx = pool[ac.sample_indices(len(pool), size, int(cfg["seed"]))]
    with timed(log, f"{split}: attacks on {len(idx)} images"):
        result = ac.attack_model(
            net,
            images[idx],
            labels[idx],
            idx,
            window=window,
            eps=eps,
            norm=cfg["norm"],
            attacks=list(cfg["attacks"]),
            seed=int(cfg["seed"]) + model_seed,
            batch_size=int(cfg["batch_size"]),
            chunk_size=int(cfg["chunk_size"]),
            device=device,
            log=log,
        )
    ac.per_image_frame(result).to_csv(out[split], index=False)
    ok = result.losses == 0
    log.info(
        "%s: error %.4f; success rates on correctly classified images: %s",
        split,
        result.losses.mean(),
        ", ".join(f"{a} {o.adv_losses[ok].mean():.4f}" for a, o in result.outcomes.items()) if ok.any() else "-",
    )
