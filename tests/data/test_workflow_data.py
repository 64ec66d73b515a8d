"""The data and cifar10_1 stages end to end with the offline config on the real mirror (one run),
and a corrupt mirror stopping the workflow."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import in_folder, load_small_config

from holdout.predictions import load_predictions

pytestmark = pytest.mark.slow  # starts Snakemake

ARCHIVE = "cifar-10/cifar-10-python.tar.gz"


C101 = ["new_test_accuracies.csv", "new_test_accuracies.md", "table5.csv", "table5.md"]
C101_ORIGINAL = [
    "table1.csv",
    "table1.md",
    "table4.csv",
    "table4.md",
    "linear_fit.csv",
    "linear_fit.md",
    "figure2.png",
    "figure2.pdf",
    "figure2.csv",
    "figure2_fit.csv",
]


def test_offline_data_and_cifar10_1_stages(tmp_path, repo, shared_data, workflow_runner):
    # .test/config-data/config.yaml with the mirror and the user set's paths made absolute (the run
    # is in a temporary folder; the file's paths are relative to its folder)
    small = load_small_config("data")
    small["data"]["mirror"] = str(shared_data)
    for entry in small["data"]["user_predictions"]:
        for key in ("predictions", "labels"):
            entry[key] = in_folder("data", entry[key])
    extra = tmp_path / "test.yaml"
    extra.write_text(yaml.safe_dump(small))
    sets = ["cifar10_1_v4", "cifar10_1_v6", "imagenet_val", "imagenetv2_b33", "user_example"]
    have_archive = (shared_data / ARCHIVE).is_file()
    if have_archive:
        sets.append("cifar10_original")
    targets = [f"resources/predictions/{s}.npz" for s in sets]
    targets += [f"results/cifar10_1/{n}" for n in C101 + (C101_ORIGINAL if have_archive else [])]
    proc = workflow_runner(tmp_path, *targets, configfiles=[repo / "config" / "offline.yaml", extra], extra=["--"])
    if not have_archive:
        warnings = [ln for ln in proc.stderr.splitlines() if "not in the mirror" in ln]
        assert len(warnings) == 1, proc.stderr[-3000:]
        assert ARCHIVE in warnings[0] and "cifar10_original" in warnings[0]
    expected = {
        "cifar10_1_v4": (30, 2021),
        "cifar10_1_v6": (30, 2000),
        "cifar10_original": (30, 10000),
        "imagenet_val": (67, 50000),
        "imagenetv2_b33": (67, 10000),
        "user_example": (3, 300),
    }
    for s in sets:
        p = load_predictions(tmp_path / f"resources/predictions/{s}.npz")
        assert (p.num_models, p.num_examples) == expected[s]
    # raw files keep the mirror's layout and bytes
    raw = tmp_path / "resources/raw/CIFAR-10.1/datasets/cifar10.1_v4_labels.npy"
    np.testing.assert_array_equal(np.load(raw), np.load(shared_data / "CIFAR-10.1/datasets/cifar10.1_v4_labels.npy"))
    assert not list((tmp_path / "resources").rglob("*partial*"))
    assert (tmp_path / "logs/data/convert_cifar10_1_v4.log").read_text().count("wrote") == 1
    # cifar10_1 stage: Recht et al. Table 1, shake_shake_64d_cutout 93.0 [91.8, 94.0] on v4
    res = tmp_path / "results/cifar10_1"
    acc = pd.read_csv(res / "new_test_accuracies.csv").set_index("model")
    assert len(acc) == 30
    row = acc.loc["shake_shake_64d_cutout"]
    assert [f"{row[c]:.1f}" for c in ("v4_accuracy", "v4_ci_low", "v4_ci_high")] == ["93.0", "91.8", "94.0"]
    table5_md = (res / "table5.md").read_text()
    assert "n = 2,021" in table5_md and "| shake_shake_64d_cutout |" in table5_md
    if have_archive:
        assert len(pd.read_csv(res / "table1.csv")) == 30
    else:
        assert "not available to this run" in table5_md
        assert not (res / "table1.csv").exists()


def test_corrupt_mirror_stops_the_workflow(tmp_path, repo, shared_data, workflow_runner):
    """A mirror file whose bytes differ from config's checksum fails the fetch job, with the
    file, both checksums and the fix in the log, and nothing lands in resources/raw."""
    mirror = tmp_path / "mirror"
    labels = mirror / "CIFAR-10.1/datasets/cifar10.1_v6_labels.npy"
    labels.parent.mkdir(parents=True)
    labels.write_bytes((shared_data / "CIFAR-10.1/datasets/cifar10.1_v6_labels.npy").read_bytes()[:-8])
    extra = tmp_path / "test.yaml"
    extra.write_text(yaml.safe_dump({"data": {"mirror": str(mirror)}}))
    work = tmp_path / "work"
    work.mkdir()
    target = "resources/raw/CIFAR-10.1/datasets/cifar10.1_v6_labels.npy"
    proc = workflow_runner(
        work, target, configfiles=[repo / "config" / "offline.yaml", extra], extra=["--"], check=False
    )
    assert proc.returncode != 0
    log = (work / "logs/data/fetch/CIFAR-10.1/datasets/cifar10.1_v6_labels.npy.log").read_text()
    assert "checksum mismatch for cifar10.1_v6_labels.npy" in log
    assert "sha256:ae40beda001693674edc94d925ee8268cfe68905f8f9aff800c8dcdfcd6c9448" in log
    assert [p for p in (work / "resources").rglob("*") if p.is_file()] == []


def test_repeated_configfile_flag_stops_the_workflow(tmp_path, repo, workflow_runner):
    """Snakemake keeps only the last of repeated --configfile flags (that dropped offline.yaml's
    archive checksum here once): the workflow refuses them, naming the fix."""
    extra = tmp_path / "test.yaml"
    extra.write_text(yaml.safe_dump({"data": {"mirror": str(tmp_path)}}))
    proc = workflow_runner(
        tmp_path, configfiles=[repo / "config" / "offline.yaml"], extra=["--configfile", str(extra), "-n"], check=False
    )
    assert proc.returncode != 0
    assert "--configfile is given 2 times" in proc.stderr + proc.stdout
    ok = workflow_runner(
        tmp_path,
        "resources/raw/cifar-10/cifar-10-python.tar.gz",
        configfiles=[repo / "config" / "offline.yaml", extra],
        extra=["-n"],
    )
    assert "data_fetch_file" in ok.stdout


def test_a_missing_mirror_folder_is_one_error_at_start_up(tmp_path, repo, workflow_runner):
    """Issue 12: data.mirror naming a folder that does not exist stops the workflow before any job,
    with one line naming the key and the folder (not dozens of missing-file warnings)."""
    extra = tmp_path / "test.yaml"
    extra.write_text(yaml.safe_dump({"data": {"mirror": str(tmp_path / "no-such-mirror")}}))
    proc = workflow_runner(
        tmp_path, configfiles=[repo / "config" / "offline.yaml", extra], extra=["-n", "--"], check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"data.mirror: folder {tmp_path / 'no-such-mirror'} does not exist" in out
    assert "not in the mirror" not in out
