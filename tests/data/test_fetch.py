"""holdout.data.fetch: checksums, atomic mirror copies and downloads."""

from __future__ import annotations

import hashlib
import logging

import pytest
from small_configs import read_yaml

from holdout.data.core import (
    ChecksumError,
    DataError,
    FetchError,
    checksum_of,
    fetch,
    parse_checksum,
    resolve_url,
    source_of,
    verify_checksum,
)


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_parse_checksum_accepts_md5_and_sha256_and_rejects_garbage():
    assert parse_checksum("md5:" + "a" * 32) == ("md5", "a" * 32)
    assert parse_checksum("SHA256:" + "B" * 64) == ("sha256", "b" * 64)
    for bad in ("a" * 64, "sha1:" + "a" * 40, "md5:" + "a" * 31, "sha256:" + "g" * 64):
        with pytest.raises(DataError, match="checksum"):
            parse_checksum(bad)


def test_checksum_mismatch_message_names_file_expected_actual_and_fix(tmp_path):
    f = tmp_path / "labels.npy"
    f.write_bytes(b"not the real file")
    expected = "sha256:" + "0" * 64
    with pytest.raises(ChecksumError) as err:
        verify_checksum(f, expected)
    msg = str(err.value)
    assert str(f) in msg
    assert "0" * 64 in msg
    assert hashlib.sha256(b"not the real file").hexdigest() in msg
    assert "fetch it again" in msg and "delete" not in msg and "data.checksums" in msg


def test_fetch_from_mirror_verifies_and_places_file(tmp_path):
    mirror = tmp_path / "mirror" / "CIFAR-10.1" / "datasets"
    mirror.mkdir(parents=True)
    (mirror / "x.npy").write_bytes(b"payload")
    dest = tmp_path / "resources" / "raw" / "CIFAR-10.1" / "datasets" / "x.npy"
    fetch(mirror / "x.npy", dest, _sha(b"payload"))
    assert dest.read_bytes() == b"payload"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["x.npy"]


def test_corrupt_mirror_copy_never_reaches_resources(tmp_path):
    """A mirror file with the wrong bytes fails the check and leaves nothing in resources/."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "f.json").write_bytes(b"[1, 2, 3")  # truncated copy
    resources = tmp_path / "resources"
    dest = resources / "raw" / "f.json"
    with pytest.raises(ChecksumError, match="checksum mismatch for f.json") as err:
        fetch(mirror / "f.json", dest, _sha(b"[1, 2, 3]"))
    assert "nothing was written; replace the mirror's copy with the published file" in str(err.value)
    assert "delete" not in str(err.value)  # was: "delete it and fetch it again" (the mirror is the user's)
    assert not dest.exists()
    assert [p for p in resources.rglob("*") if p.is_file()] == []


def test_corrupt_file_does_not_replace_a_good_one(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "f").write_bytes(b"bad")
    dest = tmp_path / "out" / "f"
    dest.parent.mkdir()
    dest.write_bytes(b"good")
    with pytest.raises(ChecksumError):
        fetch(mirror / "f", dest, _sha(b"good"))
    assert dest.read_bytes() == b"good"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["f"]


def test_missing_mirror_file_is_a_clear_error(tmp_path):
    with pytest.raises(FetchError, match="not found in the mirror"):
        fetch(tmp_path / "nope.npy", tmp_path / "out" / "nope.npy", _sha(b""))
    assert not (tmp_path / "out" / "nope.npy").exists()


def test_download_path_with_progress_log(tmp_path, caplog):
    """URLs go through urllib (a file:// URL here, so the test runs offline)."""
    src = tmp_path / "remote.bin"
    data = bytes(range(256)) * 5000
    src.write_bytes(data)
    dest = tmp_path / "resources" / "remote.bin"
    with caplog.at_level(logging.INFO, logger="holdout.data.core"):
        fetch(src.as_uri(), dest, "md5:" + hashlib.md5(data).hexdigest())
    assert dest.read_bytes() == data
    assert "downloaded" in caplog.text and "verified" in caplog.text
    assert checksum_of(dest, "md5") == hashlib.md5(data).hexdigest()


def test_failed_download_leaves_no_file(tmp_path):
    dest = tmp_path / "resources" / "x"
    with pytest.raises(FetchError, match="could not download"):
        fetch((tmp_path / "absent").as_uri(), dest, _sha(b""))
    assert not dest.exists() and list(dest.parent.iterdir()) == []


def test_resolve_url_longest_prefix(repo):
    urls = read_yaml(repo / "config" / "config.yaml")["data"]["urls"]
    assert resolve_url("CIFAR-10.1/datasets/cifar10.1_v4_labels.npy", urls) == (
        "https://raw.githubusercontent.com/modestyachts/CIFAR-10.1/master/datasets/cifar10.1_v4_labels.npy"
    )
    assert resolve_url("ImageNetV2/data/metadata/class_info.json", urls) == (
        "https://raw.githubusercontent.com/modestyachts/ImageNetV2/master/data/metadata/class_info.json"
    )
    assert resolve_url("cifar-10/cifar-10-python.tar.gz", urls) == (
        "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    )
    with pytest.raises(DataError, match="no URL configured for other/x"):
        resolve_url("other/x", urls)


def test_config_checksums_match_every_mirror_file(repo, shared_data):
    """Every file of the mirror's SHA256SUMS has the same sha256 in config (and vice versa)."""
    checks = read_yaml(repo / "config" / "config.yaml")["data"]["checksums"]
    sums = {}
    for line in (shared_data / "SHA256SUMS").read_text().splitlines():
        digest, path = line.split()
        path = path.removeprefix("./")
        if path.startswith(("CIFAR-10.1/", "ImageNetV2/data/")):
            sums[path] = "sha256:" + digest
    assert {p: checks[p] for p in sums} == sums
    assert len(sums) == 2 + 3 * 30 + 2 + 1 + 2 * 67


def test_source_of_prefers_the_mirror(tmp_path, monkeypatch):
    urls = {"CIFAR-10.1/": "https://example.org/c/"}
    assert source_of("CIFAR-10.1/a.npy", None, urls) == "https://example.org/c/a.npy"
    assert source_of("CIFAR-10.1/a.npy", str(tmp_path), urls) == str(tmp_path / "CIFAR-10.1/a.npy")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    assert source_of("x/y", "m", urls) == str(tmp_path / "m" / "x/y")  # relative: from the working directory
