"""The adversarial overfitting test on the workflow's own CIFAR-10 models.

Werpachowski et al. (2019), Sec. 5.2 (the ImageNet experiment) run on the ``seeds``
study: N models of one recipe trained on W x W windows of the 32 x 32 CIFAR-10
images and evaluated on the centre window. The 32 x 32 image is the *canvas*, the
centre W x W window the original image x; a translation tau_v moves the window by v
pixels, losslessly while it stays inside the canvas (as the 256-pixel canvas around
ImageNet's 224-pixel crop in Sec. 5.2). The attacks and their exact densities need
every window within 3 eps of the centre (Appendix B.1, Figure 9), so a W x W window
allows eps <= floor((32 - W) / 2) / 3; [`check_window`][holdout.adversarial.cifar10.attack.check_window] refuses
anything more.

(G3) -- translations preserve the data density -- is assumed, as in the paper; the
paper argues it for ImageNet because its images are not centred. CIFAR-10 objects are
more centred, so (G3) holds here only approximately.

Per model and set (the training subset the model was trained on; the test set):
the four translational AEGs of Appendix B with exact densities (eqs. 8, 9), from
[`holdout.adversarial.translation`][holdout.adversarial.translation]: every needed window is evaluated once, in
batches mixing images, and reused by all attacks and densities. The tests:

- the pairwise test (6)-(7) per model, AEG and sample size (uniform sub-samples
  without replacement: prefixes of one seeded permutation, shared by all models),
  and the interval test of Sec. 3.1 (R_S, R_g with 97.5% intervals): Figure 5;
- per model, the test-set p-value against its test error (Sec. 3.3 (i));
- the N-model test over all seeds (Sec. 3.3 (ii)), per set, AEG and sample size.

The tables (p-values, the N-model test, the summary) are in
[`holdout.adversarial.cifar10.tables`][holdout.adversarial.cifar10.tables] (re-exported here).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from holdout.adversarial.cifar10.tables import (
    n_model_table,
    pvalue_markdown,
    pvalue_table,
    read_per_image,
    rejection_summary,
    summary_tables,
)
from holdout.adversarial.cifar10.window import _KEY, CANVAS, check_window, resolve_window_eps
from holdout.adversarial.per_image import result_frame
from holdout.adversarial.per_image import sample_indices as _sample_indices
from holdout.adversarial.translation import (
    ATTACKS,
    TranslationAttackResult,
    concatenate_results,
    translation_attacks,
)
from holdout.runlog import timed
from holdout.training.naming import seed_model_name as model_name

if TYPE_CHECKING:
    import torch

__all__ = [
    "CANVAS",
    "SETS",
    "attack_model",
    "attack_seed_model",
    "check_recipe",
    "check_window",
    "model_name",
    "n_model_table",
    "per_image_frame",
    "pvalue_markdown",
    "pvalue_table",
    "read_per_image",
    "read_recipe",
    "read_train_subset",
    "rejection_summary",
    "resolve_device",
    "resolve_window_eps",
    "sample_indices",
    "summary_tables",
    "windowed_classifier",
]

#: the two sets every model is tested on, in the order of the paper's Sec. 5.2
SETS = ("train", "test")


# ---------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------
def sample_indices(n: int, size: int | None, seed: int) -> np.ndarray:
    """A uniform sample without replacement of ``size`` of ``range(n)`` (sorted), the same
    for every model; everything when ``size`` is None or >= n."""
    return _sample_indices(n, size, seed)


def resolve_device(spec: str) -> torch.device:
    """The device of ``adversarial_cifar10.device``: [`select_device`][holdout.training.device.select_device]
    (``"auto"``: cuda, then mps, then cpu); a device this machine lacks is refused naming that key."""
    from holdout.training.device import select_device

    return select_device(spec, key=f"{_KEY}.device")


def read_recipe(path: str | Path) -> dict:
    """The seeds study's ``recipe.json`` (at least ``window``, ``seeds``, ``train_subset_size``)."""
    path = Path(path)
    try:
        recipe = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable recipe ({exc})") from exc
    missing = [k for k in ("window", "seeds", "train_subset_size") if k not in recipe]
    if not isinstance(recipe, dict) or missing:
        raise ValueError(f"{path}: recipe lacks {missing or 'a JSON object'}")
    return recipe


