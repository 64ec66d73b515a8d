"""Converters into holdout.predictions on the real mirror (CIFAR-10.1, ImageNet testbed)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from small_configs import read_yaml

from holdout.data.core import DataError, convert_cifar10_1_predictions, convert_imagenet_testbed, imagenet_labels

FISHER_VECTORS = ("fv_4k", "fv_16k", "fv_64k")


@pytest.fixture(scope="module")
def data_config(repo):
    return read_yaml(repo / "config" / "config.yaml")["data"]


def _c101(shared_data, cfg, split, labels):
    files = {
        paper: shared_data / f"CIFAR-10.1/model_predictions/{split}_predictions/{f}_predictions.json"
        for f, paper in cfg["cifar10_1_models"].items()
    }
    return convert_cifar10_1_predictions(files, labels, test_set=f"cifar10_1_{split}", labels_source="labels")


@pytest.mark.parametrize("version, n", [("v4", 2021), ("v6", 2000)])
def test_cifar10_1_conversion(shared_data, data_config, version, n):
    labels = np.load(shared_data / f"CIFAR-10.1/datasets/cifar10.1_{version}_labels.npy")
    p = _c101(shared_data, data_config, version, labels)
    assert p.num_models == 30 and p.num_examples == n and p.num_classes == 10
    assert p.model_names[0] == "shake_shake_64d_cutout" and p.model_names[-1] == "alexnet_tf"
    assert len(set(p.model_names)) == 30
    meta = dict(zip(p.model_names, p.metadata))
    assert meta["wide_resnet_28_10_cutout"]["file_model_name"] == "wrn_28_10_cutout16"
    assert meta["random_features_256k"]["file_model_name"] == "random_features_256k_no_aug"
    acc = dict(zip(p.model_names, p.accuracies()))
    # Recht et al. (2018), Table 1 (v4) and Table 5 (v6): shake_shake_64d_cutout 93.0 / 93.1
    assert round(100 * acc["shake_shake_64d_cutout"], 1) == {"v4": 93.0, "v6": 93.1}[version]


def test_cifar10_1_mapping_covers_all_30_files(shared_data, data_config):
    files = sorted(
        p.name.removesuffix("_predictions.json")
        for p in (shared_data / "CIFAR-10.1/model_predictions/v4_predictions").glob("*.json")
    )
    assert sorted(data_config["cifar10_1_models"]) == files
    assert len(set(data_config["cifar10_1_models"].values())) == 30


def test_cifar10_1_wrong_length_names_the_file(shared_data, data_config):
    labels = np.load(shared_data / "CIFAR-10.1/datasets/cifar10.1_v6_labels.npy")
    with pytest.raises(DataError, match=r"v4_predictions/.*_predictions.json: 2021 predictions but labels has 2000"):
        _c101(shared_data, data_config, "v4", labels)


def test_imagenet_testbed_conversion(shared_data, data_config):
    """67 models; mean top-1 of the 64 convolutional models ~75.6% (Mania et al. 2019, Sec. 5.1)."""
    models = data_config["imagenet_models"]
    assert len(models) == 67 and set(FISHER_VECTORS) <= set(models)
    root = shared_data / "ImageNetV2/data"
    results = {}
    for name, dataset, n in (
        ("imagenet_val", "imagenet-validation-original", 50000),
        ("imagenetv2_b33", "imagenetv2-b-33", 10000),
    ):
        assert data_config["imagenet_datasets"][name] == dataset
        files = {m: root / f"predictions/{dataset}/{m}.npy" for m in models}
        p = convert_imagenet_testbed(
            files, root / f"datasets/{dataset}.json", root / "metadata/class_info.json", test_set=name
        )
        assert p.num_models == 67 and p.num_examples == n and p.num_classes == 1000
        top5 = np.load(files["resnet50"])
        np.testing.assert_array_equal(p.subset(["resnet50"]).predictions[0], top5[:, 0])
        results[name] = p.drop(FISHER_VECTORS).accuracies().mean()
    assert results["imagenet_val"] == pytest.approx(0.756, abs=0.0005)
    assert results["imagenetv2_b33"] < results["imagenet_val"] - 0.1  # the ImageNetV2 drop


def test_imagenet_labels_from_wnid(shared_data, tmp_path):
    root = shared_data / "ImageNetV2/data"
    labels = imagenet_labels(root / "datasets/imagenetv2-b-33.json", root / "metadata/class_info.json")
    assert labels.shape == (10000,) and labels.min() >= 0 and labels.max() <= 999
    assert np.bincount(labels, minlength=1000).tolist() == [10] * 1000  # 10 images per class
    bad = tmp_path / "d.json"
    bad.write_text(json.dumps({"image_filenames": [["x.jpg", "n00000000"]]}))
    with pytest.raises(DataError, match="wnid n00000000 not in"):
        imagenet_labels(bad, root / "metadata/class_info.json")


def test_bad_class_id_in_one_of_the_files_names_that_file(tmp_path):
    """Was: the set was named, not the file; a damaged or latin-1 json file likewise."""
    labels = np.array([0, 1, 2])
    good, bad, latin = tmp_path / "a_predictions.json", tmp_path / "b_predictions.json", tmp_path / "c.json"
    good.write_text("[0, 1, 2]")
    bad.write_text("[0, 12, 2]")
    latin.write_bytes("[0, 1, 2] caf\xe9".encode("latin-1"))
    with pytest.raises(DataError, match=r"b_predictions.json: class id 12 at position 1 is outside 0..9"):
        convert_cifar10_1_predictions({"A": good, "B": bad}, labels, test_set="t", labels_source="l")
    with pytest.raises(DataError, match=r"c.json: unreadable predictions json"):
        convert_cifar10_1_predictions({"A": good, "C": latin}, labels, test_set="t", labels_source="l")


def test_truncated_testbed_file_names_the_file(tmp_path):
    (tmp_path / "ds.json").write_text(json.dumps({"image_filenames": [["a.jpg", "n1"], ["b.jpg", "n2"]]}))
    (tmp_path / "ci.json").write_text(json.dumps([{"cid": 0, "wnid": "n1"}, {"cid": 1, "wnid": "n2"}]))
    np.save(tmp_path / "m.npy", np.zeros((2, 5), dtype=np.int64))
    (tmp_path / "t.npy").write_bytes((tmp_path / "m.npy").read_bytes()[:-7])
    with pytest.raises(DataError, match=r"t.npy: unreadable .npy"):
        convert_imagenet_testbed({"m": tmp_path / "m.npy", "t": tmp_path / "t.npy"}, tmp_path / "ds.json",
                                 tmp_path / "ci.json", test_set="x")  # fmt: skip
    np.save(tmp_path / "t.npy", np.full((2, 5), 1000, dtype=np.int64))
    with pytest.raises(DataError, match=r"t.npy: class id 1000 at position 0 is outside 0..999"):
        convert_imagenet_testbed({"m": tmp_path / "m.npy", "t": tmp_path / "t.npy"}, tmp_path / "ds.json",
                                 tmp_path / "ci.json", test_set="x")  # fmt: skip
