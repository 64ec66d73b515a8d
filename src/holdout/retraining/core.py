"""Recht et al. (2018), Sec. 5.4-5.6 and Appendix B: the torch-free parts of the retraining studies.

- Sec. 5.6 / Table 2: five class-balanced cross-validation splits of the 50,000 CIFAR-10 training
  images; for split k a model trains on the other four splits plus the 10,000 original test
  images and is tested on split k ([`cv_splits`][holdout.retraining.core.cv_splits],
  [`cv_fold`][holdout.retraining.core.cv_fold]).
- Sec. 5.5: a class-balanced random half (1,010 of 2,021) of CIFAR-10.1 v4 joins the training
  set; the other 1,011 images are the test set ([`half_split`][holdout.retraining.core.half_split]).
- Figure 1: class-balanced random draws ([`balanced_draw`][holdout.retraining.core.balanced_draw]); Figure 3 (Appendix
  B): new-test
  images that no model classifies correctly, with the majority prediction
  ([`hard_images`][holdout.retraining.core.hard_images]).
- Accuracy tables with exact Clopper-Pearson intervals (Sec. 3.2 of the paper), in percent.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from holdout.predictions import Predictions
from holdout.stats import clopper_pearson
from holdout.tables import markdown_table

__all__ = [
    "PAPER_SEC55",
    "PAPER_TABLE2",
    "RunArrays",
    "RunData",
    "accuracy_row",
    "balanced_draw",
    "class_balanced_subset",
    "cap_run_arrays",
    "cv_fold",
    "cv_splits",
    "cv_splits_frame",
    "half_split",
    "hard_images",
    "load_run_sources",
    "read_cv_splits",
    "run_arrays",
    "run_data",
    "sec55_from_predictions",
    "sec55_markdown",
    "sec55_table",
    "table2",
    "table2_markdown",
]

#: Recht et al. (2018), Table 2: accuracy (%) on cross-validation splits 1..5.
PAPER_TABLE2: dict[str, tuple[float, ...]] = {
    "vgg_15_BN_64": (93.87, 93.81, 94.01, 93.99, 93.5),
    "wide_resnet_28_10": (96.16, 96.04, 96.37, 96.16, 96.5),
    "shake_shake_64d_cutout": (97.16, 97.3, 97.38, 97.39, 97.4),
}
#: Recht et al. (2018), Sec. 5.5: vgg16_keras on the held-out v4 half, two draws, and without extra data.
PAPER_SEC55: dict[str, float] = {"draw 1": 85.06, "draw 2": 85.36, "without extra data": 84.9}


def _labels(labels: Sequence[int] | np.ndarray, what: str) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or y.size == 0 or not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
        raise ValueError(f"{what}: expected a non-empty 1-D array of class indices >= 0, got shape {y.shape}")
    return y.astype(np.int64)


def cv_splits(labels: Sequence[int] | np.ndarray, n_splits: int = 5, seed: int = 0) -> np.ndarray:
    """Split id (0 .. n_splits-1) of every example, class-balanced and seeded (Sec. 5.6).

    Within each class the examples are permuted (``numpy.random.default_rng(seed)``) and dealt to
    the splits in turn (each class continuing where the previous one stopped), so a class's count
    and a split's size differ by at most one between splits (CIFAR-10: 1,000 images of each class
    in each of the five splits of 10,000).
    """
    y = _labels(labels, "cv_splits")
    if n_splits < 2:
        raise ValueError(f"cv_splits: n_splits must be >= 2, got {n_splits}")
    rng = np.random.default_rng(seed)
    split = np.empty(y.size, dtype=np.int64)
    offset = 0
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        split[rng.permutation(idx)] = (offset + np.arange(idx.size)) % n_splits
        offset += idx.size  # the next class continues the deal, so split sizes differ by at most one too
    return split


def cv_splits_frame(split: np.ndarray) -> pd.DataFrame:
    """The ``cv_splits.csv`` table: one row per training image, ``index`` and ``split`` (1-based, as the paper)."""
    return pd.DataFrame({"index": np.arange(len(split)), "split": np.asarray(split) + 1})


def read_cv_splits(path: str | Path, n_examples: int | None = None) -> np.ndarray:
    """Read ``cv_splits.csv`` back into 0-based split ids, checking it covers 0..n-1 once."""
    path = Path(path)
    try:
        df = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable split table ({exc})") from exc
    if list(df.columns) != ["index", "split"]:
        raise ValueError(f"{path}: expected columns index,split, got {list(df.columns)}")
    idx = df["index"].to_numpy()
    if not np.array_equal(np.sort(idx), np.arange(len(df))) or (n_examples is not None and len(df) != n_examples):
        raise ValueError(f"{path}: index must list 0..{(n_examples or len(df)) - 1} once each")
    split = np.empty(len(df), dtype=np.int64)
    split[idx] = df["split"].to_numpy() - 1
    if split.min() < 0:
        raise ValueError(f"{path}: split ids must be >= 1")
    return split


def cv_fold(split: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Training-set indices used for training and held out for split ``k`` (0-based).

    The caller adds the whole original test set to the training part (Sec. 5.6).
    """
    split = np.asarray(split)
    if not 0 <= k <= int(split.max()):
        raise ValueError(f"cv_fold: split {k} out of range 0..{int(split.max())}")
    return np.flatnonzero(split != k), np.flatnonzero(split == k)