def read_train_subset(path: str | Path, n_train: int) -> np.ndarray:
    """The seeds study's ``train_subset.npy``: distinct int64 indices into the ``n_train``
    CIFAR-10 training images."""
    try:
        subset = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable .npy file ({exc})") from exc
    if subset.ndim != 1 or subset.size == 0 or not np.issubdtype(subset.dtype, np.integer):
        raise ValueError(f"{path}: expected a non-empty 1-D integer array, got {subset.dtype} {subset.shape}")
    if subset.min() < 0 or subset.max() >= n_train or np.unique(subset).size != subset.size:
        raise ValueError(f"{path}: indices must be distinct and in [0, {n_train})")
    return subset.astype(np.int64)


def check_recipe(recipe: Mapping, window: int, seeds: Sequence[int], *, path: str = "recipe.json") -> None:
    """The models must have been trained on the window the test translates, and be among
    the recipe's seeds; a clear error naming the config key otherwise."""
    if int(recipe["window"]) != int(window):
        raise ValueError(
            f"{_KEY}.window = {window} but the seeds models were trained on {recipe['window']} x "
            f"{recipe['window']} windows ({path}): set {_KEY}.window to {recipe['window']}"
        )
    extra = sorted({int(s) for s in seeds} - {int(s) for s in recipe["seeds"]})
    if extra:
        raise ValueError(f"{_KEY}: seeds {extra} are not among the recipe's seeds {list(recipe['seeds'])} ({path})")


# ---------------------------------------------------------------------------
# the model on uint8 windows
# ---------------------------------------------------------------------------
def windowed_classifier(
    model: torch.nn.Module,
    mean: Sequence[float],
    std: Sequence[float],
    device: torch.device,
) -> torch.nn.Module:
    """``model`` fed uint8 windows (B, 3, W, W): scaled to [0, 1], normalised with the
    checkpoint's ``mean``/``std``; channels_last and bf16 autocast on CUDA only (on CPU
    float32 and the default layout: no oneDNN channels_last path for inference here).
    Returns float32 logits."""
    import torch

    class _Windowed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32).view(1, -1, 1, 1))
            self.register_buffer("std", torch.tensor(std, dtype=torch.float32).view(1, -1, 1, 1))
            self.on_cuda = device.type == "cuda"

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = (x.float().div_(255.0) - self.mean) / self.std
            if self.on_cuda:
                x = x.contiguous(memory_format=torch.channels_last)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=self.on_cuda):
                return self.model(x).float()

    out = _Windowed().to(device)
    if device.type == "cuda":
        out.model.to(memory_format=torch.channels_last)
    return out.eval()


def attack_model(
    model: torch.nn.Module,
    images: np.ndarray,
    labels: np.ndarray,
    indices: np.ndarray,
    *,
    window: int,
    eps: float,
    norm: str = "max",
    attacks: Sequence[str] = ATTACKS,
    seed: int = 0,
    batch_size: int = 1024,
    chunk_size: int = 512,
    device: torch.device | str = "cpu",
    log: logging.Logger | None = None,
) -> TranslationAttackResult:
    """Translation attacks with exact densities on CIFAR-10 images (uint8 N x 32 x 32 x 3,
    ``torchvision``'s layout) for a model taking uint8 windows
    ([`windowed_classifier`][holdout.adversarial.cifar10.attack.windowed_classifier]).

    ``indices``: the images' indices in their CIFAR-10 set (they seed the random AEGs, so a
    sub-sample gives the same per-image results). The images go to ``device`` once as uint8;
    ``chunk_size`` images are attacked at a time (their windows share batches of
    ``batch_size``). Progress (tqdm) goes to ``log``.
    """
    import torch
    from tqdm import tqdm

    images = np.asarray(images)
    if images.dtype != np.uint8 or images.ndim != 4 or images.shape[1:] != (CANVAS, CANVAS, 3):
        raise ValueError(f"images must be uint8 N x {CANVAS} x {CANVAS} x 3, got {images.dtype} {images.shape}")
    labels = np.asarray(labels, dtype=np.int64)
    indices = np.asarray(indices, dtype=np.int64)
    if not labels.shape == indices.shape == (images.shape[0],):
        raise ValueError(f"{images.shape[0]} images, {labels.shape} labels and {indices.shape} indices")
    check_window(window, eps)
    device = torch.device(device)
    canv = torch.from_numpy(images).to(device).permute(0, 3, 1, 2).contiguous()
    parts: list[TranslationAttackResult] = []
    t0 = time.perf_counter()
    bar = tqdm(total=len(images), unit="img", mininterval=30.0, file=_LogStream(log), disable=log is None)
    for start in range(0, len(images), int(chunk_size)):
        sl = slice(start, start + int(chunk_size))
        parts.append(
            translation_attacks(
                model,
                canv[sl],
                labels[sl],
                window=(window, window),
                eps=eps,
                norm=norm,
                attacks=attacks,
                seed=seed,
                indices=indices[sl],
                batch_size=batch_size,
                device=device,
            )
        )
        bar.update(parts[-1].m)
    bar.close()
    if not parts:
        raise ValueError("no images to attack")
    result = concatenate_results(parts)
    if log is not None:
        dt = time.perf_counter() - t0
        passes = int(result.forward_passes.sum())
        log.info(
            "%d images in %.1f s: %.1f images/s, %.1f forward passes per image, %.0f windows/s",
            result.m,
            dt,
            result.m / dt,
            passes / result.m,
            passes / dt,
        )
    return result


