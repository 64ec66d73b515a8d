"""load_cifar10 on small archives in the official layout; CIFAR-10 checksums in config."""

from __future__ import annotations

import hashlib
import io
import pickle
import tarfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from holdout.data.core import CIFAR10_CLASSES, ChecksumError, DataError, fetch, load_cifar10

OFFICIAL_MD5 = "c58f30108f718f92721af3b95e74349a"
REBUILD_MD5 = "02a0a31bf823a71a036f785f1273ee37"
ARCHIVE = "cifar-10/cifar-10-python.tar.gz"


def _batch(rng, n, name):
    images = rng.integers(0, 256, size=(n, 32, 32, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n).tolist()
    data = images.transpose(0, 3, 1, 2).reshape(n, 3072)  # official row layout: R, G, B planes
    return (
        images,
        np.array(labels),
        {
            b"batch_label": name.encode(),
            b"labels": labels,
            b"data": data,
            b"filenames": [f"img_{i}.png".encode() for i in range(n)],
        },
    )


def make_archive(path: Path, n_per_batch: int = 4, n_test: int = 5, seed: int = 0, drop: str | None = None):
    """A CIFAR-10 python archive in the official layout, with random images."""
    rng = np.random.default_rng(seed)
    members, train_x, train_y = {}, [], []
    for i in range(1, 6):
        x, y, d = _batch(rng, n_per_batch, f"training batch {i} of 5")
        members[f"data_batch_{i}"] = d
        train_x.append(x)
        train_y.append(y)
    test_x, test_y, members["test_batch"] = _batch(rng, n_test, "testing batch 1 of 1")
    members["batches.meta"] = {
        b"label_names": [c.encode() for c in CIFAR10_CLASSES],
        b"num_cases_per_batch": n_per_batch,
        b"num_vis": 3072,
    }
    with tarfile.open(path, "w:gz") as tar:
        for name, obj in members.items():
            if name == drop:
                continue
            raw = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    return np.concatenate(train_x), np.concatenate(train_y), test_x, test_y


def test_load_cifar10_layout_and_order(tmp_path):
    archive = tmp_path / "cifar-10-python.tar.gz"
    train_x, train_y, test_x, test_y = make_archive(archive)
    c = load_cifar10(archive)
    assert c.train_images.shape == (20, 32, 32, 3) and c.train_images.dtype == np.uint8
    assert c.test_images.shape == (5, 32, 32, 3) and c.test_images.dtype == np.uint8
    np.testing.assert_array_equal(c.train_images, train_x)  # N x H x W x RGB, batches 1..5 in order
    np.testing.assert_array_equal(c.test_images, test_x)
    np.testing.assert_array_equal(c.train_labels, train_y)
    np.testing.assert_array_equal(c.test_labels, test_y)
    assert c.classes == CIFAR10_CLASSES


def test_load_cifar10_channel_planes(tmp_path):
    """Row layout of the official batches: 1024 red, then green, then blue values."""
    archive = tmp_path / "a.tar.gz"
    make_archive(archive, n_per_batch=1, n_test=1)
    with tarfile.open(archive) as tar:
        raw = pickle.load(tar.extractfile("cifar-10-batches-py/test_batch"), encoding="bytes")[b"data"][0]
    img = load_cifar10(archive).test_images[0]
    assert img[0, 0, 0] == raw[0] and img[0, 0, 1] == raw[1024] and img[0, 0, 2] == raw[2048]
    assert img[0, 1, 0] == raw[1] and img[1, 0, 0] == raw[32]


def test_load_cifar10_errors_name_the_archive(tmp_path):
    archive = tmp_path / "broken.tar.gz"
    make_archive(archive, drop="test_batch")
    with pytest.raises(DataError, match=r"broken.tar.gz: missing cifar-10-batches-py/test_batch"):
        load_cifar10(archive)
    (tmp_path / "junk.tar.gz").write_bytes(b"junk")
    with pytest.raises(DataError, match="junk.tar.gz: unreadable CIFAR-10 archive"):
        load_cifar10(tmp_path / "junk.tar.gz")


def test_official_md5_is_rejected_for_a_rebuild(tmp_path):
    """A rebuilt archive (here a small test one) fails against the official md5 and passes
    against its own md5: the same check that makes the offline config name the rebuild's md5."""
    mirror = tmp_path / "mirror" / "cifar-10"
    mirror.mkdir(parents=True)
    make_archive(mirror / "cifar-10-python.tar.gz")
    own_md5 = hashlib.md5((mirror / "cifar-10-python.tar.gz").read_bytes()).hexdigest()
    dest = tmp_path / "resources" / "raw" / ARCHIVE
    with pytest.raises(ChecksumError) as err:
        fetch(mirror / "cifar-10-python.tar.gz", dest, f"md5:{OFFICIAL_MD5}")
    assert OFFICIAL_MD5 in str(err.value) and own_md5 in str(err.value)
    assert not dest.exists()
    fetch(mirror / "cifar-10-python.tar.gz", dest, f"md5:{own_md5}")
    assert load_cifar10(dest).test_labels.shape == (5,)


def test_config_names_official_md5_and_offline_names_rebuild_md5(repo, workflow_config):
    default = workflow_config["data"]
    offline = yaml.safe_load((repo / "config" / "offline.yaml").read_text())["data"]
    assert default["checksums"][ARCHIVE] == f"md5:{OFFICIAL_MD5}"
    assert default["urls"][ARCHIVE] == "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    assert default["mirror"] is None
    assert offline["checksums"][ARCHIVE] == f"md5:{REBUILD_MD5}"
    assert offline["mirror"] == "../shared/data"


@pytest.mark.slow  # reads and decompresses the whole 188 MB archive
def test_mirror_archive_matches_rebuild_md5(shared_data):
    path = shared_data / ARCHIVE
    # the mirror holds the archive now: its absence is an error, not a skip
    assert path.is_file(), f"CIFAR-10 archive missing from the mirror: {path}"
    md5 = hashlib.md5()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            md5.update(chunk)
    assert md5.hexdigest() == REBUILD_MD5 != OFFICIAL_MD5
    c = load_cifar10(path)
    assert c.train_images.shape == (50000, 32, 32, 3) and c.test_images.shape == (10000, 32, 32, 3)
    assert np.bincount(c.test_labels).tolist() == [1000] * 10
