"""Issue 12 part 2: bad inputs that were accepted silently or refused unclearly, one test per case
(library side; the start-up config checks are in tests/test_config.py)."""

from __future__ import annotations

import hashlib
import logging
import math
import os

import numpy as np
import pytest

from holdout.bounds import core as B
from holdout.bounds.study import Setting, gain_grid, table1
from holdout.cifar10_1.recht import clopper_pearson, fit_band, linear_fit
from holdout.data.core import (
    DataError,
    convert_user_predictions,
    fetch,
    remove_stale_partials,
)
from holdout.predictions import (
    Predictions,
    PredictionsError,
    load_predictions,
    save_predictions,
)
from holdout.rvw.core import index_bits, rvw_bound
from holdout.similarity.core import covering_numbers, greedy_similarity_cover


@pytest.fixture
def labels_csv(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("label\n0\n1\n2\n")
    return path


# ---------------------------------------------------------------------------
# user files (holdout.data.core)
# ---------------------------------------------------------------------------


def test_huge_class_index_in_user_csv_is_refused_naming_file_and_value(tmp_path, labels_csv):
    """Was: saved wrapped to a negative int, every later load failed."""
    preds = tmp_path / "p.csv"
    preds.write_text("a,b\n0,1\n3000000000,1\n2,2\n")
    with pytest.raises(DataError, match=r"p\.csv: predictions contain class index 3000000000 .*beyond"):
        convert_user_predictions(preds, labels_csv, test_set="t")


def test_inf_cell_in_user_csv_is_refused_naming_file(tmp_path, labels_csv):
    """Was: 'out of range ... min -9223372036854775808'."""
    preds = tmp_path / "p.csv"
    preds.write_text("a,b\n0,1\ninf,1\n2,2\n")
    with pytest.raises(DataError, match=r"p\.csv: predictions contain NaN or empty cells, or infinity .*inf"):
        convert_user_predictions(preds, labels_csv, test_set="t")
    labels = tmp_path / "l.csv"
    labels.write_text("0\n-inf\n2\n")
    preds.write_text("a\n0\n1\n2\n")
    with pytest.raises(DataError, match=r"l\.csv: labels contain NaN or empty cells, or infinity"):
        convert_user_predictions(preds, labels, test_set="t")


def test_csv_with_utf8_byte_order_mark_reads_the_first_name_right(tmp_path, labels_csv):
    """Was: the first model was named '\\ufeffa'."""
    preds = tmp_path / "p.csv"
    preds.write_bytes("a,b\n0,1\n1,1\n2,0\n".encode("utf-8-sig"))
    assert preds.read_bytes().startswith(b"\xef\xbb\xbf")
    labels = tmp_path / "l.csv"
    labels.write_bytes("0\n1\n2\n".encode("utf-8-sig"))  # no header: the BOM must not make "0" a header
    p = convert_user_predictions(preds, labels, test_set="t")
    assert p.model_names == ("a", "b")
    np.testing.assert_array_equal(p.labels, [0, 1, 2])


def test_boolean_npy_is_refused_not_read_as_classes(tmp_path, labels_csv):
    """Was: a right/wrong matrix saved by mistake was read as classes 0/1."""
    np.save(tmp_path / "p.npy", np.array([[True, False, True], [False, False, True]]))
    with pytest.raises(DataError, match=r"p\.npy: predictions are booleans"):
        convert_user_predictions(tmp_path / "p.npy", labels_csv, test_set="t")
    np.save(tmp_path / "l.npy", np.array([True, False, True]))
    np.save(tmp_path / "ok.npy", np.array([[0, 1, 1]]))
    with pytest.raises(DataError, match=r"l\.npy: labels are booleans"):
        convert_user_predictions(tmp_path / "ok.npy", tmp_path / "l.npy", test_set="t")


def test_truncated_predictions_npz_names_the_path(tmp_path):
    """Was: BadZipFile with no path."""
    path = tmp_path / "resources" / "predictions" / "user_x.npz"
    save_predictions(path, Predictions.create([[0, 1, 2]], [0, 1, 1], ["m"]))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(PredictionsError, match=rf"{path}: not a readable predictions file \(BadZipFile"):
        load_predictions(path)
    path.write_bytes(b"")
    with pytest.raises(PredictionsError, match=rf"{path}: not a readable predictions file"):
        load_predictions(path)


_GOOD_NPZ = {
    "predictions": np.array([[0, 1, 2], [0, 1, 1]], dtype=np.int16),
    "labels": np.array([0, 1, 1], dtype=np.int16),
    "model_names": np.array(["a", "b"]),
    "num_classes": np.int64(3),
    "test_set": np.array("t"),
    "metadata": np.array("[{}, {}]"),
}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("metadata", np.array("not json"), "field 'metadata' must be one JSON string .*; it is not JSON"),
        ("metadata", np.array('{"a": 1}'), "field 'metadata' must be one JSON string holding a list of 2 objects"),
        ("metadata", np.array("[1, 2]"), "field 'metadata' .*got list of other values"),
        ("metadata", np.array(["a", "b"]), r"field 'metadata' .*got <U1 of shape \(2,\)"),
        ("num_classes", np.array("ten"), "field 'num_classes' must be one whole number"),
        ("num_classes", np.array([3, 3]), "field 'num_classes' must be one whole number"),
        ("test_set", np.array(["a", "b"]), "field 'test_set' must be one string"),
        ("scores", np.full((2, 3, 3), "x"), "field 'scores' must hold numbers"),
        ("model_names", np.array(["a", "b"], dtype=object), "field 'model_names' is an object array"),
    ],
)
def test_predictions_npz_field_errors_name_the_field_not_delete(tmp_path, field, value, message):
    """Was: 'not a readable predictions file (JSONDecodeError ...); delete it and rerun to rebuild it'
    for a user's own file, or a bare "'int' object is not iterable"."""
    path = tmp_path / "mine.npz"
    np.savez(path, **(_GOOD_NPZ | {field: value}))
    with pytest.raises(PredictionsError, match=rf"^{path}: {message}") as err:
        load_predictions(path)
    assert "delete" not in str(err.value)
    np.savez(path, **_GOOD_NPZ)
    assert load_predictions(path).model_names == ("a", "b")


