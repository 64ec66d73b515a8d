"""The similarity stage end to end with the offline config on the real mirror: Mania et al. (2019)
Fig. 1a, Fig. 4, covering numbers and setting.json for ImageNet, the Table-1-like rows for the
CIFAR-10.1 sets (checked against direct calls of holdout.bounds), and the bounds study fed with
the measured setting."""

from __future__ import annotations

import json

import golden
import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

from holdout.bounds import core as B
from holdout.predictions import load_predictions
from holdout.similarity.core import (
    difficulty_distribution,
    pairwise_similarity,
    upper_pairs,
)

pytestmark = pytest.mark.slow  # starts Snakemake

ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
FIGS = ["fig1a_pairs", "pairs_scatter", "fig4_difficulty", "covering_numbers"]
CSVS = ["pairs.csv", "models.csv", "covering_numbers.csv", "difficulty.csv"]


def _config(tmp_path, shared_data):
    cfg = tmp_path / "test.yaml"
    small = load_small_config("similarity")  # .test/config-similarity/config.yaml
    small["data"]["mirror"] = str(shared_data)  # absolute: the run is in a temporary folder
    cfg.write_text(yaml.safe_dump(small))
    return cfg


def test_similarity_stage_offline(tmp_path, repo, shared_data, workflow_runner):
    cfg = _config(tmp_path, shared_data)
    sets = ["imagenet_val", "cifar10_1_v4", "cifar10_1_v6"]
    targets = [f"results/similarity/{s}/{f}.{ext}" for s in sets for f in FIGS for ext in ("png", "pdf")]
    targets += [
        "results/similarity/imagenet/setting.json",
        "results/similarity/table1.csv",
        "results/similarity/table1.md",
        "results/bounds/figure1b.csv",
    ]
    workflow_runner(tmp_path, *targets, configfiles=[repo / "config" / "offline.yaml", cfg], extra=["--"])
    res = tmp_path / "results" / "similarity"
    for s in sets:
        for name in CSVS:
            assert len(pd.read_csv(res / s / name)) > 0

    # ImageNet: Mania Sec. 5.1 / Fig. 1a (75.6%; 0.85 vs 0.62) on the 64 conv. models
    setting = json.loads((res / "imagenet" / "setting.json").read_text())
    assert (setting["n"], setting["num_models"]) == (50_000, 64)
    assert f"{100 * setting['mean_accuracy']:.1f}" == "75.6"
    assert setting["mean_similarity"] == pytest.approx(golden.IMAGENET_VAL_MEAN_SIMILARITY, abs=1e-4)
    assert setting["mean_independent_similarity"] == pytest.approx(
        golden.IMAGENET_VAL_MEAN_INDEPENDENT_SIMILARITY, abs=1e-4
    )
    pairs = pd.read_csv(res / "imagenet_val" / "pairs.csv")
    assert len(pairs) == 2016 and not pairs["model_i"].str.startswith("fv_").any()
    assert pairs["similarity"].mean() == pytest.approx(setting["mean_similarity"], abs=1e-6)
    diff = pd.read_csv(res / "imagenet_val" / "difficulty.csv")
    assert len(diff) == 65 and diff["num_points_misclassified_by_exactly_m"].sum() == 50_000
    cover = pd.read_csv(res / "imagenet_val" / "covering_numbers.csv")
    assert len(cover) == 41 and cover["covering_number_upper_bound"].between(1, 64).all()
    assert cover["covering_number_upper_bound"].iloc[-1] == 64  # eta = 1: no two models agree everywhere

    # the bounds study ran on the measured setting
    fig1b = pd.read_csv(tmp_path / "results" / "bounds" / "figure1b.csv")
    assert set(fig1b["setting_source"]) != {"config"}
    bsetting = json.loads((tmp_path / "results" / "bounds" / "setting.json").read_text())
    assert bsetting["similarity"] == pytest.approx(setting["mean_similarity"])
    assert bsetting["mean_accuracy"] == pytest.approx(setting["mean_accuracy"])

    # CIFAR-10.1: the Table-1-like rows equal direct calls of holdout.bounds
    table = pd.read_csv(res / "table1.csv")
    # the original test set too: the mirror has the CIFAR-10 archive (offline.yaml names its md5)
    assert set(table["test_set"]) == {"cifar10_1_v4", "cifar10_1_v6", "cifar10_original"}
    orig = table[(table["test_set"] == "cifar10_original") & (table["models"] == "all 30 models")]
    assert len(orig) == 2 and (orig["n"] == 10_000).all() and (orig["num_models"] == 30).all()
    preds_orig = load_predictions(tmp_path / "resources" / "predictions" / "cifar10_original.npz")
    assert orig["mean_accuracy"].iloc[0] == pytest.approx(float(preds_orig.accuracies().mean()))
    row = table[
        (table["test_set"] == "cifar10_1_v4") & (table["models"] == "all 30 models") & (table["eps"] == 0.02)
    ].iloc[0]
    preds = load_predictions(tmp_path / "resources" / "predictions" / "cifar10_1_v4.npz")
    e = preds.errors()
    mean_acc = float(preds.accuracies().mean())
    mean_sim = float(upper_pairs(pairwise_similarity(e)).mean())
    assert (row["n"], row["num_models"]) == (2021, 30)
    assert row["mean_accuracy"] == pytest.approx(mean_acc) and row["mean_similarity"] == pytest.approx(mean_sim)
    err = 1 - mean_acc
    assert row["k_union"] == B.union_bound_k(2021, err, 0.02, 0.05)
    assert row["k_similarity"] == B.similarity_bound_k(2021, err, mean_sim, 0.02, 0.05)
    assert row["k_naive_bayes"] == B.naive_bayes_bound_k(2021, err, mean_sim, 0.02, 0.05)
    top = table[(table["test_set"] == "cifar10_1_v6") & (table["models"] == "20 most accurate")]
    assert len(top) == 2 and (top["num_models"] == 20).all()
    acc6 = pd.read_csv(res / "cifar10_1_v6" / "models.csv").set_index("model")["accuracy"]
    assert set(top.iloc[0]["model_names"].split()) == set(acc6.sort_values(ascending=False).index[:20])
    v6 = load_predictions(tmp_path / "resources" / "predictions" / "cifar10_1_v6.npz")
    np.testing.assert_allclose(
        pd.read_csv(res / "cifar10_1_v6" / "difficulty.csv")["fraction_misclassified_by_at_most_m"],
        difficulty_distribution(v6.errors()),
    )
    md = (res / "table1.md").read_text()
    assert "| cifar10_1_v4 | all 30 models |" in md and "n/a (k_UB = 0)" in md

    # the default target plans every available set, cifar10_original included (archive in the mirror)
    dry = workflow_runner(
        tmp_path, configfiles=[repo / "config" / "offline.yaml", cfg], extra=["-n", "--forceall", "--"]
    )
    planned = dry.stdout + dry.stderr
    assert (shared_data / ARCHIVE).is_file()
    for s in ["imagenet_val", "imagenetv2_b33", "cifar10_1_v4", "cifar10_1_v6", "cifar10_original"]:
        assert f"results/similarity/{s}/summary.json" in planned
