"""holdout.retraining: Recht et al. (2018) Sec. 5.5-5.6 splits, Table 2 / Sec. 5.5 tables, Figures 1 and 3."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from holdout.predictions import Predictions
from holdout.retraining import (
    PAPER_TABLE2,
    balanced_draw,
    cv_fold,
    cv_splits,
    half_split,
    hard_images,
    sec55_from_predictions,
    sec55_table,
    table2,
)
from holdout.retraining.core import (
    cv_splits_frame,
    load_run_sources,
    read_cv_splits,
    run_arrays,
    run_data,
    sec55_markdown,
    table2_markdown,
)
from holdout.retraining.plots import figure1, figure3, image_mosaic

CIFAR_LABELS = np.repeat(np.arange(10), 5000)[np.random.default_rng(1).permutation(50_000)]


def test_cv_splits_are_class_balanced_5_x_10000():
    split = cv_splits(CIFAR_LABELS, 5, seed=0)
    counts = pd.crosstab(split, CIFAR_LABELS).to_numpy()
    assert counts.shape == (5, 10) and (counts == 1000).all()  # Sec. 5.6: 1,000 per class per split


@pytest.mark.parametrize("per_class", [8, 13])
def test_cv_splits_balanced_when_classes_do_not_divide(per_class):
    y = np.repeat(np.arange(10), per_class)
    split = cv_splits(y, 5, seed=0)
    sizes = np.bincount(split, minlength=5)
    assert sizes.max() - sizes.min() <= 1
    counts = pd.crosstab(split, y).to_numpy()
    assert (counts.max(axis=0) - counts.min(axis=0) <= 1).all()


def test_cv_splits_deterministic_and_seeded():
    a, b, c = cv_splits(CIFAR_LABELS, seed=3), cv_splits(CIFAR_LABELS, seed=3), cv_splits(CIFAR_LABELS, seed=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_cv_fold_partitions_and_csv_round_trip(tmp_path):
    split = cv_splits(CIFAR_LABELS, seed=0)
    for k in range(5):
        train, held = cv_fold(split, k)
        assert train.size == 40_000 and held.size == 10_000
        assert np.union1d(train, held).size == 50_000 and np.intersect1d(train, held).size == 0
    path = tmp_path / "cv_splits.csv"
    cv_splits_frame(split).to_csv(path, index=False)
    assert list(pd.read_csv(path).columns) == ["index", "split"]
    assert pd.read_csv(path)["split"].between(1, 5).all()
    assert np.array_equal(read_cv_splits(path, 50_000), split)
    with pytest.raises(ValueError, match="index must list"):
        read_cv_splits(path, 49_999)


def test_half_split_of_v4_is_class_balanced_1010_of_2021():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, 2021)
    m1, m2 = half_split(y, 1010, seed=1), half_split(y, 1010, seed=2)
    assert m1.sum() == m2.sum() == 1010 and not np.array_equal(m1, m2)
    for c in range(10):
        n_c = (y == c).sum()
        assert abs(m1[y == c].sum() - n_c * 1010 / 2021) < 1
    assert np.array_equal(m1, half_split(y, 1010, seed=1))


def test_balanced_draw_and_hard_images():
    y = np.repeat(np.arange(10), 7)
    idx = balanced_draw(y, 4, seed=0)
    assert idx.shape == (10, 4) and (y[idx] == np.arange(10)[:, None]).all()
    with pytest.raises(ValueError, match="fewer than 8"):
        balanced_draw(y, 8, seed=0)
    labels = np.array([0, 1, 2, 3])
    preds = np.array([[0, 2, 1, 3], [0, 2, 0, 0], [1, 5, 0, 3]])
    hard = hard_images(Predictions.create(preds, labels, ["a", "b", "c"], num_classes=10))
    assert hard["index"].tolist() == [1, 2]
    assert hard["majority"].tolist() == [2, 0] and hard["majority_votes"].tolist() == [2, 2]


def test_table2_long_form_intervals_and_paper_numbers():
    res = pd.DataFrame(
        {
            "model": ["vgg_15_BN_64"] * 3,
            "dataset": ["split2", "original", "split1"],
            "correct": [9381, 9300, 9387],
            "n": [10_000] * 3,
        }
    )
    t2 = table2(res)
    assert t2["dataset"].tolist() == ["split1", "split2", "original"]
    assert t2.loc[0, "paper_accuracy"] == PAPER_TABLE2["vgg_15_BN_64"][0] == 93.87
    assert t2.loc[1, "minus_original"] == pytest.approx(0.81)
    assert t2.loc[0, "ci_low"] < 93.87 < t2.loc[0, "ci_high"]
    md = table2_markdown(t2)
    assert "| Split 1 | 93.87 [" in md and "Original test" in md and "93.87, 93.81, 94.01, 93.99, 93.50" in md


def test_sec55_table():
    held = {"draw1": np.array([True, True, False, False]), "draw2": np.array([False, True, True, False])}
    res = pd.DataFrame(
        {
            "run": ["draw1", "draw2", "standard"],
            "correct_mask": [np.array([1, 0, 1, 1]), np.array([0, 1, 1, 0]), np.array([1, 1, 0, 0])],
        }
    )
    t = sec55_table(res, held)
    assert t["correct"].tolist() == [1, 2, 2, 1] and (t["n"] == 2).all()


def test_sec55_from_predictions_and_markdown():
    """The rule's path: one predictions file per run, held-out halves by half_split, the Markdown."""
    labels = np.repeat(np.arange(10), 4)
    rng = np.random.default_rng(0)
    runs = ["half1", "half2", "standard"]
    preds = [
        Predictions.create(np.where(rng.random(40) < 0.7, labels, (labels + 1) % 10)[None], labels, [r], num_classes=10)
        for r in runs
    ]
    t = sec55_from_predictions(preds, runs, labels.astype(np.int32), n_half=20, alpha=0.05)
    held = {r: ~half_split(labels, 20, int(r[4:])) for r in runs[:2]}
    res = pd.DataFrame({"run": runs, "correct_mask": [p.predictions[0] == labels for p in preds]})
    pd.testing.assert_frame_equal(t, sec55_table(res, held))
    md = sec55_markdown(t, ["a note"])
    assert "| Draw | Training data | Correct | n | Accuracy (%) | 95% CI |" in md
    assert f"{t.accuracy.iloc[0]:.2f}" in md and "- a note" in md and "draw 1 85.06%" in md


