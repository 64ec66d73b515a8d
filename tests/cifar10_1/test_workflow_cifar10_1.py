"""The original-test-set branch of the cifar10_1 stage on a small stand-in archive (random labels:
plumbing only, no paper numbers). The offline run on the real mirror is in
tests/data/test_workflow_data.py (one run for both stages)."""

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

pytestmark = pytest.mark.slow  # starts Snakemake

ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
WITH_ORIGINAL = [
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


def _targets(names):
    return [f"results/cifar10_1/{n}" for n in names]


def _batch(labels, name):
    n = len(labels)
    return {
        b"batch_label": name.encode(),
        b"labels": list(labels),
        b"data": np.zeros((n, 3072), dtype=np.uint8),
        b"filenames": [b"x.png"] * n,
    }


def _stand_in_archive(path):
    rng = np.random.default_rng(1)
    with tarfile.open(path, "w:gz") as tar:
        members = {f"data_batch_{i}": _batch([0], "train") for i in range(1, 6)}
        members["test_batch"] = _batch(rng.integers(0, 10, 10000).tolist(), "test")
        members["batches.meta"] = {b"label_names": [b"c%d" % i for i in range(10)]}
        for name, obj in members.items():
            raw = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))


def test_original_branch_on_a_stand_in_archive(tmp_path, repo, shared_data, workflow_runner):
    """With a CIFAR-10 archive in the mirror (a small stand-in with random test labels and its
    own md5 in config), Table 1, Table 4, the fit and Figure 2 are built; no warning is given.
    (Table 5's original columns: tests/cifar10_1/test_recht_library.py.)"""
    mirror = tmp_path / "mirror"
    (mirror / "cifar-10").mkdir(parents=True)
    os.symlink(shared_data / "CIFAR-10.1", mirror / "CIFAR-10.1")
    _stand_in_archive(mirror / ARCHIVE)
    md5 = hashlib.md5((mirror / ARCHIVE).read_bytes()).hexdigest()
    extra = tmp_path / "test.yaml"
    extra.write_text(yaml.safe_dump({"data": {"mirror": str(mirror), "checksums": {ARCHIVE: f"md5:{md5}"}}}))
    work = tmp_path / "work"
    work.mkdir()
    proc = workflow_runner(
        work, *_targets(WITH_ORIGINAL), configfiles=[repo / "config" / "offline.yaml", extra], extra=["--"]
    )
    assert "cifar-10-python.tar.gz not in the mirror" not in proc.stderr
    res = work / "results/cifar10_1"
    t1 = pd.read_csv(res / "table1.csv")
    assert len(t1) == 30 and (t1["orig_n"] == 10000).all()
    assert (np.diff(t1["orig_correct"]) <= 0).all()  # sorted by original accuracy
    assert len(pd.read_csv(res / "table4.csv")) == 30
    fit = pd.read_csv(res / "linear_fit.csv").iloc[0]
    assert fit["n"] == 30 and np.isfinite(fit["slope_se"])
    pts = pd.read_csv(res / "figure2.csv")
    line = pd.read_csv(res / "figure2_fit.csv")
    assert len(pts) == 30 and (line["band_low"] <= line["fit"]).all() and (line["fit"] <= line["band_high"]).all()
    assert (res / "figure2.png").stat().st_size > 10_000 and (res / "figure2.pdf").stat().st_size > 1_000
