"""The ImageNet path of Werpachowski et al. (2019), Sec. 5.2, on generated images
(random weights, no downloads)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torchvision import transforms

from holdout.adversarial.imagenet import study as inet
from holdout.adversarial.stats import pairwise_test, t_statistic
from holdout.adversarial.translation import (
    ATTACKS,
    CanvasError,
    centre_origin,
    translation_attacks,
)


def _tiny_net():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, stride=2),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(4, 3),
    )


def test_canvas_and_window_are_the_standard_preprocessing(tiny_imagenet):
    ds = inet.image_folder(tiny_imagenet["val"], 40, pretrained=False)
    canvas, _ = ds[1]  # a 64 x 45 portrait image: 40 wide, int(64 * 40 / 45) = 56 high
    assert canvas.shape == (3, 56, 40)
    top, left = centre_origin(tuple(canvas.shape[1:]), (32, 32))
    standard = transforms.Compose(
        [
            transforms.Resize(40),
            transforms.CenterCrop(32),
            transforms.ToTensor(),
            transforms.Normalize(inet.IMAGENET_MEAN, inet.IMAGENET_STD),
        ]
    )
    from PIL import Image

    img = Image.open(ds.samples[1][0]).convert("RGB")
    torch.testing.assert_close(canvas[:, top : top + 32, left : left + 32], standard(img))


def test_folder_checks(tiny_imagenet, tmp_path):
    with pytest.raises(FileNotFoundError, match="adversarial_imagenet: ImageNet folder .* does not exist"):
        inet.image_folder(tmp_path / "missing", 256, pretrained=False)
    with pytest.raises(ValueError, match="1000 ImageNet classes as WordNet-id folders.*found 3"):
        inet.image_folder(tiny_imagenet["val"], 256, pretrained=True)
    with pytest.raises(ValueError, match="no weights 'IMAGENET9'"):
        inet.build_model("resnet18", "IMAGENET9", 0)
    with pytest.raises(ValueError, match="not a torchvision model"):
        inet.build_model("resnet_nope", "random", 0)


def test_sample_indices():
    s = inet.sample_indices(100, 30, 0)
    assert len(set(s)) == 30 and np.all(np.diff(s) > 0) and s.max() < 100
    assert np.array_equal(s, inet.sample_indices(100, 30, 0))
    assert np.array_equal(inet.sample_indices(10, None, 0), np.arange(10))
    assert np.array_equal(inet.sample_indices(10, 50, 0), np.arange(10))


def test_run_study_matches_one_batch_and_refuses_a_small_canvas(tiny_imagenet):
    ds = inet.image_folder(tiny_imagenet["train"], 28, pretrained=False)
    idx = inet.sample_indices(len(ds), 7, 3)
    net = _tiny_net()
    res = inet.run_study(net, ds, idx, window=16, eps=2, chunk_size=3, batch_size=50, seed=5)
    canv = [ds[int(i)][0] for i in idx]
    labels = [ds[int(i)][1] for i in idx]
    ref = translation_attacks(net, canv, labels, window=(16, 16), eps=2, seed=5, indices=idx)
    assert np.array_equal(res.indices, idx)
    np.testing.assert_array_equal(res.losses, ref.losses)
    np.testing.assert_array_equal(res.forward_passes, ref.forward_passes)
    for a in ATTACKS:
        np.testing.assert_array_equal(res.outcomes[a].offsets, ref.outcomes[a].offsets)
        np.testing.assert_array_equal(res.outcomes[a].densities, ref.outcomes[a].densities)
    paths = inet.image_paths(ds, tiny_imagenet["train"], res.indices)
    assert paths[0] == str(Path(ds.samples[int(idx[0])][0]).relative_to(tiny_imagenet["train"]))
    frame = inet.result_frame(res, paths)
    assert len(frame) == 7 and {"loss", "strongest_density", "random2_v_col"} <= set(frame.columns)
    assert inet.describe_result(res).startswith(f"test error {res.losses.mean():.4f}; ")
    with pytest.raises(CanvasError, match="largest eps this canvas allows is 2"):
        inet.run_study(net, ds, idx, window=16, eps=3)


def test_figure5_table_is_the_pairwise_test_on_prefixes():
    rng = np.random.default_rng(0)
    n = 400
    loss = (rng.random(n) < 0.3).astype(float)
    df = pd.DataFrame({"loss": loss, "forward_passes": 9})
    for a in ATTACKS:
        adv = np.maximum(loss, rng.random(n) < 0.2).astype(float)
        dens = np.where(adv == 1, 1 / (1 + rng.integers(1, 6, n)), np.nan)
        if a not in ("strongest", "nearest"):
            dens = np.where(adv == 1, 1 / (1 + rng.integers(0, 6, n) / 8), np.nan)
        df[f"{a}_adv_loss"], df[f"{a}_density"] = adv, dens
    t = inet.figure5_table(df, [50, 100, 10_000], seed=1)
    assert sorted(set(t["sample_size"])) == [50, 100, 400]
    assert set(t["attack"]) == set(ATTACKS)
    perm = np.random.default_rng([1, 0xF5]).permutation(n)
    sub = df.iloc[perm[:100]]
    row = t[(t["sample_size"] == 100) & (t["attack"] == "random")].iloc[0]
    ref = pairwise_test(t_statistic(sub["loss"], sub["random_adv_loss"], sub["random_density"]), 2.0)
    assert row["p_value"] == ref.p_value and row["U"] == 2.0
    assert t[t["attack"] == "strongest"]["U"].eq(1.5).all()
    full = t[(t["sample_size"] == 400) & (t["attack"] == "strongest")].iloc[0]
    assert full["R_S"] == pytest.approx(loss.mean())
    assert full["R_S_lo"] < full["R_S"] < full["R_S_hi"]
    both = inet.figure5_tables({"train": df, "val": df.iloc[:200]}, "m", [50, 100, 10_000], seed=1)
    assert list(both.columns[:2]) == ["model", "split"] and set(both["model"]) == {"m"}
    assert both[both.split == "train"].drop(columns=["model", "split"]).reset_index(drop=True).equals(t)
    assert sorted(set(both[both.split == "val"].sample_size)) == [50, 100, 200]
    s = inet.summary_table({("m", "val"): df})
    assert len(s) == 4 and s["m"].eq(400).all()


def test_attack_split_is_run_study_on_the_seeded_sample(tiny_imagenet, monkeypatch):
    """attack_split: the rule's per-image table equals run_study + result_frame on sample_indices."""
    monkeypatch.setattr(inet, "build_model", lambda name, weights, seed: _tiny_net())
    cfg = {"weights": "random", "resize": 28, "seed": 5, "eps": 2, "norm": "max", "window": 16}
    cfg |= {"attacks": list(ATTACKS), "batch_size": 50, "chunk_size": 3, "num_workers": 0}
    folder = tiny_imagenet["train"]
    frame = inet.attack_split("tiny", folder, "train", cfg, 7, torch.device("cpu"))
    ds = inet.image_folder(folder, 28, pretrained=False)
    idx = inet.sample_indices(len(ds), 7, 5)
    res = inet.run_study(_tiny_net(), ds, idx, window=16, eps=2, chunk_size=3, batch_size=50, seed=5)
    pd.testing.assert_frame_equal(frame, inet.result_frame(res, inet.image_paths(ds, folder, res.indices)))