def test_damaged_predictions_npz_remedy_by_owner(tmp_path, monkeypatch):
    """A user's file is to be written again; only the workflow's own (under resources/) is deleted."""
    mine, ours = tmp_path / "mine.npz", tmp_path / "resources" / "predictions" / "user_x.npz"
    for path in (mine, ours):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"PK damaged")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PredictionsError, match="write it again with holdout.predictions.save_predictions$"):
        load_predictions(mine)
    with pytest.raises(PredictionsError, match="the workflow made it: delete it and rerun to rebuild it$"):
        load_predictions("resources/predictions/user_x.npz")


def test_stale_partial_of_a_killed_fetch_is_removed_by_the_next_fetch(tmp_path, caplog):
    """Was: a fetch killed mid-copy left a hidden .partial-* file for ever."""
    src = tmp_path / "mirror" / "f.bin"
    src.parent.mkdir()
    src.write_bytes(b"payload")
    dest = tmp_path / "raw" / "f.bin"
    dest.parent.mkdir()
    stale = dest.parent / ".f.bin.partial-999999"  # as left by a process killed mid-copy
    stale.write_bytes(b"pay")
    other = dest.parent / ".g.bin.partial-999999"  # another file's partial: not ours to remove
    other.write_bytes(b"x")
    with caplog.at_level(logging.WARNING):
        fetch(src, dest, "sha256:" + hashlib.sha256(b"payload").hexdigest())
    assert dest.read_bytes() == b"payload"
    assert not stale.exists()
    assert other.exists()
    assert "interrupted fetch" in caplog.text
    assert sorted(p.name for p in dest.parent.iterdir()) == [".g.bin.partial-999999", "f.bin"]
    assert remove_stale_partials(dest) == []


# ---------------------------------------------------------------------------
# library functions taking a count, a probability or an array
# ---------------------------------------------------------------------------


def test_clopper_pearson_refuses_a_fractional_count():
    """Was: clopper_pearson(2.5, 10) returned the interval for k = 2."""
    with pytest.raises(ValueError, match=r"k must be a whole number"):
        clopper_pearson(2.5, 10)
    with pytest.raises(ValueError, match=r"n must be a whole number"):
        clopper_pearson(2, 10.5)
    with pytest.raises(ValueError, match=r"k must be a whole number"):
        clopper_pearson(float("nan"), 10)
    with pytest.raises(ValueError, match="alpha"):
        clopper_pearson(2, 10, alpha=float("nan"))
    # whole numbers of any type still work, and give the same interval
    assert clopper_pearson(np.int64(2), 10.0) == clopper_pearson(2, 10)


def test_predictions_with_no_examples_are_refused():
    """Was: accepted, accuracies became NaN."""
    with pytest.raises(PredictionsError, match=r"no test examples \(n = 0\)"):
        Predictions.create(np.zeros((2, 0), dtype=int), np.zeros(0, dtype=int), ["a", "b"])


