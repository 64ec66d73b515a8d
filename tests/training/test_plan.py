"""``holdout plan``: parameter counts and FLOPs pinned, recipes pinned against their sources, and
the paper config's jobs at the published architectures (counted once per architecture on the CPU)."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

pytest.importorskip("torch")

from holdout.audit.cli import main  # noqa: E402
from holdout.training.cost import count_network  # noqa: E402
from holdout.training.models import ResNetPreactConfig  # noqa: E402
from holdout.training.plan import architecture_key, count_model, load_merged_config, plan_jobs  # noqa: E402
from holdout.training.recipes import PAPER_RETRAINING  # noqa: E402
from holdout.training.registry import ModelSpec, build_network  # noqa: E402

#: Trainable parameters (exact, our builds) and forward FLOPs per 32 x 32 image (torch.utils.flop_counter,
#: 2 per multiply-add). Published: WRN-28-10 36.5M (Zagoruyko & Komodakis Table 4), shake-shake 26
#: 2x64d 11.7M (Gastaldi Table 1), vgg16_keras 14,991,946 (Keras summary of cifar10vgg.py),
#: ResNet-preact-110 1.7M (He et al. 2016b); VGG-15-BN-64 has no published count.
PINNED = {
    "resnet_v2_basic_110": (1_730_522, 506_299_648),
    "resnet_v2_bottleneck_164": (1_619_290, 338_072_576),
    "wide_resnet_28_10": (36_479_194, 10_486_657_536),
    "shake_shake_64d_cutout": (11_709_514, 3_484_816_384),
    "vgg_15_BN_64": (14_728_266, 626_403_328),
    "vgg16_keras": (14_991_946, 626_927_616),
}


@pytest.mark.parametrize("name", PINNED)
def test_counts_pinned(name):
    assert count_model(ModelSpec(name)) == PINNED[name]


def test_resnet_preact_110_bottleneck_of_the_search_pinned():
    # Mania et al. Table 2 at ResNet-110: bottleneck n = 12 (9n + 2), 16 base channels
    assert count_model(ResNetPreactConfig(depth=110, block_type="bottleneck", base_channels=16)) == (
        1_088_218,
        227_775_488,
    )


@pytest.mark.parametrize(
    ("config", "size"),
    [
        (ResNetPreactConfig(depth=20, base_channels=8), 32),
        (ResNetPreactConfig(depth=29, block_type="bottleneck", base_channels=8), 24),
    ],
)
def test_counts_equal_torch_flop_counter_and_draw_no_random_number(config, size):
    """count_network's hooks against torch.utils.flop_counter on the meta device (an independent
    count); the CPU build leaves torch's global RNG where it was."""
    import torch
    from torch import nn
    from torch.utils.flop_counter import FlopCounterMode

    with torch.device("meta"):
        net = build_network(config).eval()
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        net(torch.empty(1, 3, size, size, device="meta"))
    params = sum(p.numel() for p in net.parameters())
    layers = sum(isinstance(m, nn.Conv2d | nn.Linear) for m in net.modules())
    state = torch.get_rng_state()
    assert count_network.__wrapped__(config, size) == (params, counter.get_total_flops(), layers)
    assert torch.equal(torch.get_rng_state(), state)


def test_activation_switches_change_no_count():
    """architecture_key drops remove_first_relu and preact_stage: they add no parameter, no FLOP."""
    for relu, stage in itertools.product((True, False), ((True, True, True), (True, False, False))):
        c = ResNetPreactConfig(
            depth=20, block_type="basic", base_channels=8, remove_first_relu=relu, preact_stage=stage
        )
        assert count_model(c) == count_model(architecture_key(c))