def half_split(labels: Sequence[int] | np.ndarray, n_first: int, seed: int) -> np.ndarray:
    """Boolean mask of a class-balanced random subset of ``n_first`` examples (Sec. 5.5).

    Each class contributes ``floor(n_c * n_first / n)`` examples; the remaining slots go to
    distinct classes chosen at random with probability proportional to their leftover fraction
    (seeded), so the subset's class counts match the set's proportions up to one.
    """
    y = _labels(labels, "half_split")
    if not 0 < n_first < y.size:
        raise ValueError(f"half_split: n_first must be in (0, {y.size}), got {n_first}")
    rng = np.random.default_rng(seed)
    classes, counts = np.unique(y, return_counts=True)
    exact = counts * n_first / y.size
    take = np.floor(exact).astype(np.int64)
    short = n_first - int(take.sum())
    if short:
        frac = exact - take
        extra = rng.choice(classes.size, size=short, replace=False, p=frac / frac.sum())
        take[extra] += 1
    mask = np.zeros(y.size, dtype=bool)
    for c, t in zip(classes, take):
        mask[rng.choice(np.flatnonzero(y == c), size=int(t), replace=False)] = True
    return mask


def balanced_draw(labels: Sequence[int] | np.ndarray, per_class: int, seed: int, num_classes: int = 10) -> np.ndarray:
    """Indices (num_classes x per_class) of a seeded class-balanced random draw (Figure 1)."""
    y = _labels(labels, "balanced_draw")
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(num_classes):
        idx = np.flatnonzero(y == c)
        if idx.size < per_class:
            raise ValueError(f"balanced_draw: class {c} has {idx.size} examples, fewer than {per_class}")
        rows.append(np.sort(rng.choice(idx, size=per_class, replace=False)))
    return np.stack(rows)


def hard_images(preds: Predictions) -> pd.DataFrame:
    """Examples that no model classifies correctly, with the majority prediction (Figure 3).

    Columns ``index``, ``label``, ``majority`` (the most frequent predicted class over the
    models; ties to the smaller class index) and ``majority_votes``.
    """
    p = np.asarray(preds.predictions)
    wrong = (p != preds.labels[None, :]).all(axis=0)
    idx = np.flatnonzero(wrong)
    votes = (
        np.stack([(p[:, idx] == c).sum(axis=0) for c in range(preds.num_classes)])
        if idx.size
        else np.zeros((preds.num_classes, 0), dtype=np.int64)
    )
    return pd.DataFrame(
        {
            "index": idx,
            "label": preds.labels[idx],
            "majority": votes.argmax(axis=0),
            "majority_votes": votes.max(axis=0) if idx.size else votes.sum(axis=0),
        }
    )


