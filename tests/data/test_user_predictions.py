"""User-supplied predictions (CSV / NPY + labels): conversion and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from holdout.data.core import DataError, convert_user_predictions, read_user_labels, read_user_predictions


def _csv(path, header, rows):
    path.write_text("\n".join([",".join(header)] + [",".join(str(v) for v in r) for r in rows]) + "\n")
    return path


@pytest.fixture
def labels_npy(tmp_path):
    p = tmp_path / "labels.npy"
    np.save(p, np.array([0, 1, 2, 1]))
    return p


def test_csv_and_npy_give_the_same_predictions(tmp_path, labels_npy):
    csv = _csv(tmp_path / "p.csv", ["a", "b"], [[0, 0], [1, 2], [2, 2], [0, 1]])
    npy = tmp_path / "p.npy"
    np.save(npy, np.array([[0, 1, 2, 0], [0, 2, 2, 1]]))
    p1 = convert_user_predictions(csv, labels_npy, test_set="mine")
    p2 = convert_user_predictions(npy, labels_npy, test_set="mine", model_names=["a", "b"], num_classes=3)
    np.testing.assert_array_equal(p1.predictions, p2.predictions)
    assert p1.model_names == p2.model_names == ("a", "b")
    np.testing.assert_allclose(p1.accuracies(), [0.75, 0.75])
    assert p1.num_classes == 3 and p1.test_set == "mine" and p1.metadata[0]["source"] == "user"


def test_repository_examples_convert(repo):
    ex = repo / "config" / "examples"
    p1 = convert_user_predictions(ex / "user_predictions.csv", ex / "user_labels.csv", test_set="x", num_classes=10)
    p2 = convert_user_predictions(
        ex / "user_predictions.npy",
        ex / "user_labels.npy",
        test_set="x",
        num_classes=10,
        model_names=list(p1.model_names),
    )
    assert p1.num_models == 3 and p1.num_examples == 300
    np.testing.assert_array_equal(p1.predictions, p2.predictions)
    np.testing.assert_array_equal(p1.labels, p2.labels)


def test_labels_csv_with_and_without_header(tmp_path):
    preds = _csv(tmp_path / "p.csv", ["m"], [[1], [0]])
    for text in ("label\n1\n0\n", "1\n0\n"):
        (tmp_path / "l.csv").write_text(text)
        assert convert_user_predictions(preds, tmp_path / "l.csv", test_set="t").accuracies()[0] == 1.0


def test_wrong_length_names_both_files(tmp_path, labels_npy):
    preds = _csv(tmp_path / "p.csv", ["a"], [[0], [1], [2]])
    with pytest.raises(DataError, match=r"p.csv: 3 predictions per model but .*labels.npy has 4 labels"):
        convert_user_predictions(preds, labels_npy, test_set="t")


def test_labels_out_of_range_names_the_labels_file(tmp_path):
    preds = _csv(tmp_path / "p.csv", ["a"], [[0], [1]])
    np.save(tmp_path / "l.npy", np.array([0, 7]))
    with pytest.raises(DataError, match=r"l.npy: labels out of range \[0, 5\)"):
        convert_user_predictions(preds, tmp_path / "l.npy", test_set="t", num_classes=5)
    np.save(tmp_path / "neg.npy", np.array([0, -1]))
    with pytest.raises(DataError, match=r"neg.npy: labels out of range"):
        convert_user_predictions(preds, tmp_path / "neg.npy", test_set="t")


def test_nan_and_empty_cells_name_the_file(tmp_path, labels_npy):
    (tmp_path / "p.csv").write_text("a,b\n0,1\n1,\n2,2\n1,1\n")
    with pytest.raises(DataError, match=r"p.csv: predictions contain NaN or empty cells"):
        convert_user_predictions(tmp_path / "p.csv", labels_npy, test_set="t")
    np.save(tmp_path / "p.npy", np.array([[0.0, np.nan, 1.0, 1.0]]))
    with pytest.raises(DataError, match=r"p.npy: predictions contain NaN"):
        convert_user_predictions(tmp_path / "p.npy", labels_npy, test_set="t")
    np.save(tmp_path / "lf.npy", np.array([0.0, 1.0, np.nan, 1.0]))
    np.save(tmp_path / "ok.npy", np.array([[0, 1, 2, 1]]))
    with pytest.raises(DataError, match=r"lf.npy: labels contain NaN"):
        convert_user_predictions(tmp_path / "ok.npy", tmp_path / "lf.npy", test_set="t")


def test_duplicate_model_names(tmp_path, labels_npy):
    preds = _csv(tmp_path / "p.csv", ["a", "b", "a"], [[0, 0, 0]] * 4)
    with pytest.raises(DataError, match=r"p.csv: duplicate model names: a"):
        convert_user_predictions(preds, labels_npy, test_set="t")
    np.save(tmp_path / "p.npy", np.zeros((2, 4), dtype=int))
    with pytest.raises(DataError, match=r"p.npy: duplicate model names: x"):
        convert_user_predictions(tmp_path / "p.npy", labels_npy, test_set="t", model_names=["x", "x"])


def test_other_malformed_inputs(tmp_path, labels_npy):
    np.save(tmp_path / "p.npy", np.zeros((2, 4), dtype=int))
    with pytest.raises(DataError, match=r"p.npy: 2 models \(rows\) but 3 model_names"):
        convert_user_predictions(tmp_path / "p.npy", labels_npy, test_set="t", model_names=["a", "b", "c"])
    (tmp_path / "h.csv").write_text("0,1\n1,1\n")
    with pytest.raises(DataError, match=r"h.csv: the first row must be a header of model names"):
        convert_user_predictions(tmp_path / "h.csv", labels_npy, test_set="t")
    (tmp_path / "r.csv").write_text("a,b\n0,1\n1\n")
    with pytest.raises(DataError, match=r"r.csv: data row 2 has 1 cells, expected 2"):
        convert_user_predictions(tmp_path / "r.csv", labels_npy, test_set="t")
    (tmp_path / "f.csv").write_text("a\n0.5\n1\n2\n1\n")
    with pytest.raises(DataError, match=r"f.csv: predictions must be whole class indices"):
        convert_user_predictions(tmp_path / "f.csv", labels_npy, test_set="t")
    with pytest.raises(DataError, match=r"missing.csv: predictions file not found"):
        convert_user_predictions(tmp_path / "missing.csv", labels_npy, test_set="t")
    (tmp_path / "p.txt").write_text("a\n1\n")
    with pytest.raises(DataError, match=r"p.txt: predictions must be a .csv or .npy file"):
        convert_user_predictions(tmp_path / "p.txt", labels_npy, test_set="t")


def test_utf16_csv_and_labels_folder_are_named_with_the_fix(tmp_path):
    from holdout.data.core import DataError, read_user_labels, read_user_predictions

    path = tmp_path / "p.csv"
    path.write_bytes("a,b\n0,1\n".encode("utf-16"))
    with pytest.raises(DataError, match=r"p.csv: not UTF-8 text .*save it as UTF-8"):
        read_user_predictions(path)
    with pytest.raises(DataError, match=r"is a directory, not a labels file"):
        read_user_labels(tmp_path)


def test_header_only_csv_is_named(tmp_path):
    """A CSV with a header and no data rows (found by the long property-based profile) is one clear line."""
    labels = tmp_path / "labels.csv"
    labels.write_text("label\n")
    with pytest.raises(DataError, match=r"labels.csv: a header but no data rows"):
        read_user_labels(labels)
    preds = tmp_path / "p.csv"
    preds.write_text("a,b\n")
    with pytest.raises(DataError, match=r"p.csv: "):
        read_user_predictions(preds)