def test_recipes_pinned_against_their_sources():
    vgg = PAPER_RETRAINING["vgg_15_BN_64"].train  # hysts 1d76092 configs/vgg.json lines 21-33
    assert (
        vgg["base_lr"],
        vgg["weight_decay"],
        vgg["epochs"],
        vgg["milestones"],
        vgg["lr_decay"],
        vgg["batch_size"],
    ) == (
        0.1,
        1e-4,
        160,
        [80, 120],
        0.1,
        128,
    )
    wrn = PAPER_RETRAINING["wide_resnet_28_10"].train  # configs/wrn.json 10-22; README.md:97 batch 64
    assert (wrn["weight_decay"], wrn["epochs"], wrn["milestones"], wrn["lr_decay"], wrn["batch_size"]) == (
        5e-4,
        200,
        [60, 120, 160],
        0.2,
        64,
    )
    ss = PAPER_RETRAINING["shake_shake_64d_cutout"].train  # README.md:226, 250
    assert (ss["epochs"], ss["batch_size"], ss["base_lr"], ss["scheduler"], ss["augment"]) == (
        1800,
        64,
        0.1,
        "cosine",
        {"cutout": True, "cutout_size": 16},
    )
    keras = PAPER_RETRAINING["vgg16_keras"].train  # geifmany cifar10vgg.py 18, 148-152, 162-163, 174-176
    assert (keras["epochs"], keras["batch_size"], keras["base_lr"], keras["lr_decay"]) == (250, 128, 0.1, 0.5)
    assert keras["milestones"] == list(range(20, 250, 20)) and keras["weight_decay"] == 2 * 0.0005
    assert keras["weight_decay_scope"] == "keras_kernels" and keras["augment"]["crop_padding"] == round(0.1 * 32)
    assert (
        abs(keras["augment"]["mean"][0] * 255 - 120.707) < 0.01 and abs(keras["augment"]["std"][0] * 255 - 64.15) < 0.01
    )
    for recipe in PAPER_RETRAINING.values():
        assert recipe.overrides == {} and recipe.train["optimizer"] == "nesterov" and recipe.train["momentum"] == 0.9


@pytest.fixture(scope="module")
def paper_plan(repo):
    import os

    cwd = os.getcwd()
    os.chdir(repo)
    try:
        return pd.DataFrame(
            [r.__dict__ for r in plan_jobs(load_merged_config(["config/offline.yaml", "config/paper.yaml"]))]
        )
    finally:
        os.chdir(cwd)


@pytest.mark.slow  # 461 jobs, 28 distinct architectures counted: about 10 s
def test_paper_plan_trains_the_published_architectures(paper_plan):
    df = paper_plan
    assert df.groupby("study").size().to_dict() == {"search": 320, "seeds": 120, "retraining": 21}
    rt = df[df.study == "retraining"]
    for name in PINNED:
        if name in PAPER_RETRAINING:
            assert (rt[rt.model == name]["params"] == PINNED[name][0]).all(), name
    assert (rt.train_images >= 50_000).all() and (rt.gpus == 1).all()
    assert rt["source"].str.contains("1d76092|cifar10vgg.py").all()
    search = df[df.study == "search"]
    assert search.model.str.startswith("ResNet-preact-110").all() and (search.epochs == 200).all()
    assert (search.checkpoints == 10).all() and (search.train_images == 50_000).all()
    assert set(search.model.str.extract(r"(\d+) ch")[0].astype(int)) == {4, 8, 16, 32}
    assert (df.gpu_hours_projected > 0).all()


def test_plan_cli_prints_and_writes_csv(repo, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    out = tmp_path / "plan.csv"
    assert main(["plan", "--configfile", "config/offline.yaml", "config/gpu.yaml", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "PROJECTION, not measured" in text and "dual cutout counted twice" in text and "10-40 TFLOP/s" in text
    df = pd.read_csv(out)
    assert set(df.study) == {"search", "seeds", "retraining"} and (df[df.study == "search"].epochs == 60).all()
    assert main(["plan", "--configfile", "missing.yaml"]) == 2
    assert "missing.yaml not found" in capsys.readouterr().err
