"""holdout.data.availability: which prediction sets can be built, the one warning, the mirror check."""

from __future__ import annotations

import pytest
from small_configs import read_yaml

from holdout.data import availability as av


@pytest.fixture(scope="module")
def data_cfg(repo):
    return read_yaml(repo / "config" / "config.yaml")["data"]


def _mirror_with(tmp_path, data_cfg, names):
    """A mirror holding every raw file of the built-in sets ``names``."""
    mirror = tmp_path / "mirror"
    for name in names:
        for rel in av.raw_inputs(name, data_cfg):
            (mirror / rel).parent.mkdir(parents=True, exist_ok=True)
            (mirror / rel).write_bytes(b"x")
    mirror.mkdir(exist_ok=True)
    return mirror


def test_raw_inputs_of_the_builtin_sets(data_cfg):
    v4 = av.raw_inputs("cifar10_1_v4", data_cfg)
    assert v4[0] == "CIFAR-10.1/datasets/cifar10.1_v4_labels.npy" and len(v4) == 1 + len(data_cfg["cifar10_1_models"])
    assert av.raw_inputs("cifar10_original", data_cfg)[0] == av.CIFAR10_ARCHIVE
    inet = av.raw_inputs("imagenet_val", data_cfg)
    assert inet[1] == av.IMAGENET_CLASS_INFO and len(inet) == 2 + len(data_cfg["imagenet_models"])
    with pytest.raises(ValueError, match="unknown prediction set 'nope'"):
        av.raw_inputs("nope", data_cfg)


def test_without_a_mirror_everything_with_a_checksum_is_available(data_cfg):
    res = av.availability({**data_cfg, "mirror": None})
    assert res.mirror is None and set(av.builtin_sets(data_cfg)) <= res.available
    assert av.skipped_warning(res) is None


def test_a_mirror_missing_files_skips_those_sets_in_one_warning(tmp_path, data_cfg):
    mirror = _mirror_with(tmp_path, data_cfg, ["cifar10_1_v4", "cifar10_1_v6"])
    res = av.availability({**data_cfg, "mirror": str(mirror)})
    assert res.available == {"cifar10_1_v4", "cifar10_1_v6"}
    assert res.missing["cifar10_original"][0] == av.CIFAR10_ARCHIVE
    warning = av.skipped_warning(res)
    assert warning.count("\n  - ") == len(av.builtin_sets(data_cfg)) - 2
    assert f"cifar10_original: {av.CIFAR10_ARCHIVE}, " in warning and "Table 4, Figure 2" in warning
    assert f"not in the mirror {mirror}" in warning and " more" in warning
    assert av.file_available("CIFAR-10.1/datasets/cifar10.1_v4_labels.npy", data_cfg, res.mirror)
    assert not av.file_available(av.CIFAR10_ARCHIVE, data_cfg, res.mirror)


def test_a_file_without_checksum_is_never_available(tmp_path, data_cfg):
    sums = {k: v for k, v in data_cfg["checksums"].items() if k != "CIFAR-10.1/datasets/cifar10.1_v6_labels.npy"}
    res = av.availability({**data_cfg, "mirror": None, "checksums": sums})
    assert "cifar10_1_v6" not in res.available
    assert res.missing["cifar10_1_v6"] == [
        "CIFAR-10.1/datasets/cifar10.1_v6_labels.npy (no checksum in data.checksums)"
    ]


def test_user_sets_need_both_files(tmp_path, data_cfg):
    (tmp_path / "p.csv").write_text("a\n0\n")
    (tmp_path / "l.csv").write_text("0\n")
    users = [
        {"name": "mine", "predictions": str(tmp_path / "p.csv"), "labels": str(tmp_path / "l.csv")},
        {"name": "half", "predictions": str(tmp_path / "p.csv"), "labels": str(tmp_path / "gone.csv")},
    ]
    res = av.availability({**data_cfg, "mirror": None, "user_predictions": users})
    assert "user_mine" in res.available and "user_half" not in res.available
    assert (
        f"user_half: data.user_predictions half: labels file {tmp_path / 'gone.csv'} not found"
        in av.skipped_warning(res)
    )


def test_a_mirror_folder_that_does_not_exist_is_one_clear_error(tmp_path, data_cfg):
    with pytest.raises(av.MirrorError, match=r"^data.mirror: folder .*/nowhere does not exist$"):
        av.availability({**data_cfg, "mirror": str(tmp_path / "nowhere")})
    assert av.check_mirror(None) is None and av.check_mirror(str(tmp_path)) == tmp_path.resolve()
