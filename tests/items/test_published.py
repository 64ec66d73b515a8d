"""The published reviews as read from the mirror, and the screen's checks on them against the results file.

Sources: Northcutt, Athalye & Mueller (2021), labelerrors.com / github.com/cleanlab/label-errors: 275 CIFAR-10
test images reviewed by crowd workers, 54 errors; Gema et al. (2024), MMLU-Redux 2.0 (arXiv 2406.04127):
100 items per subject, 29 subjects here, 20 HELM models; Vendrow et al. (2025), the Platinum benchmarks:
every item shown passed a hand review.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from holdout.items import METHODS, answer_groups, encode_answers, published, screen_items
from holdout.items.evaluate import alternative_aucs, leaderboard_summary, measured_precision, review_metrics

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "itemquality" / "results"


def _metrics(rs):
    kw = dict(items=rs.items, num_classes=rs.num_classes, texts=rs.texts, duplicate_keys=rs.duplicate_keys)
    screen = screen_items(rs.answers, rs.key, rs.models, **kw)
    m = encode_answers(rs.answers, rs.key, rs.models, num_classes=rs.num_classes)
    g = answer_groups(m)
    out = review_metrics(rs, screen, {name: fn(m, g) for name, fn in METHODS.items()}, m.codes)
    if rs.wrong.any():
        out["alternatives"] = alternative_aucs(rs, m, g, screen.discrimination)
    if rs.name != "platinum":  # as benchmarks/itemquality/published_checks.py
        out["leaderboard"] = leaderboard_summary(m.codes[:-1] == m.codes[-1], rs.models, screen.flagged)
    return out


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return b is None  # the file writes NaN as null
    if isinstance(a, float) or isinstance(b, float):
        return b is not None and abs(a - b) < 1e-9
    return a == b


@pytest.fixture(scope="module")
def results_file() -> dict:
    latest = sorted(RESULTS.glob("*.json"))[-1]
    return json.loads(latest.read_text())


def test_cifar10_review_as_published(shared_data):
    rs = published.cifar10_label_errors(shared_data)
    assert rs.answers.shape == (30, 10_000)  # Recht et al. (2018): 30 models' predictions
    assert (rs.wrong | rs.fine).sum() == 275 and rs.wrong.sum() == 54  # Northcutt et al. (2021)
    assert rs.notes == ()


@pytest.mark.slow
def test_cifar10_checks_as_in_the_results_file(shared_data, results_file):
    rs = published.cifar10_label_errors(shared_data)
    assert _same(_metrics(rs), results_file["reviewed"]["cifar10"])


def test_mmlu_redux_review_as_published(shared_data):
    rs = published.mmlu_redux(shared_data)
    assert rs.answers.shape == (20, 2_900) and len({i.split("/")[0] for i in rs.items}) == 29
    assert rs.wrong.sum() == 47 and rs.fine.sum() == 2_738  # experts' error_type, normalised
    assert any("19 of 31 groups hold a single item" in n for n in rs.notes)
    assert any("2 wrong_groundtruth items have no experts' answer" in n for n in rs.notes)


@pytest.mark.slow
def test_mmlu_redux_checks_as_in_the_results_file(shared_data, results_file):
    rs = published.mmlu_redux(shared_data)
    got = _metrics(rs)
    assert _same(got, results_file["reviewed"]["mmlu_redux"])
    assert got["agreement_flagged_wrong"] >= 0.85  # the target: proposed = experts' answer on flagged wrong keys


def test_platinum_control_as_published(shared_data):
    rs = published.platinum(shared_data)
    assert rs.answers.shape[1] == 882 and rs.fine.all() and rs.notes == ()


@pytest.mark.slow
def test_platinum_control_flags_nothing(shared_data, results_file):
    rs = published.platinum(shared_data)
    got = _metrics(rs)
    assert got["flagged_suspect_key"] == 0
    assert _same(got, results_file["reviewed"]["platinum"])


@pytest.mark.slow
def test_imagenet_testbed_flags_as_in_the_results_file(shared_data, results_file):
    """The 67 models of the ImageNetV2 testbed (Recht et al. 2019) on the 50,000 validation images."""
    from holdout.data.core import convert_imagenet_testbed

    root = shared_data / "ImageNetV2/data"
    files = {p.stem: p for p in sorted((root / "predictions/imagenet-validation-original").glob("*.npy"))}
    preds = convert_imagenet_testbed(
        files, root / "datasets/imagenet-validation-original.json", root / "metadata/class_info.json", test_set="val"
    )
    screen = screen_items(preds.predictions, preds.labels, preds.model_names, num_classes=1000)
    want = results_file["imagenet_testbed"]
    assert (want["models"], want["items"]) == (67, 50_000)
    assert (screen.flag == "suspect_key").sum() == want["flagged_suspect_key"]
    assert (screen.flag == "negative_discrimination").sum() == want["flagged_negative_discrimination"]
    board = leaderboard_summary(preds.predictions == preds.labels, preds.model_names, screen.flagged)
    assert _same(board, want["leaderboard"])


def test_the_precision_the_audit_quotes_is_the_results_file(results_file):
    quoted = measured_precision()
    assert quoted["date"] == results_file["date"] and quoted["machine"] == results_file["machine"]
    for name, numbers in quoted["reviewed"].items():
        assert all(_same(v, results_file["reviewed"][name][k]) for k, v in numbers.items()), name


@pytest.mark.slow
def test_cifar10_review_labels_are_the_test_set_labels(shared_data):
    """cleanlab's original labels are the CIFAR-10 test labels of the mirror's archive (Krizhevsky 2009)."""
    from holdout.data.core import load_cifar10

    rs = published.cifar10_label_errors(shared_data)
    test = load_cifar10(shared_data / "cifar-10" / "cifar-10-python.tar.gz")
    assert (rs.key == test.test_labels).all()
