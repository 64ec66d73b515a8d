"""A study's pinned input file from the mirror, verified (holdout.data.fetch.fetch_configured)."""

from __future__ import annotations

import hashlib

import pytest

from holdout.data.errors import ChecksumError
from holdout.data.fetch import fetch_configured


def test_from_the_mirror_verified(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "anchors").mkdir(parents=True)
    (mirror / "anchors" / "x.csv").write_text("a,b\n1,2\n")
    good = "sha256:" + hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    dest = tmp_path / "out" / "x.csv"
    fetch_configured("anchors/x.csv", mirror, {}, dest, good, "contamination")
    assert dest.read_text() == "a,b\n1,2\n"
    with pytest.raises(ChecksumError):
        fetch_configured("anchors/x.csv", mirror, {}, tmp_path / "y.csv", "sha256:" + "0" * 64, "contamination")
    assert not (tmp_path / "y.csv").exists()