def test_sec55_on_the_first_v4_images_under_a_work_cap():
    """A dress rehearsal predicts only the first n v4 images: the held-out half among them."""
    labels = np.repeat(np.arange(10), 4)
    rng = np.random.default_rng(1)
    runs = ["half1", "standard"]
    full = [np.where(rng.random(40) < 0.6, labels, (labels + 1) % 10) for _ in runs]
    cut = [Predictions.create(f[None, :24], labels[:24], [r], num_classes=10) for f, r in zip(full, runs)]
    t = sec55_from_predictions(cut, runs, labels, n_half=20)
    held = {"half1": ~half_split(labels, 20, 1)[:24]}
    res = pd.DataFrame({"run": runs, "correct_mask": [f[:24] == labels[:24] for f in full]})
    pd.testing.assert_frame_equal(t, sec55_table(res, held))
    assert t["n"].iloc[0] == int(held["half1"].sum()) < 20
    with pytest.raises(ValueError, match="same first images"):
        sec55_from_predictions(
            [cut[0], Predictions.create(full[1][None], labels, ["s"], num_classes=10)], runs, labels, 20
        )


@pytest.mark.slow  # renders the figures as PNG + PDF: > 2 s on the 2-core AVX2 machine
def test_figures_on_generated_images(tmp_path):
    from holdout.plotting import save_figure

    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (70, 32, 32, 3), dtype=np.uint8)
    y = np.repeat(np.arange(10), 7)
    classes = [f"c{i}" for i in range(10)]
    idx = balanced_draw(y, 5, seed=0)
    mosaic = image_mosaic(images, idx)
    assert mosaic.shape == (10 * 33 - 1, 5 * 33 - 1, 3)
    assert np.array_equal(mosaic[33:65, 33:65], images[idx[1, 1]])
    fig, data = figure1([("Test Set A", images, idx), ("Test Set B", images, idx)], classes)
    save_figure(fig, tmp_path / "f1.png", data=data)
    assert len(pd.read_csv(tmp_path / "f1.csv")) == 100 and (tmp_path / "f1.pdf").stat().st_size > 0
    hard = pd.DataFrame({"index": [3, 9], "label": [0, 1], "majority": [6, 8], "majority_votes": [20, 12]})
    fig, data = figure3(images, hard, classes)
    assert fig.axes[0].get_title() == "True: c0\nPredicted: c6"
    save_figure(fig, tmp_path / "f3.png", data=data)
    assert pd.read_csv(tmp_path / "f3.csv")["predicted_class"].tolist() == ["c6", "c8"]


