"""The ImageNet study through the Snakefile (enabled, tiny config, random weights)."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

pytestmark = pytest.mark.slow  # starts Snakemake


def test_workflow_imagenet_study(tiny_imagenet, tmp_path, workflow_runner):
    # .test/config-adversarial_imagenet/config.yaml with the generated ImageFolder look-alike overlaid
    cfg = load_small_config("adversarial_imagenet")
    cfg["adversarial_imagenet"]["val_dir"] = str(tiny_imagenet["val"])
    cfg["adversarial_imagenet"]["train_dir"] = str(tiny_imagenet["train"])
    cf = tmp_path / "tiny.yaml"
    cf.write_text(yaml.safe_dump(cfg))
    d = "results/adversarial_imagenet"
    workflow_runner(tmp_path, f"{d}/summary.csv", f"{d}/figure5_resnet18.png", configfiles=[cf], extra=["--"])
    train = pd.read_csv(tmp_path / d / "resnet18/train/per_image.csv")
    val = pd.read_csv(tmp_path / d / "resnet18/val/per_image.csv")
    assert len(train) == 5 and len(val) == 6
    assert train["forward_passes"].between(9, 49).all()
    f5 = pd.read_csv(tmp_path / d / "figure5_resnet18.csv")
    assert set(f5["split"]) == {"train", "val"}
    assert sorted(set(f5[f5["split"] == "train"]["sample_size"])) == [2, 4, 5]
    assert f5["p_value"].between(0, 1).all()
    assert (tmp_path / d / "figure5_resnet18.pdf").stat().st_size > 0
    summary = pd.read_csv(tmp_path / d / "summary.csv")
    assert len(summary) == 8 and set(summary["attack"]) == {"strongest", "nearest", "random", "random2"}
    assert (tmp_path / "logs/adversarial_imagenet/attacks_resnet18_val.log").read_text().count("forward passes")
