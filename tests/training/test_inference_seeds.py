"""holdout.training.inference (every checkpoint -> holdout.predictions) and holdout.training.seeds (recipe, subset)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from holdout.predictions import load_predictions, save_predictions
from holdout.training import (
    ResNetPreactConfig,
    RunSettings,
    TrainConfig,
    load_checkpoint,
    predict,
    train,
)
from holdout.training.augment import AugmentConfig, center_window
from holdout.training.inference import (
    checkpoint_name,
    gather_predictions,
    predict_checkpoints,
)
from holdout.training.seeds import (
    recipe_from_config,
    seed_model_name,
    train_subset,
    window_test_time,
)

TINY = ResNetPreactConfig(depth=8, base_channels=4)


def test_train_subset_is_seeded_sorted_and_distinct():
    a = train_subset(50000, 1000, 3)
    assert a.dtype == np.int64 and len(np.unique(a)) == 1000 and np.all(np.diff(a) > 0)
    assert np.array_equal(a, train_subset(50000, 1000, 3)) and not np.array_equal(a, train_subset(50000, 1000, 4))
    assert np.array_equal(train_subset(10, None, 0), np.arange(10))
    with pytest.raises(ValueError):
        train_subset(10, 11, 0)


def test_recipe_from_config_and_its_record():
    cfg = {
        "n_models": 3,
        "first_seed": 5,
        "window": 28,
        "train_subset_size": 100,
        "epochs": 7,
        "model": {"depth": 8, "base_channels": 8},
        "train": {"batch_size": 32, "augment": {"random_crop": False}},
    }
    r = recipe_from_config(cfg)
    assert r.seeds == (5, 6, 7) and r.train.epochs == 7 and r.train.augment.window == 28
    assert not r.train.augment.random_crop and r.model.base_channels == 8
    d = json.loads(json.dumps(r.to_dict()))
    assert {"window", "seeds", "train_subset_size", "epochs", "model", "train"} <= set(d)
    assert d["models"] == ["seed005", "seed006", "seed007"] and seed_model_name(12) == "seed012"
    assert TrainConfig.from_dict(d["train"]) == r.train and ResNetPreactConfig.from_dict(d["model"]) == r.model
    with pytest.raises(ValueError, match="n_models"):
        recipe_from_config({**cfg, "n_models": 0})


@pytest.fixture(scope="module")
def trained(tmp_path_factory, synthetic):
    x, y = synthetic(256, size=16, seed=0)
    aug = AugmentConfig(window=12, random_crop=False, horizontal_flip=False)
    cfg = TrainConfig(epochs=2, batch_size=32, base_lr=0.05, scheduler="cosine", augment=aug)
    out = tmp_path_factory.mktemp("m")
    res = train(
        TINY,
        cfg,
        x,
        y,
        RunSettings(
            out_dir=out / "o",
            state_dir=out / "s",
            seed=1,
            num_checkpoints=2,
            device="cpu",
            threads=1,
            extra_metadata={"test_time": window_test_time(aug, 10, 16)},
        ),
    )
    return res, x, y


def test_predict_checkpoints_names_scores_metadata_and_centre_window(trained):
    res, x, y = trained
    xt, yt = x[:50], y[:50]
    out = predict_checkpoints(
        "seed001",
        res.checkpoints,
        {"a": (xt, yt), "b": (x[50:90], y[50:90])},
        config={"k": 1},
        batch_size=17,
        device="cpu",
    )
    p = out["a"]
    assert p.model_names == (checkpoint_name("seed001", 1), "seed001@e002") and p.test_set == "a"
    assert p.scores.shape == (2, 50, 10) and np.array_equal(p.predictions, p.scores.argmax(2))
    assert p.metadata[1]["epoch"] == 2 and p.metadata[1]["config"] == {"k": 1} and p.metadata[0]["seed"] == 1
    model, meta = load_checkpoint(res.checkpoints[1])
    assert meta["test_time"]["window"] == 12
    _, logits = predict(model, center_window(torch.as_tensor(xt), 12), device="cpu")
    np.testing.assert_allclose(p.scores[1], logits, rtol=1e-5, atol=1e-5)
    assert out["b"].num_examples == 40


def test_gather_concatenates_models_and_round_trips(trained, tmp_path):
    res, x, y = trained
    a = predict_checkpoints("seed000", res.checkpoints, {"t": (x[:30], y[:30])}, device="cpu")["t"]
    b = predict_checkpoints("seed001", res.checkpoints[-1:], {"t": (x[:30], y[:30])}, device="cpu")["t"]
    g = gather_predictions([a, b], "t")
    assert g.model_names == ("seed000@e001", "seed000@e002", "seed001@e002") and g.scores.shape == (3, 30, 10)
    save_predictions(tmp_path / "t.npz", g)
    back = load_predictions(tmp_path / "t.npz")
    assert back.model_names == g.model_names and back.metadata[2]["model"] == "seed001"
    np.testing.assert_array_equal(back.scores, g.scores)
    other = predict_checkpoints("x", res.checkpoints[-1:], {"t": (x[:30], (y[:30] + 1) % 10)}, device="cpu")["t"]
    with pytest.raises(ValueError, match="same labels"):
        gather_predictions([a, other], "t")