def test_figure3_captions_of_the_paper_are_among_the_hard_v4_images(shared_data):
    """Recht et al. (2018), Figure 3 (App. B) captions "True: deer / Predicted: frog", "True: airplane /
    Predicted: ship", "True: airplane / Predicted: cat": each is the (label, majority prediction) of a
    v4 image that none of the 30 published models classifies correctly (21 such images)."""
    from holdout.data.core import CIFAR10_CLASSES, read_cifar10_1_prediction_file

    base = shared_data / "CIFAR-10.1"
    files = sorted((base / "model_predictions/v4_predictions").glob("*_predictions.json"))
    assert len(files) == 30
    labels = np.load(base / "datasets/cifar10.1_v4_labels.npy")
    preds = np.stack([read_cifar10_1_prediction_file(f) for f in files])
    hard = hard_images(Predictions.create(preds, labels, [f.stem for f in files], num_classes=10))
    assert len(hard) == 21
    pairs = {(CIFAR10_CLASSES[t], CIFAR10_CLASSES[p]) for t, p in zip(hard["label"], hard["majority"])}
    assert {("deer", "frog"), ("airplane", "ship"), ("airplane", "cat")} <= pairs


def test_load_run_sources_and_run_arrays(tmp_path):
    """run_arrays: CIFAR parts in order, cut per class, v4 appended, NCHW contiguous; test set of the run."""
    rng = np.random.default_rng(0)
    tr = rng.integers(0, 256, (40, 4, 4, 3), dtype=np.uint8)
    te = rng.integers(0, 256, (20, 4, 4, 3), dtype=np.uint8)
    v4 = rng.integers(0, 256, (30, 4, 4, 3), dtype=np.uint8)
    ytr, yte, yv4 = np.arange(40) % 10, np.arange(20) % 10, np.arange(30) % 10
    np.savez(tmp_path / "a.npz", train_images=tr, train_labels=ytr, test_images=te, test_labels=yte)
    np.save(tmp_path / "v4.npy", v4)
    np.save(tmp_path / "v4_labels.npy", yv4.astype(np.int32))
    sources = load_run_sources(tmp_path / "a.npz", tmp_path / "v4.npy", tmp_path / "v4_labels.npy")
    assert set(sources) == {"train", "test", "v4"} and sources["v4"][1].dtype == np.int64
    split = cv_splits(ytr, n_splits=2, seed=0)
    d = run_arrays(run_data("split1", split, 20), sources)
    train_idx, held = cv_fold(split, 0)
    assert np.array_equal(d.x, np.concatenate([tr[train_idx], te]).transpose(0, 3, 1, 2))
    assert d.x.flags.c_contiguous and d.x.shape[1] == 3 and np.array_equal(d.y_test, ytr[held])
    cut = run_arrays(run_data("half1", split, 20, yv4, n_half=10), sources, train_per_class=2, seed=1)
    assert np.bincount(cut.y[:20]).tolist() == [2] * 10 and len(cut.y) == 30
    assert np.array_equal(cut.y_test, yv4) and np.array_equal(cut.x_test, v4.transpose(0, 3, 1, 2))
    assert load_run_sources(tmp_path / "a.npz").keys() == {"train", "test"}
