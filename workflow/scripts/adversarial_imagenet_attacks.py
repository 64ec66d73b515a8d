"""Translational AEGs with exact densities on one torchvision model and one ImageNet
split (Werpachowski et al. 2019, Sec. 5.2, Appendix B): the per-image table."""

import torch

from holdout.adversarial import imagenet as inet
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])  # noqa: F821
cfg, folder = snakemake.params.cfg, snakemake.params.folder  # noqa: F821
model_name, split = snakemake.wildcards.model, snakemake.wildcards.split  # noqa: F821
torch.set_num_threads(int(snakemake.threads))  # noqa: F821
device = inet.resolve_device(cfg["device"])
dataset = inet.image_folder(
    folder, int(cfg["resize"]), key=f"adversarial_imagenet.{split}_dir", pretrained=cfg["weights"] != "random"
)
indices = inet.sample_indices(len(dataset), snakemake.params.sample_size, int(cfg["seed"]))  # noqa: F821
log.info(
    "%s on %s (%s): %d of %d images, %d classes, device %s, eps=%g (%s-norm), window %d on a %d canvas",
    model_name,
    split,
    folder,
    len(indices),
    len(dataset),
    len(dataset.classes),
    device,
    cfg["eps"],
    cfg["norm"],
    cfg["window"],
    cfg["resize"],
)
with timed(log, f"build {model_name} ({cfg['weights']})"):
    model = inet.build_model(model_name, cfg["weights"], int(cfg["seed"]))
with timed(log, f"attacks on {len(indices)} images"):
    result = inet.run_study(
        model,
        dataset,
        indices,
        window=int(cfg["window"]),
        eps=float(cfg["eps"]),
        norm=cfg["norm"],
        attacks=list(cfg["attacks"]),
        seed=int(cfg["seed"]),
        batch_size=int(cfg["batch_size"]),
        chunk_size=int(cfg["chunk_size"]),
        num_workers=int(cfg["num_workers"]),
        device=device,
        log=log,
    )
frame = inet.result_frame(result, inet.image_paths(dataset, folder, result.indices))
frame.to_csv(snakemake.output.per_image, index=False)  # noqa: F821
log.info("%s", inet.describe_result(result))