def test_predictions_refuse_infinite_values_and_too_many_classes():
    with pytest.raises(PredictionsError, match="NaN or infinity"):
        Predictions.create([[0.0, np.inf]], [0, 1], ["a"])
    with pytest.raises(PredictionsError, match="number of classes"):
        Predictions.create([[0, 1]], [0, 1], ["a"], num_classes=3_000_000_000)


def test_theorem2_refuses_nan_k():
    """Was: theorem2_probability(k=nan) returned NaN."""
    kw = {"n": 10_000, "cover_size": 3, "similarity": 0.9}
    for bad in (math.nan, math.inf, 0.5, True):
        with pytest.raises(ValueError, match=r"k \(number of models\)"):
            B.theorem2_probability(k=bad, eps=0.05, **kw)
        with pytest.raises(ValueError, match=r"k \(number of models\)"):
            B.theorem2_max_similarity(n=10_000, k=bad, cover_size=3, delta=0.05)
        with pytest.raises(ValueError, match=r"k \(number of models\)"):
            B.similarity_cover_eps(k=bad, delta=0.05, **kw)
    with pytest.raises(ValueError, match="delta"):
        B.similarity_cover_eps(k=10, delta=math.nan, **kw)  # was: a number
    assert B.theorem2_probability(k=2.5, eps=0.05, **kw) > 0  # real k stays allowed


def test_linear_fit_refuses_nan():
    """Was: a NaN gave a NaN line without an error."""
    with pytest.raises(ValueError, match=r"linear_fit: y has 1 NaN or infinite value\(s\), first at index 2"):
        linear_fit([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, np.nan, 4.0])
    with pytest.raises(ValueError, match=r"linear_fit: x has"):
        linear_fit([1.0, np.inf, 3.0], [1.0, 2.0, 3.0])
    fit = linear_fit([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 3.9])
    with pytest.raises(ValueError, match="level"):
        fit_band(fit, [1.0], level=float("nan"))


def test_covering_numbers_refuse_nan_similarity():
    """Was: a NaN similarity gave a number without an error."""
    sim = np.array([[1.0, 0.9], [0.9, 1.0]])
    err = np.array([0.1, 0.2])
    assert covering_numbers(sim, err, [0.5]).tolist() == [2]  # each extreme model covers itself
    sim[0, 1] = np.nan
    with pytest.raises(
        ValueError, match=r"similarity must lie in \[0, 1\]: 1 value\(s\) do not, first nan at \(0, 1\)"
    ):
        covering_numbers(sim, err, [0.5])
    with pytest.raises(ValueError, match="error_rates must lie in"):
        greedy_similarity_cover(np.eye(2), np.array([0.1, np.nan]), 0.5)
    with pytest.raises(ValueError, match="eta must lie in"):
        covering_numbers(np.eye(2), err, [np.nan])


def test_similarity_below_independent_errors_names_the_grid_key():
    """Was: failed inside the bounds job without naming bounds.figure2.similarity.start."""
    # error 0.244: independent-errors similarity 0.244^2 + 0.756^2 = 0.631
    with pytest.raises(ValueError, match=r"bounds\.figure2\.similarity\.start\) = 0\.6 is below .* 0\.631"):
        gain_grid(n=1000, error=0.244, similarities=[0.6, 0.7], eps_values=[0.01], delta=0.05)
    with pytest.raises(ValueError, match=r"setting \(config\) similarity = 0\.5 is below"):
        Setting(n=1000, mean_accuracy=0.7, similarity=0.5)
    with pytest.raises(ValueError, match=r"bounds\.table1\.rows\[0\] \(x\) mean_similarity = 0\.5 is below"):
        table1([{"name": "x", "n": 1000, "mean_accuracy": 0.7, "mean_similarity": 0.5}], eps=0.05, delta=0.05)


def test_rvw_refuses_fractional_counts():
    with pytest.raises(ValueError, match="whole number"):
        rvw_bound(0.1, 100, 2.5)
    with pytest.raises(ValueError, match="whole number"):
        index_bits(2.5)
    assert index_bits(np.int64(25)) == 5


def test_fetch_keeps_its_own_partial_name_pattern(tmp_path):
    """The cleanup matches exactly the names fetch writes (.<name>.partial-<pid>), even for names
    with glob characters."""
    dest = tmp_path / "a[1].bin"
    stale = tmp_path / f".a[1].bin.partial-{os.getpid() + 1}"
    stale.write_bytes(b"x")
    (tmp_path / ".a1.bin.partial-1").write_bytes(b"y")  # would match the unescaped pattern
    assert remove_stale_partials(dest) == [stale]
    assert (tmp_path / ".a1.bin.partial-1").exists()


