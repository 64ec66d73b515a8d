"""The ImageNet study of Werpachowski et al. (2019), Sec. 5.2 and Figure 5.

The adversarial overfitting test with the translational AEGs of Appendix B
([`holdout.adversarial.translation`][holdout.adversarial.translation]) on torchvision's ImageNet classifiers
(VGG16, ResNet-50), over an ImageNet folder in ``ImageFolder`` layout.

Preprocessing (Sec. 5.2): the shorter image side is resized to 256 pixels
(bilinear, antialiased, as torchvision's ``Resize(256)``), the result normalised
with the ImageNet mean and standard deviation; this is the *canvas*. The
original image is its central 224 x 224 window (torchvision's ``CenterCrop``), so
the pair (canvas, window) is exactly the models' standard evaluation input and a
translation moves the window on the canvas. The 16-pixel margin allows eps = 5
(3 eps <= 16, Appendix B.1).

Figure 5: p-values of the pairwise test (6)-(7) against the sample size, for the
four AEGs, and the estimates R_S, R_g with their 97.5% empirical-Bernstein
intervals (Sec. 3.1) for ``strongest``. The sub-samples are the prefixes of one
seeded random permutation of the per-image results (each prefix is a uniform
sample without replacement, as in the paper).
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from holdout.adversarial.per_image import (
    attack_columns,
    attack_range,
    figure5_table,
    per_image_tests,
    result_frame,
    sample_indices,
)
from holdout.adversarial.translation import (
    ATTACKS,
    TranslationAttackResult,
    concatenate_results,
    translation_attacks,
)
from holdout.runlog import timed

if TYPE_CHECKING:  # torch is imported by the functions that run models: the tables
    import torch  # (figure5_table, summary_table) serve torch-free environments

__all__ = [
    "IMAGENET_MEAN",
    "IMAGENET_STD",
    "attack_range",
    "attack_split",
    "build_model",
    "canvas_transform",
    "describe_result",
    "figure5_table",
    "figure5_tables",
    "image_folder",
    "image_paths",
    "resolve_device",
    "result_frame",
    "run_study",
    "sample_indices",
    "summary_table",
]

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
_WNID = re.compile(r"^n\d{8}$")


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------
def resolve_device(spec: str) -> torch.device:
    """The device of ``adversarial_imagenet.device``: [`holdout.training.select_device`][holdout.training.select_device]
    (``"auto"``: cuda, then mps, then cpu), imported here when called so that this module's
    tables import without torch."""
    from holdout.training.device import select_device

    return select_device(spec, key="adversarial_imagenet.device")


def canvas_transform(resize: int):
    """PIL image -> normalised canvas tensor: shorter side ``resize`` (Sec. 5.2)."""
    from torchvision import transforms

    return transforms.Compose(
        [
            transforms.Resize(int(resize), interpolation=transforms.InterpolationMode.BILINEAR, antialias=True),
            transforms.ToTensor(),
            transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
        ]
    )


def image_folder(root: str | Path, resize: int, *, key: str = "adversarial_imagenet", pretrained: bool):
    """The ``ImageFolder`` at ``root`` (one sub-folder per class) with canvas transform.

    With pretrained weights the class folders must be the 1000 ImageNet WordNet ids
    (``n01440764``, ...): their sorted order is the models' class index.
    """
    from torchvision.datasets import ImageFolder

    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{key}: ImageNet folder {root} does not exist")
    try:
        ds = ImageFolder(str(root), transform=canvas_transform(resize))
    except (FileNotFoundError, RuntimeError) as exc:
        raise ValueError(f"{key}: {root} is not an ImageFolder (class sub-folders of images): {exc}") from exc
    if pretrained:
        bad = [c for c in ds.classes if not _WNID.match(c)]
        if len(ds.classes) != 1000 or bad:
            raise ValueError(
                f"{key}: {root} must hold the 1000 ImageNet classes as WordNet-id folders "
                f"(n01440764, ...) so that their sorted order is the pretrained models' class "
                f"index; found {len(ds.classes)} class folders"
                + (f", e.g. {bad[:3]} are not WordNet ids" if bad else "")
            )
    return ds


def build_model(name: str, weights: str, seed: int) -> torch.nn.Module:
    """A torchvision classifier. ``weights="random"``: random initialisation (seeded;
    no download); otherwise a torchvision weights name (``"IMAGENET1K_V1"``,
    ``"DEFAULT"``), downloaded by torchvision into its cache as usual."""
    import torch
    from torchvision.models import get_model, get_model_weights, list_models

    if name not in list_models():
        raise ValueError(f"adversarial_imagenet.models: {name!r} is not a torchvision model")
    if weights == "random":
        torch.manual_seed(int(seed))
        return get_model(name, weights=None)
    enum = get_model_weights(name)
    try:
        w = enum[weights] if weights != "DEFAULT" else enum.DEFAULT
    except KeyError:
        raise ValueError(
            f"adversarial_imagenet.weights: {name} has no weights {weights!r} "
            f"(available: {[m.name for m in enum]}, or 'random')"
        ) from None
    return get_model(name, weights=w)


# ---------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------
def _collate(batch):
    canv = [b[0] for b in batch]
    labels = np.array([b[1] for b in batch], dtype=np.int64)
    idx = np.array([b[2] for b in batch], dtype=np.int64)
    return canv, labels, idx


class _Indexed:
    """Map-style dataset yielding (canvas, label, index in the folder)."""

    def __init__(self, ds, indices):
        self.ds, self.indices = ds, indices

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, k):
        i = int(self.indices[k])
        x, y = self.ds[i]
        return x, y, i


def run_study(
    model: torch.nn.Module,
    dataset,
    indices: np.ndarray,
    *,
    window: int,
    eps: float,
    norm: str = "max",
    attacks: Sequence[str] = ATTACKS,
    seed: int = 0,
    batch_size: int = 256,
    chunk_size: int = 64,
    num_workers: int = 0,
    device: torch.device | str = "cpu",
    log: logging.Logger | None = None,
    log_every_s: float = 60.0,
) -> TranslationAttackResult:
    """Translation attacks on ``dataset[indices]``, ``chunk_size`` images at a time.

    The random attacks are seeded by the image's index in ``dataset``, so a run
    on a sub-sample gives the same per-image result as a run on everything.
    """
    import torch

    device = torch.device(device)
    model = model.to(device)
    loader = torch.utils.data.DataLoader(
        _Indexed(dataset, indices),
        batch_size=int(chunk_size),
        shuffle=False,
        num_workers=int(num_workers),
        collate_fn=_collate,
        pin_memory=device.type == "cuda",
    )
    parts: list[TranslationAttackResult] = []
    done, passes, t0, last = 0, 0, time.perf_counter(), -math.inf
    total = len(indices)
    for canv, labels, idx in loader:
        res = translation_attacks(
            model,
            canv,
            labels,
            window=(window, window),
            eps=eps,
            norm=norm,
            attacks=attacks,
            seed=seed,
            indices=idx,
            batch_size=batch_size,
            device=device,
        )
        parts.append(res)
        done += res.m
        passes += int(res.forward_passes.sum())
        now = time.perf_counter()
        if log is not None and (now - last >= log_every_s or done == total):
            last = now
            rate = done / (now - t0)
            log.info(
                "%d/%d images (%.1f%%), %.2f images/s, %.1f forward passes per image, ETA %.0f s",
                done,
                total,
                100.0 * done / total,
                rate,
                passes / done,
                (total - done) / rate,
            )
    if not parts:
        raise ValueError("no images to attack")
    return concatenate_results(parts)


def attack_split(
    model_name: str,
    folder: str | Path,
    split: str,
    cfg: Mapping[str, Any],
    sample_size: int | None,
    device: torch.device,
    log: logging.Logger | None = None,
) -> pd.DataFrame:
    """The per-image table ([`result_frame`][holdout.adversarial.imagenet.study.result_frame]) of torchvision model
    ``model_name`` on the
    ImageNet ``split`` in ``folder``: a seeded sample of ``sample_size`` images
    ([`sample_indices`][holdout.adversarial.imagenet.study.sample_indices]), the translation attacks of ``cfg``
    (``adversarial_imagenet``:
    window, eps, norm, attacks, seed, weights, resize, batch/chunk sizes) by
    [`run_study`][holdout.adversarial.imagenet.study.run_study]."""
    log = log or logging.getLogger("holdout")
    pretrained = cfg["weights"] != "random"
    dataset = image_folder(folder, int(cfg["resize"]), key=f"adversarial_imagenet.{split}_dir", pretrained=pretrained)
    indices = sample_indices(len(dataset), sample_size, int(cfg["seed"]))
    log.info(
        "%s on %s (%s): %d of %d images, %d classes, device %s, eps=%g (%s-norm), window %d on a %d canvas",
        *(model_name, split, folder, len(indices), len(dataset), len(dataset.classes), device),
        *(cfg["eps"], cfg["norm"], cfg["window"], cfg["resize"]),
    )
    with timed(log, f"build {model_name} ({cfg['weights']})"):
        model = build_model(model_name, cfg["weights"], int(cfg["seed"]))
    with timed(log, f"attacks on {len(indices)} images"):
        result = run_study(
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
    frame = result_frame(result, image_paths(dataset, folder, result.indices))
    log.info("%s", describe_result(result))
    return frame


def image_paths(dataset: Any, root: str | Path, indices: Sequence[int]) -> list[str]:
    """The paths, relative to ``root``, of the images ``indices`` of an
    [`image_folder`][holdout.adversarial.imagenet.study.image_folder] dataset."""
    return [str(Path(dataset.samples[int(i)][0]).relative_to(Path(root))) for i in indices]


def describe_result(result: TranslationAttackResult) -> str:
    """One log line: test error R_S, forward passes per image, success rate of every attack on the
    correctly classified images."""
    correct = result.losses == 0
    rates = (
        ", ".join(f"{a} {o.adv_losses[correct].mean():.4f}" for a, o in result.outcomes.items())
        if correct.any()
        else "no correctly classified image"
    )
    return (
        f"test error {result.losses.mean():.4f}; {result.forward_passes.mean():.1f} forward passes per image; "
        f"success rates: {rates}"
    )


def figure5_tables(
    frames: Mapping[str, pd.DataFrame],
    model: str,
    sample_sizes: Sequence[int],
    *,
    seed: int,
    confidence_delta: float = 0.025,
) -> pd.DataFrame:
    """[`figure5_table`][holdout.adversarial.imagenet.study.figure5_table] of every split (``frames``: split ->
    per-image table of ``model``),
    one table with columns ``model`` and ``split`` first (``figure5_<model>.csv``)."""
    tables = []
    for split, df in frames.items():
        t = figure5_table(df, sample_sizes, seed=seed, confidence_delta=confidence_delta)
        t.insert(0, "split", split)
        t.insert(0, "model", model)
        tables.append(t)
    return pd.concat(tables, ignore_index=True)


def summary_table(frames: dict[tuple[str, str], pd.DataFrame], confidence_delta: float = 0.025) -> pd.DataFrame:
    """One row per (model, split, attack) on the whole sample: the test, the interval
    test, the attack's success rate and the mean forward passes per image."""
    rows = []
    for (model, split), df in frames.items():
        correct = df["loss"].to_numpy() == 0
        for a in attack_columns(df):
            adv = df[f"{a}_adv_loss"].to_numpy()
            rows.append(
                {
                    "model": model,
                    "split": split,
                    "attack": a,
                    "m": len(df),
                    **per_image_tests(df, a, confidence_delta),
                    "success_rate": float(np.mean(adv[correct] == 1)) if correct.any() else float("nan"),
                    "forward_passes_per_image": float(df["forward_passes"].mean()),
                }
            )
    return pd.DataFrame(rows)
