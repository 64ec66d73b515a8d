"""Translational AEGs with exact densities on one torchvision model and one ImageNet
split (Werpachowski et al. 2019, Sec. 5.2, Appendix B): the per-image table."""

from pathlib import Path

import torch

from holdout.adversarial import imagenet as inet
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
cfg = snakemake.params.cfg
model_name = snakemake.wildcards.model
split = snakemake.wildcards.split
torch.set_num_threads(int(snakemake.threads))

device = inet.resolve_device(cfg["device"])
pretrained = cfg["weights"] != "random"
dataset = inet.image_folder(
    snakemake.params.folder, int(cfg["resize"]), key=f"adversarial_imagenet.{split}_dir",
    pretrained=pretrained,
)
indices = inet.sample_indices(len(dataset), snakemake.params.sample_size, int(cfg["seed"]))
log.info(
    "%s on %s (%s): %d of %d images, %d classes, device %s, eps=%g (%s-norm), window %d on a %d canvas",
    model_name, split, snakemake.params.folder, len(indices), len(dataset), len(dataset.classes),
    device, cfg["eps"], cfg["norm"], cfg["window"], cfg["resize"],
)
with timed(log, f"build {model_name} ({cfg['weights']})"):
    model = inet.build_model(model_name, cfg["weights"], int(cfg["seed"]))

with timed(log, f"attacks on {len(indices)} images"):
    result = inet.run_study(
        model, dataset, indices,
        window=int(cfg["window"]), eps=float(cfg["eps"]), norm=cfg["norm"],
        attacks=list(cfg["attacks"]), seed=int(cfg["seed"]),
        batch_size=int(cfg["batch_size"]), chunk_size=int(cfg["chunk_size"]),
        num_workers=int(cfg["num_workers"]), device=device, log=log,
    )
root = Path(snakemake.params.folder)
paths = [str(Path(dataset.samples[int(i)][0]).relative_to(root)) for i in result.indices]
frame = inet.result_frame(result, paths)
Path(snakemake.output.per_image).parent.mkdir(parents=True, exist_ok=True)
frame.to_csv(snakemake.output.per_image, index=False)
log.info(
    "test error %.4f; %.1f forward passes per image; success rates: %s",
    result.losses.mean(), result.forward_passes.mean(),
    ", ".join(
        f"{a} {o.adv_losses[result.losses == 0].mean():.4f}" for a, o in result.outcomes.items()
    ) if (result.losses == 0).any() else "no correctly classified image",
)
