"""The retraining stage end to end on stand-ins: a small generated CIFAR-10 archive and generated
CIFAR-10.1 v4 images in the official layout (2,021 x 32 x 32 x 3 uint8 .npy, with the real v4
labels and the published predictions), each pinned by its own checksum in config. Plumbing only:
random images, so no paper numbers; Table 2, Sec. 5.5, Figures 1 and 3 are all built."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import tarfile

import numpy as np
import pandas as pd
import pytest
import yaml
from small_configs import load_small_config

ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
V4_DATA = "CIFAR-10.1/datasets/cifar10.1_v4_data.npy"


def _archive(path, per_class_train=8, per_class_test=4):
    rng = np.random.default_rng(0)

    def batch(labels):
        return {
            b"batch_label": b"x",
            b"labels": list(map(int, labels)),
            b"filenames": [b"x.png"] * len(labels),
            b"data": rng.integers(0, 256, (len(labels), 3072), dtype=np.uint8),
        }

    train = rng.permutation(np.repeat(np.arange(10), per_class_train))
    members = {f"data_batch_{i + 1}": batch(part) for i, part in enumerate(np.array_split(train, 5))}
    members["test_batch"] = batch(np.repeat(np.arange(10), per_class_test))
    members["batches.meta"] = {b"label_names": [b"c%d" % i for i in range(10)]}
    with tarfile.open(path, "w:gz") as tar:
        for name, obj in members.items():
            raw = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))


@pytest.mark.slow
def test_retraining_stage_on_generated_data(tmp_path, repo, shared_data, workflow_runner):
    mirror = tmp_path / "mirror"
    (mirror / "cifar-10").mkdir(parents=True)
    (mirror / "CIFAR-10.1/datasets").mkdir(parents=True)
    os.symlink(shared_data / "CIFAR-10.1/model_predictions", mirror / "CIFAR-10.1/model_predictions")
    for v in ("v4", "v6"):
        name = f"cifar10.1_{v}_labels.npy"
        os.symlink(shared_data / "CIFAR-10.1/datasets" / name, mirror / "CIFAR-10.1/datasets" / name)
    np.save(mirror / V4_DATA, np.random.default_rng(1).integers(0, 256, (2021, 32, 32, 3), dtype=np.uint8))
    _archive(mirror / ARCHIVE)
    sums = {
        ARCHIVE: "md5:" + hashlib.md5((mirror / ARCHIVE).read_bytes()).hexdigest(),
        V4_DATA: "sha256:" + hashlib.sha256((mirror / V4_DATA).read_bytes()).hexdigest(),
    }
    # .test/config-retraining/config.yaml with the generated mirror and its checksums overlaid
    cfg = load_small_config("retraining")
    cfg["data"] = {"mirror": str(mirror), "checksums": sums}
    extra = tmp_path / "test.yaml"
    extra.write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    targets = [
        f"results/retraining/{n}"
        for n in (
            "cv_splits.csv",
            "table2.csv",
            "table2.md",
            "sec55.csv",
            "sec55.md",
            "figure1.png",
            "figure1.pdf",
            "figure1.csv",
            "figure3.png",
            "figure3.pdf",
            "figure3.csv",
        )
    ]
    proc = workflow_runner(work, *targets, configfiles=[repo / "config" / "offline.yaml", extra], extra=["--"])
    assert "retraining: the CIFAR-10.1 v4 images" not in proc.stderr  # nothing skipped
    res = work / "results/retraining"

    splits = pd.read_csv(res / "cv_splits.csv")
    assert len(splits) == 80 and (splits.groupby("split").size() == 16).all()
    t2 = pd.read_csv(res / "table2.csv")
    assert len(t2) == 6 and set(t2["dataset"]) == {"split1", "split2", "split3", "split4", "split5", "original"}
    assert (t2[t2.dataset != "original"]["n"] == 16).all() and (t2[t2.dataset == "original"]["n"] == 40).all()
    assert ((t2.ci_low <= t2.accuracy) & (t2.accuracy <= t2.ci_high)).all()
    assert t2.loc[t2.dataset == "split1", "paper_accuracy"].item() == 97.16
    assert "Paper (Recht et al. 2018, Table 2" in (res / "table2.md").read_text()

    s55 = pd.read_csv(res / "sec55.csv")
    assert len(s55) == 4 and (s55["n"] == 2001).all()  # held-out: 2,021 - 20
    assert set(s55["training"]) == {"with extra half", "without extra data"}
    assert "85.06" in (res / "sec55.md").read_text()

    f1 = pd.read_csv(res / "figure1.csv")
    assert set(f1["panel"]) == {"Test Set A (CIFAR-10.1 v4)", "Test Set B (CIFAR-10 test)"} and len(f1) == 60
    f3 = pd.read_csv(res / "figure3.csv")
    assert 0 < len(f3) <= 12 and (f3["label"] != f3["majority"]).all()
    for name in ("figure1.png", "figure3.png"):
        assert (res / name).stat().st_size > 5_000