def accuracy_row(correct: int, n: int, alpha: float = 0.05) -> dict[str, float]:
    """``correct``, ``n``, accuracy and its exact Clopper-Pearson interval, in percent."""
    lo, hi = clopper_pearson(int(correct), int(n), alpha)
    return {
        "correct": int(correct),
        "n": int(n),
        "accuracy": 100 * (int(correct) / int(n)),
        "ci_low": 100 * lo,
        "ci_high": 100 * hi,
    }


def table2(results: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Table 2 in long form from ``results`` (columns ``model``, ``dataset``, ``correct``, ``n``).

    ``dataset`` is ``split1`` .. ``split5`` (tested on the held-out split) or ``original``
    (trained on the standard split, tested on the original test set). Adds the accuracy with
    its interval, ``paper_accuracy`` (Table 2) and ``minus_original`` (split minus original-test
    accuracy, the paper's claim: small).
    """
    need = {"model", "dataset", "correct", "n"}
    if not need <= set(results.columns):
        raise ValueError(f"table2: results need columns {sorted(need)}, got {list(results.columns)}")
    rows = []
    for r in results.itertuples(index=False):
        paper = PAPER_TABLE2.get(r.model)
        k = int(r.dataset[5:]) if r.dataset.startswith("split") else None
        rows.append(
            {
                "model": r.model,
                "dataset": r.dataset,
                **accuracy_row(r.correct, r.n, alpha),
                "paper_accuracy": paper[k - 1] if paper is not None and k is not None else np.nan,
            }
        )
    df = pd.DataFrame(rows)
    orig = df[df.dataset == "original"].set_index("model")["accuracy"]
    df["minus_original"] = df["accuracy"] - df["model"].map(orig)
    order = {d: i for i, d in enumerate([f"split{i}" for i in range(1, 10)] + ["original"])}
    return df.sort_values(
        ["model", "dataset"], key=lambda s: s.map(order) if s.name == "dataset" else s, ignore_index=True
    )


def table2_markdown(t2: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    """Table 2 as the paper prints it: one row per split, one column per model, plus our original-test row."""
    models = list(dict.fromkeys(t2["model"]))
    datasets = list(dict.fromkeys(t2["dataset"]))
    cell = {(r.model, r.dataset): f"{r.accuracy:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]" for r in t2.itertuples()}
    lines = ["| | " + " | ".join(f"`{m}`" for m in models) + " |", "|---|" + "---:|" * len(models)]
    for d in datasets:
        label = f"Split {d[5:]}" if d.startswith("split") else "Original test (standard split)"
        lines.append(f"| {label} | " + " | ".join(cell.get((m, d), "") for m in models) + " |")
    paper = [f"`{m}` " + ", ".join(f"{a:.2f}" for a in PAPER_TABLE2[m]) for m in models if m in PAPER_TABLE2]
    notes = [
        *notes,
        "Accuracy (%) with exact 95% Clopper-Pearson intervals.",
        "Paper (Recht et al. 2018, Table 2, splits 1-5): " + "; ".join(paper) + "." if paper else "",
    ]
    return "\n".join(lines) + "\n\n" + "".join(f"- {n}\n" for n in notes if n)


def sec55_table(results: pd.DataFrame, held_out: Mapping[str, np.ndarray], alpha: float = 0.05) -> pd.DataFrame:
    """Sec. 5.5: accuracy on each draw's held-out v4 half, with and without the extra images.

    ``results`` has one row per run (``run``: ``draw1``, ``draw2``, ... or ``standard``) with
    ``correct_mask`` (bool per v4 image); ``held_out`` maps a draw to its held-out mask.
    """
    rows = []
    std = results.set_index("run")["correct_mask"].get("standard")
    for draw, mask in held_out.items():
        arms = [("with extra half", results.set_index("run")["correct_mask"].get(draw))]
        arms.append(("without extra data", std))
        for arm, correct in arms:
            if correct is None:
                continue
            c = np.asarray(correct, dtype=bool)[np.asarray(mask, dtype=bool)]
            rows.append({"draw": draw, "training": arm, **accuracy_row(int(c.sum()), c.size, alpha)})
    return pd.DataFrame(rows)


def sec55_from_predictions(
    preds: Sequence[Predictions], runs: Sequence[str], v4_labels: np.ndarray, n_half: int, alpha: float = 0.05
) -> pd.DataFrame:
    """[`sec55_table`][holdout.retraining.core.sec55_table] from one single-model predictions file per run
    (``half<seed>`` or
    ``standard``, all on CIFAR-10.1 v4): each draw's held-out half is the complement of
    [`half_split`][holdout.retraining.core.half_split] of ``v4_labels`` with that seed, among the predicted images (all
    of v4, or
    its first images in every run under a dress rehearsal's cap)."""
    labels = np.asarray(v4_labels).astype(np.int64)
    m = {len(p.labels) for p in preds}
    if len(m) != 1 or any(not np.array_equal(p.labels, labels[: len(p.labels)]) for p in preds):
        raise ValueError("sec55: every run must predict the same first images of CIFAR-10.1 v4, in order")
    n = m.pop()  # all 2,021; fewer under a dress rehearsal's training.cap.images (the first n)
    rows = [{"run": run, "correct_mask": p.predictions[0] == p.labels} for p, run in zip(preds, runs)]
    held = {run: ~half_split(labels, int(n_half), int(run[4:]))[:n] for run in runs if run != "standard"}
    return sec55_table(pd.DataFrame(rows), held, alpha)


def sec55_markdown(t: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    """Markdown of [`sec55_table`][holdout.retraining.core.sec55_table] (accuracy and 95% interval in percent) with the
    paper's values."""
    interval = [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(t.ci_low, t.ci_high)]
    shown = t.assign(accuracy=t.accuracy.map("{:.2f}".format), interval=interval)
    paper = "Paper (Recht et al. 2018, Sec. 5.5): " + ", ".join(f"{k} {v}%" for k, v in PAPER_SEC55.items())
    headers = {"draw": "Draw", "training": "Training data", "correct": "Correct", "n": "n"}
    headers |= {"accuracy": "Accuracy (%)", "interval": "95% CI"}
    return markdown_table(shown, headers, notes=[*notes, paper])


def class_balanced_subset(labels: Sequence[int] | np.ndarray, per_class: int, seed: int) -> np.ndarray:
    """Sorted indices of ``per_class`` random examples of every class (all of a class with fewer)."""
    y = _labels(labels, "class_balanced_subset")
    rng = np.random.default_rng(seed)
    parts = [rng.permutation(np.flatnonzero(y == c))[:per_class] for c in np.unique(y)]
    return np.sort(np.concatenate(parts))


@dataclass(frozen=True)
class RunData:
    """What one retraining run trains on and is tested on.

    ``train``: ``(source, indices)`` pairs, sources ``"train"`` / ``"test"`` (CIFAR-10) and
    ``"v4"`` (CIFAR-10.1 v4); ``evaluate``: one such pair (the run's test set, named ``test_set``).
    """

    train: tuple[tuple[str, np.ndarray], ...]
    evaluate: tuple[str, np.ndarray]
    test_set: str


def run_data(
    run: str, split: np.ndarray, n_test: int, v4_labels: np.ndarray | None = None, n_half: int = 1010
) -> RunData:
    """Training and test data of a run: ``split<k>`` (Sec. 5.6), ``standard``, ``half<seed>`` (Sec. 5.5).

    ``split<k>`` trains on the training images outside split k plus the ``n_test`` original test
    images and tests on split k; ``standard`` trains on all training images and tests on the
    original test set; ``half<seed>`` adds the class-balanced ``n_half`` v4 images drawn with
    ``seed`` ([`half_split`][holdout.retraining.core.half_split]) to all training images and is evaluated on all of v4
    (the
    held-out half is selected afterwards, [`sec55_table`][holdout.retraining.core.sec55_table]).
    """
    n_train = len(split)
    if run.startswith("split") and run[5:].isdigit():
        train, held = cv_fold(split, int(run[5:]) - 1)
        return RunData((("train", train), ("test", np.arange(n_test))), ("train", held), f"cifar10_train_{run}")
    if run == "standard":
        return RunData((("train", np.arange(n_train)),), ("test", np.arange(n_test)), "cifar10_test")
    if run.startswith("half") and run[4:].isdigit():
        if v4_labels is None:
            raise ValueError(f"run {run!r} needs the CIFAR-10.1 v4 labels")
        extra = np.flatnonzero(half_split(v4_labels, n_half, int(run[4:])))
        return RunData(
            (("train", np.arange(n_train)), ("v4", extra)), ("v4", np.arange(len(v4_labels))), "cifar10_1_v4"
        )
    raise ValueError(f"unknown retraining run {run!r} (split<k>, standard or half<seed>)")


Sources = Mapping[str, tuple[np.ndarray, np.ndarray]]


def load_run_sources(
    arrays: str | Path, v4_images: str | Path | None = None, v4_labels: str | Path | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The (images N x H x W x C uint8, labels) sources of [`RunData`][holdout.retraining.core.RunData]: CIFAR-10
    ``train`` and
    ``test`` from the ``arrays`` NPZ, and ``v4`` (CIFAR-10.1 v4 ``.npy`` files) when given."""
    with np.load(arrays) as z:
        sources = {
            "train": (z["train_images"], z["train_labels"]),
            "test": (z["test_images"], z["test_labels"]),
        }
    if v4_images is not None and v4_labels is not None:
        sources["v4"] = (np.load(v4_images), np.load(v4_labels).astype(np.int64))
    return sources


@dataclass(frozen=True)
class RunArrays:
    """A run's training and test images (N x C x H x W uint8, contiguous) and labels."""

    x: np.ndarray
    y: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray


def cap_run_arrays(arrays: RunArrays, run: str, images: int | None) -> RunArrays:
    """A dress rehearsal's cut (``training.cap.images``): the first ``images`` test images of a run
    (of a ``half<seed>`` run, the first v4 images: Sec. 5.5 takes the held-out ones among them)."""
    if images is None:
        return arrays
    return RunArrays(arrays.x, arrays.y, arrays.x_test[:images], arrays.y_test[:images])


def _nchw(images: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(images.transpose(0, 3, 1, 2))


def run_arrays(
    data: RunData,
    sources: Sources,
    train_per_class: int | None = None,
    seed: int = 0,
    log: logging.Logger | None = None,
) -> RunArrays:
    """Gather ``data``'s images from ``sources`` ([`load_run_sources`][holdout.retraining.core.load_run_sources]).

    The CIFAR-10 parts are concatenated in order and, with ``train_per_class`` (CPU-sized
    runs), cut to that many images per class ([`class_balanced_subset`][holdout.retraining.core.class_balanced_subset]
    with ``seed``);
    the CIFAR-10.1 v4 images of a ``half<seed>`` run are appended after them, all of them.
    """
    log = log or logging.getLogger("holdout")
    cifar = [(s, i) for s, i in data.train if s != "v4"]
    x = np.concatenate([sources[s][0][i] for s, i in cifar])
    y = np.concatenate([sources[s][1][i] for s, i in cifar])
    if train_per_class is not None:
        keep = class_balanced_subset(y, int(train_per_class), int(seed))
        x, y = x[keep], y[keep]
        log.info("%d CIFAR-10 images per class (retraining.train_per_class or training.cap)", int(train_per_class))
    extra = [(sources[s][0][i], sources[s][1][i]) for s, i in data.train if s == "v4"]
    if extra:
        x, y = np.concatenate([x, *[e[0] for e in extra]]), np.concatenate([y, *[e[1] for e in extra]])
        log.info("added %d CIFAR-10.1 v4 images", sum(len(e[1]) for e in extra))
    src, idx = data.evaluate
    return RunArrays(_nchw(x), y, _nchw(sources[src][0][idx]), sources[src][1][idx])
