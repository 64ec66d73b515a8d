"""The adversarial overfitting test on the workflow's own CIFAR-10 models.

Werpachowski et al. (2019), Sec. 5.2 (the ImageNet experiment) run on the ``seeds``
study: N models of one recipe trained on W x W windows of the 32 x 32 CIFAR-10
images and evaluated on the centre window. The 32 x 32 image is the *canvas*, the
centre W x W window the original image x; a translation tau_v moves the window by v
pixels, losslessly while it stays inside the canvas (as the 256-pixel canvas around
ImageNet's 224-pixel crop in Sec. 5.2). The attacks and their exact densities need
every window within 3 eps of the centre (Appendix B.1, Figure 9), so a W x W window
allows eps <= floor((32 - W) / 2) / 3; :func:`check_window` refuses anything more.

(G3) -- translations preserve the data density -- is assumed, as in the paper; the
paper argues it for ImageNet because its images are not centred. CIFAR-10 objects are
more centred, so (G3) holds here only approximately.

Per model and set (the training subset the model was trained on; the test set):
the four translational AEGs of Appendix B with exact densities (eqs. 8, 9), from
:mod:`holdout.adversarial.translation`: every needed window is evaluated once, in
batches mixing images, and reused by all attacks and densities. The tests:

- the pairwise test (6)-(7) per model, AEG and sample size (uniform sub-samples
  without replacement: prefixes of one seeded permutation, shared by all models),
  and the interval test of Sec. 3.1 (R_S, R_g with 97.5% intervals): Figure 5;
- per model, the test-set p-value against its test error (Sec. 3.3 (i));
- the N-model test over all seeds (Sec. 3.3 (ii)), per set, AEG and sample size.
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

from holdout.adversarial.cifar10_window import _KEY, CANVAS, check_window, resolve_window_eps
from holdout.adversarial.imagenet import attack_range, figure5_table, result_frame
from holdout.adversarial.imagenet import sample_indices as _sample_indices
from holdout.adversarial.stats import n_model_test
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
    ``torchvision``'s layout) for a model taking uint8 windows (:func:`windowed_classifier`).

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
    """Per-image attack tables (:func:`per_image_frame`) of seeds model ``model`` (``seed<k>``) on
    its training subset and the test set, keyed by set (:data:`SETS`).

    ``data``: CIFAR-10 arrays (``holdout.data.load_cifar10``); ``subset``: the training indices
    the model was trained on (its checkpoint's ``train_examples`` must match). Each set is
    sub-sampled to ``cfg["<set>_sample_size"]`` with ``cfg["seed"]`` (:func:`sample_indices`);
    the AEGs are seeded with ``cfg["seed"]`` + the model's seed (:func:`attack_model`).
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


# ---------------------------------------------------------------------------
# the tests (Sec. 3) on the per-image tables
# ---------------------------------------------------------------------------
def pvalue_table(
    frames: Mapping[tuple[str, str], pd.DataFrame],
    sample_sizes: Sequence[int],
    *,
    seed: int,
    confidence_delta: float = 0.025,
) -> pd.DataFrame:
    """Every p-value: per (model, set), AEG and sample size, the pairwise test (6)-(7) and
    the interval test of Sec. 3.1 (columns of
    :func:`holdout.adversarial.imagenet.figure5_table`), with columns ``model``, ``set``,
    ``aeg``, ``sample_size``, ``p_value`` first. Sub-samples are prefixes of one seeded
    permutation per set size, so every model of a set sees the same images."""
    tables = []
    for (model, split), df in frames.items():
        t = figure5_table(df, sample_sizes, seed=seed, confidence_delta=confidence_delta)
        t = t.rename(columns={"attack": "aeg"})
        t.insert(0, "set", split)
        t.insert(0, "model", model)
        tables.append(t)
    if not tables:
        raise ValueError("no per-image results")
    out = pd.concat(tables, ignore_index=True)
    first = ["model", "set", "aeg", "sample_size", "p_value"]
    return out[first + [c for c in out.columns if c not in first]]


def _t_matrix(frames: Sequence[pd.DataFrame], attack: str) -> np.ndarray:
    from holdout.adversarial.stats import t_statistic

    rows = [t_statistic(f["loss"], f[f"{attack}_adv_loss"], f[f"{attack}_density"]) for f in frames]
    return np.stack(rows)


def n_model_table(
    frames: Mapping[tuple[str, str], pd.DataFrame],
    sample_sizes: Sequence[int],
    *,
    seed: int,
) -> pd.DataFrame:
    """The N-model test of Sec. 3.3 (ii) over all models, per set, AEG and sample size (the
    same sub-samples as :func:`pvalue_table`): Tbar_i = (1/N) sum_j T_i(f_j), then (6)-(7).

    Every model of a set must have been attacked on the same images in the same order."""
    rows = []
    for split in dict.fromkeys(s for _, s in frames):
        models = [(m, f) for (m, s), f in frames.items() if s == split]
        ref = models[0][1]["index"].to_numpy()
        for m, f in models[1:]:
            if not np.array_equal(f["index"].to_numpy(), ref):
                raise ValueError(f"{m} on the {split} set was attacked on other images than {models[0][0]}")
        n = len(ref)
        sizes = sorted({int(s) for s in sample_sizes if 1 <= int(s) < n} | {n})
        perm = np.random.default_rng([int(seed), 0xF5]).permutation(n)  # figure5_table's permutation
        attacks = [a for a in ATTACKS if f"{a}_adv_loss" in _common_columns(models)]
        for a in attacks:
            t = _t_matrix([f for _, f in models], a)
            U, rng = attack_range(a)
            for size in sizes:
                res = n_model_test(t[:, perm[:size]], U, expected_range=rng)
                rows.append(
                    {
                        "set": split,
                        "aeg": a,
                        "sample_size": size,
                        "n_models": res.n_models,
                        "p_value": res.p_value,
                        "log_p_value": res.log_p_value,
                        "statistic": res.statistic,
                        "variance": res.variance,
                        "U": U,
                    }
                )
    return pd.DataFrame(rows)


def _common_columns(models: Sequence[tuple[str, pd.DataFrame]]) -> set[str]:
    """Columns every model's table has."""
    cols = set(models[0][1].columns)
    for _, f in models[1:]:
        cols &= set(f.columns)
    return cols


def rejection_summary(pvalues: pd.DataFrame, n_model: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per set and AEG on the whole sample: how many models the pairwise test rejects at
    ``alpha`` (independence of model and set, Sec. 3.3 (i)), the median and largest
    p-value, the mean error R_S and risk R_g, and the N-model test's p-value (Sec. 3.3 (ii))."""
    full = pvalues[pvalues["sample_size"] == pvalues.groupby(["model", "set"])["sample_size"].transform("max")]
    rows = []
    for (split, aeg), g in full.groupby(["set", "aeg"], sort=False):
        nm = n_model[(n_model["set"] == split) & (n_model["aeg"] == aeg)] if len(n_model) else n_model
        nm = nm[nm["sample_size"] == nm["sample_size"].max()] if len(nm) else nm
        rows.append(
            {
                "set": split,
                "aeg": aeg,
                "sample_size": int(g["sample_size"].max()),
                "n_models": len(g),
                "rejected": int((g["p_value"] <= alpha).sum()),
                "alpha": alpha,
                "median_p_value": float(g["p_value"].median()),
                "max_p_value": float(g["p_value"].max()),
                "mean_R_S": float(g["R_S"].mean()),
                "mean_R_g": float(g["R_g"].mean()),
                "n_model_p_value": float(nm["p_value"].iloc[0]) if len(nm) else float("nan"),
                "n_model_log_p_value": float(nm["log_p_value"].iloc[0]) if len(nm) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def pvalue_markdown(pvalues: pd.DataFrame, summary: pd.DataFrame) -> str:
    """The p-values on the whole samples as Markdown: one row per model and set, one column
    per AEG (the CSV has every sample size), then the summary with the N-model test."""
    from holdout.tables import markdown_table

    full = pvalues[pvalues["sample_size"] == pvalues.groupby(["model", "set"])["sample_size"].transform("max")]
    wide = full.pivot_table(index=["model", "set", "sample_size"], columns="aeg", values="p_value", sort=False)
    wide = wide.reset_index()
    aegs = [a for a in ATTACKS if a in wide.columns]
    for a in aegs:
        wide[a] = wide[a].map(lambda p: f"{p:.3g}")
    err = full.drop_duplicates(["model", "set"]).set_index(["model", "set"])["R_S"]
    wide["error"] = [f"{err[(m, s)]:.4f}" for m, s in zip(wide["model"], wide["set"])]
    cols = {"model": "model", "set": "set", "sample_size": "m", "error": "error R_S", **{a: f"p ({a})" for a in aegs}}
    s = summary.copy()
    for c in ("median_p_value", "max_p_value", "n_model_p_value"):
        s[c] = s[c].map(lambda p: f"{p:.3g}")
    for c in ("mean_R_S", "mean_R_g"):
        s[c] = s[c].map(lambda v: f"{v:.4f}")
    s["rejected"] = [f"{r}/{n}" for r, n in zip(s["rejected"], s["n_models"])]
    alpha = float(summary["alpha"].iloc[0]) if len(summary) else 0.05
    text = markdown_table(
        wide,
        cols,
        title="Pairwise test (6)-(7) on the whole samples (Werpachowski et al. 2019, Sec. 3.3 (i))",
        notes=["p-values at every sample size: pvalues.csv; U = 3/2 for strongest/nearest, 2 for random/random2"],
    )
    text += "\n" + markdown_table(
        s,
        {
            "set": "set",
            "aeg": "AEG",
            "sample_size": "m",
            "rejected": f"rejected at {alpha:g}",
            "median_p_value": "median p",
            "max_p_value": "max p",
            "mean_R_S": "mean R_S",
            "mean_R_g": "mean R_g",
            "n_model_p_value": "N-model p",
        },
        title="Summary and the N-model test over all models (Sec. 3.3 (ii))",
    )
    return text


def read_per_image(paths: Sequence[str | Path]) -> dict[tuple[str, str], pd.DataFrame]:
    """The per-image tables ``per_image/<model>_<set>.csv`` of the attack rule, keyed (model, set)."""
    frames = {}
    for path in paths:
        model, split = Path(path).stem.rsplit("_", 1)
        frames[model, split] = pd.read_csv(path)
    return frames


def summary_tables(
    frames: Mapping[tuple[str, str], pd.DataFrame], cfg: Mapping, log: logging.Logger | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(:func:`pvalue_table`, :func:`n_model_table`, :func:`rejection_summary`) of the per-image
    tables with ``adversarial_cifar10`` settings ``cfg`` (``seed``, ``sample_sizes``,
    ``confidence_delta``, ``alpha``); one log line per set, AEG and sample size."""
    log = log or logging.getLogger("holdout")
    seed, sizes = int(cfg["seed"]), [int(s) for s in cfg["sample_sizes"]]
    with timed(log, "pairwise and N-model tests"):
        pvalues = pvalue_table(frames, sizes, seed=seed, confidence_delta=float(cfg["confidence_delta"]))
        n_model = n_model_table(frames, sizes, seed=seed)
        summary = rejection_summary(pvalues, n_model, alpha=float(cfg["alpha"]))
    for _, r in summary.iterrows():
        log.info(
            "%s %s m=%d: %d/%d models rejected at %g (median p %.3g); N-model test p = %.3g (ln p = %.1f)",
            *(r["set"], r["aeg"], r["sample_size"], r["rejected"], r["n_models"], r["alpha"]),
            *(r["median_p_value"], r["n_model_p_value"], r["n_model_log_p_value"]),
        )
    return pvalues, n_model, summary