def test_semicolon_separated_csv_gets_a_hint(tmp_path, labels_csv):
    preds = tmp_path / "p.csv"
    preds.write_text("a;b\n0;1\n1;1\n2;0\n")
    with pytest.raises(DataError, match=r"p\.csv: predictions must be numbers .*';'-separated"):
        convert_user_predictions(preds, labels_csv, test_set="t")


def test_rvw_description_with_a_duplicate_key_names_file_and_line(tmp_path):
    """PyYAML keeps the last of two equal keys: a part of a description would vanish silently."""
    from holdout.rvw.core import DescriptionError, description_length

    path = tmp_path / "d.yaml"
    path.write_text('name: x\nparts:\n  - english: "three short words"\nname: y\n')
    with pytest.raises(DescriptionError, match=r"d\.yaml: not valid YAML: key 'name' appears twice(.|\n)*line 4"):
        description_length(path)


def test_similarity_subsets_and_gains_refuse_fractional_counts():
    from holdout.bounds.study import count_testable_models
    from holdout.similarity.core import resolve_subset, summarize_similarity

    names, acc = ["a", "b", "c"], np.array([0.9, 0.8, 0.7])
    assert resolve_subset(names, acc, {"name": "t", "top": 2.0}) == ["a", "b"]
    with pytest.raises(ValueError, match=r"subset 't': top must be a whole number, got 2.5"):
        resolve_subset(names, acc, {"name": "t", "top": 2.5})
    with pytest.raises(ValueError, match=r"subset 'r': random must be a whole number"):
        resolve_subset(names, acc, {"name": "r", "random": float("nan")})
    with pytest.raises(ValueError, match=r"n \(test-set size\) must be a positive integer, got 2000.5"):
        count_testable_models(2000.5, 0.1, 0.95, 0.02, 0.05)
    errors = np.array([[1, 0, 0, 1], [0, 0, 1, 1]], dtype=bool)
    with pytest.raises(ValueError, match="similarity must lie in"):
        summarize_similarity(errors, similarity=np.array([[1.0, np.nan], [np.nan, 1.0]]))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a,b,\n0,1,\n1,1,\n2,0,\n", "empty model name in the header .*a comma at the end of each line"),
        ("a,b\n0,1\n-1,1\n2,0\n", r"predictions out of range \[0, 3\): min -1, max 2 \(1 negative: an abstention\?"),
        (
            "a,b\ncat,dog\ndog,dog\nfox,cat\n",
            "predictions must be numbers .*; class names\\? write both files as class indices",
        ),
    ],
)
def test_predictions_csv_as_users_write_them_say_what_to_do(tmp_path, labels_csv, text, message):
    """Was: 'empty model name in the header', 'out of range', 'must be numbers' without a hint."""
    (tmp_path / "p.csv").write_text(text)
    with pytest.raises(DataError, match=rf"p\.csv: {message}"):
        convert_user_predictions(tmp_path / "p.csv", labels_csv, test_set="t")


def test_damaged_labels_name_the_labels_file(tmp_path):
    """Was: 'CIFAR-10.1 predictions (cifar10_1_v4): labels out of range' (the set, not the file)."""
    from holdout.data.core import convert_cifar10_1_predictions, imagenet_labels

    (tmp_path / "m_predictions.json").write_text("[0, 1, 2]")
    labels = tmp_path / "cifar10.1_v4_labels.npy"
    with pytest.raises(DataError, match=rf"^{labels}: class id 12 at position 1 is outside 0..9"):
        convert_cifar10_1_predictions(
            {"m": tmp_path / "m_predictions.json"}, np.array([0, 12, 2]), test_set="v4", labels_source=str(labels)
        )
    info = tmp_path / "class_info.json"
    info.write_text('[{"wnid": "n0", "cid": 0}, {"wnid": "n1", "cid": 1000}]')
    (tmp_path / "d.json").write_text('{"image_filenames": [["a.jpeg", "n0"], ["b.jpeg", "n1"]]}')
    with pytest.raises(DataError, match=rf"^{info}: class id 1000 of n1 is outside 0..999"):
        imagenet_labels(tmp_path / "d.json", info)
    (tmp_path / "d.json").write_text('{"image_filenames": ["a.jpeg"]}')
    info.write_text('[{"wnid": "n0", "cid": 0}]')
    with pytest.raises(DataError, match="d.json: 'image_filenames' must hold"):
        imagenet_labels(tmp_path / "d.json", info)
