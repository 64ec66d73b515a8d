"""holdout.training.jobs and the search / seeds jobs built on it (one tiny CPU training run)."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from holdout.predictions import load_predictions
from holdout.training import ResNetPreactConfig, TrainConfig
from holdout.training.inference import load_test_sets, save_per_test_set
from holdout.training.jobs import (
    TrainJob,
    load_train_subset,
    predict_job,
    train_group_folders,
    train_job,
    write_json,
)
from holdout.training.loop import LOG_NAME
from holdout.training.search import model_name, sample_configs, search_job
from holdout.training.seeds import recipe_from_config, seeds_job, window_test_time

SEARCH_CFG = {
    "seed": 3,
    "depth": 8,
    "depth_bottleneck": 11,
    "max_base_channels": 8,
    "epochs": 4,
    "reference_epochs": 200,
}


def test_search_job_row_seed_and_record(tmp_path):
    sample_configs(3, seed=0).to_csv(tmp_path / "configs.csv", index=False)
    job = search_job(tmp_path / "configs.csv", model_name(2), SEARCH_CFG)
    assert job.name == "m002" and job.metadata["model_name"] == "m002"
    assert job.seed == int(np.random.SeedSequence([3, 2]).generate_state(1)[0])
    assert job.train_config.epochs == 4 and job.metadata["table2"] == job.record["table2"]
    assert list(job.record) == ["model", "table2", "scale", "seed"] and job.record["scale"]["depth"] == 8
    with pytest.raises(ValueError, match="no row for model m009"):
        search_job(tmp_path / "configs.csv", "m009", SEARCH_CFG)


def test_seeds_job_checks_seed_and_carries_window(tmp_path):
    r = recipe_from_config({"n_models": 2, "first_seed": 5, "window": 28, "train_subset_size": 10, "epochs": 1})
    write_json(tmp_path / "recipe.json", r.to_dict())
    job = seeds_job(tmp_path / "recipe.json", "seed006", image_size=32)
    assert job.seed == 6 and job.record == {"model": "seed006", "seed": 6, "window": 28}
    assert job.metadata["test_time"] == window_test_time(r.train.augment, r.model.num_classes, 32)
    with pytest.raises(ValueError, match="seed 9 is not one of the recipe's seeds"):
        seeds_job(tmp_path / "recipe.json", "seed009")


def test_load_train_subset_and_train_job_write_checkpoints_and_log(tmp_path, synthetic):
    x, y = synthetic(64, size=16, seed=0)
    np.savez(tmp_path / "arrays.npz", train_images=x, train_labels=y)
    np.save(tmp_path / "idx.npy", np.arange(0, 64, 2))
    images, labels = load_train_subset(tmp_path / "arrays.npz", tmp_path / "idx.npy")
    assert np.array_equal(images, x[::2]) and np.array_equal(labels, y[::2])
    job = TrainJob(
        "tiny",
        ResNetPreactConfig(depth=8, base_channels=4),
        TrainConfig(epochs=1, batch_size=16),
        1,
        metadata={"model_name": "tiny"},
        record={"model": "tiny"},
    )
    res = train_job(
        job,
        images,
        labels,
        out_dir=tmp_path / "o",
        log_out=tmp_path / "train_log.csv",
        state_dir=tmp_path / "s",
        num_checkpoints=1,
        device="cpu",
        threads=1,
    )
    assert len(res.checkpoints) == 1 and len(res.history) == 1
    assert (tmp_path / "train_log.csv").is_file() and not (tmp_path / "o" / LOG_NAME).exists()
    np.savez(tmp_path / "arrays.npz", train_images=x, train_labels=y, test_images=x[:10], test_labels=y[:10])
    np.save(tmp_path / "v4.npy", x[10:15].transpose(0, 2, 3, 1))
    np.save(tmp_path / "v4_labels.npy", y[10:15])
    files = {"images_v4": tmp_path / "v4.npy", "labels_v4": tmp_path / "v4_labels.npy"}
    kw = {"subset_size": 5, "subset_seed": 1, "test_sets": ["cifar10_test", "cifar10_1_v4"], "files": files}
    sets = load_test_sets(tmp_path / "arrays.npz", tmp_path / "idx.npy", study="search", **kw)
    assert list(sets) == ["cifar10_test", "cifar10_train_subset", "cifar10_1_v4"]
    assert len(sets["cifar10_train_subset"][1]) == 5 and np.array_equal(sets["cifar10_1_v4"][0], x[10:15])
    seeds_sets = load_test_sets(tmp_path / "arrays.npz", tmp_path / "idx.npy", study="seeds", **kw)
    assert np.array_equal(seeds_sets["cifar10_train_subset"][0], images)
    preds = predict_job("tiny", res.checkpoints, sets, config={"model": "tiny"}, batch_size=8, device="cpu")
    assert preds["cifar10_1_v4"].model_names == ("tiny@e001",) and preds["cifar10_test"].num_examples == 10
    paths = [tmp_path / "p" / f"{t}.npz" for t in sets]
    paths[0].parent.mkdir()
    save_per_test_set(paths, preds)
    assert np.array_equal(load_predictions(paths[1]).predictions, preds["cifar10_train_subset"].predictions)
    rec = job.config_json(len(labels))
    assert list(rec) == ["model", "train_subset_size", "model_config", "train_config"]
    assert rec["train_subset_size"] == 32 and json.loads(json.dumps(rec))["train_config"]["epochs"] == 1


def test_train_group_folders_writes_each_models_files(tmp_path, synthetic):
    """The fused-group rules' block: two jobs trained as one, each folder with its checkpoint,
    ``log.csv`` and ``config.json`` (the job's record with the training subset's size)."""
    images, labels = synthetic(32, size=16, seed=1)
    net, cfg = ResNetPreactConfig(depth=8, base_channels=4), TrainConfig(epochs=1, batch_size=16)
    jobs = [TrainJob(f"g{i}", net, cfg, i, metadata={"model_name": f"g{i}"}, record={"model": f"g{i}"}) for i in (0, 1)]
    folders = [tmp_path / "models" / j.name for j in jobs]
    results = train_group_folders(
        jobs,
        images,
        labels,
        folders,
        study={"num_checkpoints": 1, "device": "cpu"},
        state_dirs=[tmp_path / "state" / j.name for j in jobs],
        jobs_per_gpu=None,
        threads=1,
        cap=None,
        log=logging.getLogger("test"),
    )
    assert [len(r.checkpoints) for r in results] == [1, 1]
    for job, folder in zip(jobs, folders, strict=True):
        assert (folder / "log.csv").is_file() and not (folder / LOG_NAME).exists()
        assert json.loads((folder / "config.json").read_text()) == job.config_json(32)
