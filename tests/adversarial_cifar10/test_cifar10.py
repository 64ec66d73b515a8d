"""The adversarial overfitting test on our own CIFAR-10 models (holdout.adversarial.cifar10):
the canvas check, the settings, and a tiny end-to-end run (two models trained here, a few images)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from holdout.adversarial.cifar10 import attack as ac
from holdout.adversarial.cifar10 import plots
from holdout.adversarial.stats import n_model_test, pairwise_test, t_statistic
from holdout.adversarial.translation import CanvasError
from holdout.plotting import save_figure
from holdout.training import (
    AugmentConfig,
    ResNetPreactConfig,
    RunSettings,
    TrainConfig,
    load_checkpoint,
    predict,
    train,
)

W, EPS = 20, 2


# ---------------------------------------------------------------------------
# the canvas check (16.md §1): every window within 3 eps inside the 32 x 32 image
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("window", "largest"), [(26, 1), (20, 2), (14, 3), (8, 4), (2, 5)])
def test_canvas_check_allows_exactly_floor_margin_over_3(window, largest):
    origin = ac.check_window(window, largest)
    margin = (32 - window) // 2
    assert origin == (margin, margin)
    assert 3 * largest <= margin < 3 * (largest + 1)
    with pytest.raises(CanvasError, match=f"the largest eps this canvas allows is {largest}"):
        ac.check_window(window, largest + 1)
    assert ac.resolve_window_eps(window, None) == (window, largest)


def test_canvas_check_names_the_key_and_the_need():
    with pytest.raises(CanvasError, match=r"adversarial_cifar10: window 20.*leaves 6 pixel.*eps=3 needs 9"):
        ac.check_window(20, 3)
    # eps is floored (V_eps holds integer translations): 2.9 needs what 2 needs
    ac.check_window(20, 2.9)


def test_canvas_check_refuses_windows_without_margin():
    for window in (27, 30, 32):
        with pytest.raises(CanvasError, match="allows no eps >= 1"):
            ac.resolve_window_eps(window, None)
    with pytest.raises(ValueError, match="window must be between 1 and 32"):
        ac.check_window(33, 1)
    with pytest.raises(ValueError, match="window is null"):
        ac.resolve_window_eps(None, None, None)
    assert ac.resolve_window_eps(None, None, 20) == (20, 2)


def test_device_errors_name_this_studys_key():
    """A bad ``adversarial_cifar10.device`` is refused naming that key (the study used to resolve its
    device with the ImageNet study's function, whose errors named ``adversarial_imagenet.device``)."""
    with pytest.raises(ValueError, match=r"^adversarial_cifar10\.device: 'no-such-device'"):
        ac.resolve_device("no-such-device")
    assert ac.resolve_device("cpu") == torch.device("cpu")


def test_recipe_and_subset_checks(tmp_path):
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps({"window": 24, "seeds": [0, 1], "train_subset_size": 10}))
    recipe = ac.read_recipe(path)
    ac.check_recipe(recipe, 24, [0, 1])
    with pytest.raises(ValueError, match="adversarial_cifar10.window = 20 .* set adversarial_cifar10.window to 24"):
        ac.check_recipe(recipe, 20, [0])
    with pytest.raises(ValueError, match=r"seeds \[5\] are not among"):
        ac.check_recipe(recipe, 24, [0, 5])
    (tmp_path / "bad.json").write_text(json.dumps({"window": 24}))
    with pytest.raises(ValueError, match="lacks"):
        ac.read_recipe(tmp_path / "bad.json")
    np.save(tmp_path / "s.npy", np.array([3, 1, 3]))
    with pytest.raises(ValueError, match="distinct"):
        ac.read_train_subset(tmp_path / "s.npy", 10)
    np.save(tmp_path / "s.npy", np.array([3, 1, 9]))
    assert ac.read_train_subset(tmp_path / "s.npy", 10).dtype == np.int64


# ---------------------------------------------------------------------------
# a tiny end-to-end run: two models, a few images
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Two tiny ResNet-preact models trained on the centre 20 x 20 windows of 48 random images
    (labels random: they can only be memorised), the seeds study's file layout, 16 test images."""
    root = tmp_path_factory.mktemp("seeds")
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (64, 32, 32, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, 64)
    subset = np.arange(48)
    o = (32 - W) // 2
    windows = np.ascontiguousarray(images[subset, o : o + W, o : o + W].transpose(0, 3, 1, 2))
    mc = ResNetPreactConfig(depth=8, base_channels=4)
    tc = TrainConfig(epochs=3, batch_size=16, milestones=(2,), augment=AugmentConfig(random_crop=False))
    for seed in (0, 1):
        train(
            mc,
            tc,
            windows,
            labels[subset],
            RunSettings(
                out_dir=root / f"models/seed{seed:03d}",
                state_dir=root / f"state{seed}",
                seed=seed,
                num_checkpoints=1,
                device="cpu",
                threads=1,
            ),
        )
    np.save(root / "train_subset.npy", subset.astype(np.int64))
    (root / "recipe.json").write_text(json.dumps({"window": W, "seeds": [0, 1], "train_subset_size": 48}))
    return root, images, labels, subset


