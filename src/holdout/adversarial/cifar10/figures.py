"""Werpachowski et al. (2019) Figures 1 and 2 on CIFAR-10, and the translations file of the
seeds models.

- Figure 1: accuracy of the published CIFAR-10 models on the CIFAR-10 test set by year of
  publication (the paper's data: Recht et al. 2018). Accuracies are computed from the
  published predictions; each year comes from the paper that introduced the model
  (``data/werpachowski_model_years.csv``, one citation per row).
- Figure 2, as an analogue (the paper's is an ImageNet image on VGG16): an adversarial example
  made by a translation of a CIFAR-10 test image, chosen among the images on which the strongest
  AEG (Appendix B: the misclassified translation with the largest excess logit) succeeds, on the
  seeds models.
- [`seed_model_translations`][holdout.adversarial.cifar10.figures.seed_model_translations]: the translations file
  ([`holdout.adversarial.translations_file`][holdout.adversarial.translations_file]) of seeds checkpoints on CIFAR-10
  images.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from holdout.adversarial.cifar10.window import CANVAS, check_window
from holdout.predictions import Predictions

__all__ = [
    "CIFAR10_CLASSES",
    "figure1_table",
    "model_years",
    "seed_model_translations",
    "figure2_example",
    "success_logits",
    "windows_of",
    "strongest_successes",
]

#: CIFAR-10 class names, in label order (Krizhevsky 2009, batches.meta)
CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
_YEAR_COLUMNS = ("model", "year", "recht_ref", "authors", "title", "venue", "url", "note")


def model_years(path: str | Path | None = None) -> pd.DataFrame:
    """The year of publication of every CIFAR-10.1 model with its source (the package CSV by
    default). Every row needs a year and a citation (authors, title, venue or url)."""
    src = files("holdout.adversarial").joinpath("data/werpachowski_model_years.csv") if path is None else Path(path)
    with src.open() as fh:  # type: ignore[union-attr]
        df = pd.read_csv(fh, dtype={"recht_ref": str}, keep_default_na=False)
    missing = [c for c in _YEAR_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{src}: missing columns {missing}")
    bad = df[(df["authors"] == "") | (df["title"] == "") | ((df["venue"] == "") & (df["url"] == ""))]
    if len(bad):
        raise ValueError(f"{src}: rows without a full citation: {list(bad['model'])}")
    years = pd.to_numeric(df["year"], errors="coerce")
    if years.isna().any() or df["model"].duplicated().any():
        raise ValueError(f"{src}: every model needs one integer year")
    return df.assign(year=years.astype(int))


def figure1_table(preds: Predictions, years: pd.DataFrame) -> pd.DataFrame:
    """Per model: year (and its source) and CIFAR-10 test accuracy in percent, by year then
    accuracy. Every model of ``preds`` must have a year (an error names those without)."""
    acc = pd.DataFrame({"model": preds.model_names, "accuracy": 100.0 * preds.accuracies(), "n": preds.num_examples})
    lost = sorted(set(acc["model"]) - set(years["model"]))
    if lost:
        raise ValueError(f"no year of publication for {lost} (add them with their citation to the years CSV)")
    cols = ["model", "year", "authors", "title", "venue", "url"]
    out = acc.merge(years[cols], on="model", how="left")
    return out.sort_values(["year", "accuracy"], kind="stable").reset_index(drop=True)


def strongest_successes(frames: dict[str, pd.DataFrame], aeg: str = "strongest") -> pd.DataFrame:
    """Every image that ``aeg`` turned into a successful adversarial example (``loss`` 0,
    ``<aeg>_adv_loss`` 1) in the per-image tables
    ([`holdout.adversarial.cifar10.per_image_frame`][holdout.adversarial.cifar10.per_image_frame])
    keyed by model: columns model, index, label, v_row, v_col."""
    parts = []
    for model, df in frames.items():
        ok = df[(df["loss"] == 0) & (df[f"{aeg}_adv_loss"] == 1)]
        parts.append(
            pd.DataFrame(
                {
                    "model": model,
                    "index": ok["index"].to_numpy(int),
                    "label": ok["label"].to_numpy(int),
                    "v_row": ok[f"{aeg}_v_row"].to_numpy(int),
                    "v_col": ok[f"{aeg}_v_col"].to_numpy(int),
                }
            )
        )
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if out.empty:
        raise ValueError(f"the {aeg} AEG succeeded on no image of any model: no adversarial example to show")
    return out


def figure2_example(successes: pd.DataFrame, logits_original: np.ndarray, logits_translated: np.ndarray) -> dict:
    """The example of our Figure 2 analogue: the success of the strongest AEG whose translated image has the largest
    excess logit max_i l_i - l_y (the AEG's own criterion, Appendix B), i.e. the most confident
    error; ties to the first row. ``logits_*``: the model's logits on each row's original and
    translated window. Returns the row with both predictions and the excess logit."""
    lo, lt = np.asarray(logits_original, float), np.asarray(logits_translated, float)
    y = successes["label"].to_numpy(int)
    excess = lt.max(axis=1) - lt[np.arange(len(y)), y]
    i = int(np.argmax(excess))
    row = successes.iloc[i].to_dict()
    pred_o, pred_t = int(lo[i].argmax()), int(lt[i].argmax())
    if pred_o != y[i] or pred_t == y[i]:
        raise ValueError(f"{row['model']} image {row['index']}: the per-image table and the model disagree")
    return row | {"pred_original": pred_o, "pred_translated": pred_t, "excess_logit": float(excess[i])}


def seed_model_translations(
    checkpoints: dict[str, str | Path],
    images: np.ndarray,
    labels: np.ndarray,
    indices: Sequence[int] | np.ndarray,
    *,
    window: int,
    eps: int,
    norm: str = "max",
    device: Any = "cpu",
    path: str | Path | None = None,
):
    """The translations file of the seeds checkpoints (name -> path) on CIFAR-10 images (uint8
    N x 32 x 32 x 3): every model on the centre ``window`` moved by every offset within 3 eps."""
    import torch

    from holdout.adversarial.cifar10.attack import windowed_classifier
    from holdout.adversarial.translations_file import make_translations_file
    from holdout.training import load_checkpoint

    check_window(window, eps)
    device = torch.device(device)
    nets = []
    for ckpt in checkpoints.values():
        net, meta = load_checkpoint(ckpt, device)
        nets.append(windowed_classifier(net, meta["test_time"]["mean"], meta["test_time"]["std"], device))
    images = np.asarray(images)
    if images.dtype != np.uint8 or images.shape[1:] != (CANVAS, CANVAS, 3):
        raise ValueError(f"images must be uint8 N x {CANVAS} x {CANVAS} x 3, got {images.dtype} {images.shape}")
    canv = torch.from_numpy(images).permute(0, 3, 1, 2).contiguous()
    return make_translations_file(
        nets,
        canv,
        labels,
        window=(window, window),
        eps=eps,
        norm=norm,
        model_names=list(checkpoints),
        indices=indices,
        device=device,
        path=path,
    )


def windows_of(images: np.ndarray, window: int, offsets: np.ndarray) -> np.ndarray:
    """The centre ``window`` of each uint8 N x 32 x 32 x 3 image moved by ``offsets[i]`` = (v_row, v_col)."""
    top, left = check_window(window, 0)
    return np.stack(
        [img[top + r : top + r + window, left + c : left + c + window] for img, (r, c) in zip(images, offsets)]
    )


def success_logits(
    checkpoints: dict[str, str | Path], images: np.ndarray, successes: pd.DataFrame, window: int, device: Any = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """Logits of each success's model on its original and translated window (``images`` indexed
    by ``successes["index"]``)."""
    import torch

    from holdout.adversarial.cifar10.attack import windowed_classifier
    from holdout.training import load_checkpoint

    device = torch.device(device)
    out_o = np.zeros((len(successes), 0))
    out_t = out_o
    for model, g in successes.groupby("model", sort=False):
        net, meta = load_checkpoint(checkpoints[model], device)
        net = windowed_classifier(net, meta["test_time"]["mean"], meta["test_time"]["std"], device)
        imgs = images[g["index"].to_numpy(int)]
        zero = np.zeros((len(g), 2), int)
        with torch.no_grad():
            lo, lt = (
                net(torch.from_numpy(windows_of(imgs, window, off)).permute(0, 3, 1, 2).to(device)).cpu().numpy()
                for off in (zero, g[["v_row", "v_col"]].to_numpy(int))
            )
        if out_o.shape[1] == 0:
            out_o, out_t = np.zeros((len(successes), lo.shape[1])), np.zeros((len(successes), lo.shape[1]))
        out_o[g.index.to_numpy()], out_t[g.index.to_numpy()] = lo, lt
    return out_o, out_t