class _LogStream:
    """A file-like sink that sends tqdm's lines to a logger."""

    def __init__(self, log: logging.Logger | None) -> None:
        self.log = log

    def write(self, text: str) -> None:
        text = text.strip("\r\n ")
        if text and self.log is not None:
            self.log.info("%s", text)

    def flush(self) -> None:
        pass


def attack_seed_model(
    checkpoint: str | Path,
    data: Any,
    subset: np.ndarray,
    cfg: Mapping[str, Any],
    *,
    model: str,
    window: int,
    eps: int,
    device: torch.device,
    subset_path: str | Path = "train_subset.npy",
    log: logging.Logger | None = None,
) -> dict[str, pd.DataFrame]:
    """Per-image attack tables ([`per_image_frame`][holdout.adversarial.cifar10.attack.per_image_frame]) of seeds model
    ``model`` (``seed<k>``) on
    its training subset and the test set, keyed by set (`SETS`).

    ``data``: CIFAR-10 arrays (``holdout.data.load_cifar10``); ``subset``: the training indices
    the model was trained on (its checkpoint's ``train_examples`` must match). Each set is
    sub-sampled to ``cfg["<set>_sample_size"]`` with ``cfg["seed"]``
    ([`sample_indices`][holdout.adversarial.cifar10.attack.sample_indices]);
    the AEGs are seeded with ``cfg["seed"]`` + the model's seed
    ([`attack_model`][holdout.adversarial.cifar10.attack.attack_model]).
    """
    from holdout.training import load_checkpoint

    log = log or logging.getLogger("holdout")
    net, meta = load_checkpoint(checkpoint, device)
    if int(meta.get("train_examples", len(subset))) != len(subset):
        raise ValueError(
            f"{checkpoint} was trained on {meta['train_examples']} images, {subset_path} lists {len(subset)}"
        )
    net = windowed_classifier(net, meta["test_time"]["mean"], meta["test_time"]["std"], device)
    log.info(
        "%s (%s, epoch %s) on %s: window %d, eps %d (%s-norm), AEGs %s",
        *(model, checkpoint, meta.get("epoch"), device, window, eps, cfg["norm"], ", ".join(cfg["attacks"])),
    )
    sets = {
        "train": (subset, data.train_images, data.train_labels, cfg["train_sample_size"]),
        "test": (np.arange(len(data.test_labels)), data.test_images, data.test_labels, cfg["test_sample_size"]),
    }
    frames = {}
    for split, (pool, images, labels, size) in sets.items():
        idx = pool[sample_indices(len(pool), size, int(cfg["seed"]))]
        with timed(log, f"{split}: attacks on {len(idx)} images"):
            result = attack_model(
                net,
                images[idx],
                labels[idx],
                idx,
                window=window,
                eps=eps,
                norm=cfg["norm"],
                attacks=list(cfg["attacks"]),
                seed=int(cfg["seed"]) + int(model.removeprefix("seed")),
                batch_size=int(cfg["batch_size"]),
                chunk_size=int(cfg["chunk_size"]),
                device=device,
                log=log,
            )
        frames[split] = per_image_frame(result)
        ok = result.losses == 0
        rates = ", ".join(f"{a} {o.adv_losses[ok].mean():.4f}" for a, o in result.outcomes.items()) if ok.any() else "-"
        log.info("%s: error %.4f; success rates on correctly classified images: %s", split, result.losses.mean(), rates)
    return frames


def per_image_frame(result: TranslationAttackResult) -> pd.DataFrame:
    """Per-image table: index (in the CIFAR-10 set), label, loss, forward passes, and per AEG
    ``<a>_adv_loss``, ``<a>_density``, ``<a>_n``, ``<a>_v_row``, ``<a>_v_col``."""
    return result_frame(result, [""] * result.m).drop(columns="path")