def _attack(root, images, labels, subset, seed):
    model, meta = load_checkpoint(root / f"models/seed{seed:03d}/checkpoint_01.pt")
    net = ac.windowed_classifier(model, meta["test_time"]["mean"], meta["test_time"]["std"], torch.device("cpu"))
    frames = {}
    for split, idx in (("train", subset[:12]), ("test", np.arange(48, 64))):
        res = ac.attack_model(
            net, images[idx], labels[idx], idx, window=W, eps=EPS, seed=seed, batch_size=100, chunk_size=5
        )
        frames[ac.model_name(seed), split] = ac.per_image_frame(res)
    return model, meta, frames


@pytest.mark.slow  # trains two tiny models (~15 s on 2 shared cores)
def test_tiny_end_to_end(tiny, tmp_path):
    root, images, labels, subset = tiny
    recipe = ac.read_recipe(root / "recipe.json")
    ac.check_recipe(recipe, W, [0, 1])
    frames = {}
    for seed in (0, 1):
        model, meta, f = _attack(root, images, labels, subset, seed)
        frames.update(f)
        # the loss on the original image is the model's error on the centre window, as predict() sees it
        o = (32 - W) // 2
        for df in f.values():
            idx = df["index"].to_numpy()
            win = np.ascontiguousarray(images[idx, o : o + W, o : o + W].transpose(0, 3, 1, 2))
            pred, _ = predict(
                model, win, mean=meta["test_time"]["mean"], std=meta["test_time"]["std"], channels_last=False
            )
            np.testing.assert_array_equal(df["loss"].to_numpy(), (pred != labels[idx]).astype(float))
            # every correctly classified image costs at least the centre and its |V_2| = 24 translations
            assert (df["forward_passes"] >= 25).all() and (df["forward_passes"] <= (6 * EPS + 1) ** 2).all()
    sizes = [4, 8, 100]
    pv = ac.pvalue_table(frames, sizes, seed=0)
    # the OUTPUT CONTRACT of results/adversarial_cifar10/pvalues.csv
    assert list(pv.columns[:5]) == ["model", "set", "aeg", "sample_size", "p_value"]
    assert set(pv["model"]) == {"seed000", "seed001"} and set(pv["set"]) == {"train", "test"}
    assert set(pv["aeg"]) == {"strongest", "nearest", "random", "random2"}
    assert set(pv[pv.set == "train"].sample_size) == {4, 8, 12}  # 100 > 12 dropped, the whole sample added
    assert set(pv[pv.set == "test"].sample_size) == {4, 8, 16}
    assert pv["p_value"].between(0, 1).all()
    # the whole-sample p-value is the pairwise test (6)-(7) of that model's T_i
    df = frames["seed001", "test"]
    t = t_statistic(df["loss"], df["strongest_adv_loss"], df["strongest_density"])
    row = pv[(pv.model == "seed001") & (pv.set == "test") & (pv.aeg == "strongest") & (pv.sample_size == 16)]
    assert row["p_value"].item() == pytest.approx(pairwise_test(t, 1.5, (-1.0, 0.5)).p_value, rel=1e-12)

    nm = ac.n_model_table(frames, sizes, seed=0)
    assert (nm["n_models"] == 2).all() and nm["p_value"].between(0, 1).all()
    t2 = np.stack(
        [
            t_statistic(
                frames[m, "test"]["loss"], frames[m, "test"]["random_adv_loss"], frames[m, "test"]["random_density"]
            )
            for m in ("seed000", "seed001")
        ]
    )
    full = nm[(nm.set == "test") & (nm.aeg == "random") & (nm.sample_size == 16)]
    assert full["p_value"].item() == pytest.approx(n_model_test(t2, 2.0).p_value, rel=1e-12)
    # one model: the N-model test is the pairwise test
    one = ac.n_model_table({k: v for k, v in frames.items() if k[0] == "seed000"}, sizes, seed=0)
    mine = pv[pv.model == "seed000"].merge(one, on=["set", "aeg", "sample_size"], suffixes=("", "_n"))
    np.testing.assert_allclose(mine["p_value"], mine["p_value_n"], rtol=1e-12)

    summary = ac.rejection_summary(pv, nm, alpha=0.05)
    assert len(summary) == 8 and (summary["n_models"] == 2).all()
    md = ac.pvalue_markdown(pv, summary)
    assert "| seed000 | train | 12 |" in md and "N-model p" in md
    # the summary rule's library calls: per_image/<model>_<set>.csv back into the same three tables
    (tmp_path / "per_image").mkdir()
    for (m, split), df in frames.items():
        df.to_csv(tmp_path / "per_image" / f"{m}_{split}.csv", index=False)
    read = ac.read_per_image(sorted((tmp_path / "per_image").glob("*.csv")))
    assert set(read) == set(frames)
    cfg = {"seed": 0, "sample_sizes": sizes, "confidence_delta": 0.025, "alpha": 0.05}
    pv2, nm2, summary2 = ac.summary_tables({k: read[k] for k in frames}, cfg)
    pd.testing.assert_frame_equal(pv2, pv)
    pd.testing.assert_frame_equal(nm2, nm)
    pd.testing.assert_frame_equal(summary2, summary)
    for name, (fig, data) in {
        "figure5": plots.plot_figure5(pv, nm, "seed000"),
        "error": plots.plot_pvalue_vs_error(pv),
    }.items():
        save_figure(fig, tmp_path / f"{name}.png", data=data)
        assert (tmp_path / f"{name}.png").stat().st_size > 1000 and (tmp_path / f"{name}.pdf").is_file()
        assert len(pd.read_csv(tmp_path / f"{name}.csv")) == len(data) > 0


@pytest.mark.slow  # trains two tiny models (~15 s on 2 shared cores)
def test_random_aegs_do_not_depend_on_chunking(tiny):
    root, images, labels, subset = tiny
    model, meta = load_checkpoint(root / "models/seed000/checkpoint_01.pt")
    net = ac.windowed_classifier(model, meta["test_time"]["mean"], meta["test_time"]["std"], torch.device("cpu"))
    idx = subset[:10]
    a = ac.attack_model(net, images[idx], labels[idx], idx, window=W, eps=EPS, seed=3, chunk_size=3, batch_size=7)
    b = ac.attack_model(net, images[idx], labels[idx], idx, window=W, eps=EPS, seed=3, chunk_size=10)
    for name in a.outcomes:
        np.testing.assert_array_equal(a.outcomes[name].offsets, b.outcomes[name].offsets)
        np.testing.assert_array_equal(a.outcomes[name].adv_losses, b.outcomes[name].adv_losses)
        np.testing.assert_array_equal(
            np.nan_to_num(a.outcomes[name].densities, nan=-1), np.nan_to_num(b.outcomes[name].densities, nan=-1)
        )


@pytest.mark.slow  # trains two tiny models (~15 s on 2 shared cores)
def test_attack_model_refuses_bad_inputs(tiny):
    root, images, labels, _subset = tiny
    model, meta = load_checkpoint(root / "models/seed000/checkpoint_01.pt")
    net = ac.windowed_classifier(model, meta["test_time"]["mean"], meta["test_time"]["std"], torch.device("cpu"))
    with pytest.raises(CanvasError, match="largest eps this canvas allows is 2"):
        ac.attack_model(net, images[:2], labels[:2], np.arange(2), window=W, eps=3)
    with pytest.raises(ValueError, match="uint8 N x 32 x 32 x 3"):
        ac.attack_model(net, images[:2].astype(np.float32), labels[:2], np.arange(2), window=W, eps=EPS)


@pytest.mark.slow  # trains two tiny models (~15 s on 2 shared cores)
def test_attack_seed_model_samples_seeds_and_checks_the_subset(tiny):
    """attack_seed_model: the rule's per-set tables equal attack_model on the seeded samples."""
    from types import SimpleNamespace

    root, images, labels, subset = tiny
    data = SimpleNamespace(train_images=images, train_labels=labels, test_images=images[48:], test_labels=labels[48:])
    cfg = {"norm": "max", "attacks": ["nearest", "random"], "seed": 4, "batch_size": 100, "chunk_size": 5}
    cfg |= {"train_sample_size": 6, "test_sample_size": None, "device": "cpu"}
    ckpt = root / "models/seed001/checkpoint_01.pt"
    kw = {"model": "seed001", "window": W, "eps": EPS, "device": torch.device("cpu")}
    frames = ac.attack_seed_model(ckpt, data, subset, cfg, **kw)
    assert list(frames) == list(ac.SETS) and len(frames["train"]) == 6 and len(frames["test"]) == 16
    model, meta = load_checkpoint(ckpt)
    net = ac.windowed_classifier(model, meta["test_time"]["mean"], meta["test_time"]["std"], torch.device("cpu"))
    idx = subset[ac.sample_indices(48, 6, 4)]
    res = ac.attack_model(net, images[idx], labels[idx], idx, window=W, eps=EPS, attacks=cfg["attacks"], seed=5)
    pd.testing.assert_frame_equal(frames["train"], ac.per_image_frame(res))
    with pytest.raises(ValueError, match="trained on 48 images, s.npy lists 10"):
        ac.attack_seed_model(ckpt, data, subset[:10], cfg, subset_path="s.npy", **kw)
