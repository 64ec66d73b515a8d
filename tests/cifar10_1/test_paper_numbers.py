"""Recht et al. (2018) Tables 1, 4, 5 and Eq. (3) reproduced from the published predictions.

The paper's printed tables are copied below verbatim (model, then the columns). The v4/v6
columns need only the mirror; the original-test-set columns need the CIFAR-10 archive, which the
mirror holds (a mirror without it fails those tests rather than skipping them).
"""

from __future__ import annotations

import math
import re
import tarfile

import numpy as np
import pytest
from small_configs import read_yaml

from holdout.cifar10_1.recht import accuracy_table, delta_rank, linear_fit, table1, table4, table5
from holdout.data.core import _read_batch, convert_cifar10_1_predictions

ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
NO_ARCHIVE = "CIFAR-10 archive missing from the mirror (../shared/data/cifar-10/cifar-10-python.tar.gz)"

# Table 1: Original Accuracy | New Accuracy | Gap | Delta Rank
PAPER_TABLE1 = """
shake_shake_64d_cutout 97.1 [96.8, 97.4] 93.0 [91.8, 94.0] 4.1 0
shake_shake_96d 97.1 [96.7, 97.4] 91.9 [90.7, 93.1] 5.1 -2
shake_shake_64d 97.0 [96.6, 97.3] 91.4 [90.1, 92.6] 5.6 -2
wide_resnet_28_10_cutout 97.0 [96.6, 97.3] 92.0 [90.7, 93.1] 5 +1
shake_drop 96.9 [96.5, 97.2] 92.3 [91.0, 93.4] 4.6 +3
shake_shake_32d 96.6 [96.2, 96.9] 89.8 [88.4, 91.1] 6.8 -2
darc 96.6 [96.2, 96.9] 89.5 [88.1, 90.8] 7.1 -4
resnext_29_4x64d 96.4 [96.0, 96.7] 89.6 [88.2, 90.9] 6.8 -2
pyramidnet_basic_110_270 96.3 [96.0, 96.7] 90.5 [89.1, 91.7] 5.9 +3
resnext_29_8x64d 96.2 [95.8, 96.6] 90.0 [88.6, 91.2] 6.3 +3
wide_resnet_28_10 95.9 [95.5, 96.3] 89.7 [88.3, 91.0] 6.2 +2
pyramidnet_basic_110_84 95.7 [95.3, 96.1] 89.3 [87.8, 90.6] 6.5 0
densenet_BC_100_12 95.5 [95.1, 95.9] 87.6 [86.1, 89.0] 8 -2
neural_architecture_search 95.4 [95.0, 95.8] 88.8 [87.4, 90.2] 6.6 +1
wide_resnet_tf 95.0 [94.6, 95.4] 88.5 [87.0, 89.9] 6.5 +1
resnet_v2_bottleneck_164 94.2 [93.7, 94.6] 85.9 [84.3, 87.4] 8.3 -1
vgg16_keras 93.6 [93.1, 94.1] 85.3 [83.6, 86.8] 8.3 -1
resnet_basic_110 93.5 [93.0, 93.9] 85.2 [83.5, 86.7] 8.3 -1
resnet_v2_basic_110 93.4 [92.9, 93.9] 86.5 [84.9, 88.0] 6.9 +3
resnet_basic_56 93.3 [92.8, 93.8] 85.0 [83.3, 86.5] 8.3 0
resnet_basic_44 93.0 [92.5, 93.5] 84.2 [82.6, 85.8] 8.8 -3
vgg_15_BN_64 93.0 [92.5, 93.5] 84.9 [83.2, 86.4] 8.1 +1
resnet_preact_tf 92.7 [92.2, 93.2] 84.4 [82.7, 85.9] 8.3 0
resnet_basic_32 92.5 [92.0, 93.0] 84.9 [83.2, 86.4] 7.7 +3
cudaconvnet 88.5 [87.9, 89.2] 77.5 [75.7, 79.3] 11 0
random_features_256k_aug 85.6 [84.9, 86.3] 73.1 [71.1, 75.1] 12 0
random_features_32k_aug 85.0 [84.3, 85.7] 71.9 [69.9, 73.9] 13 0
random_features_256k 84.2 [83.5, 84.9] 69.9 [67.8, 71.9] 14 0
random_features_32k 83.3 [82.6, 84.0] 67.9 [65.9, 70.0] 15 -1
alexnet_tf 82.0 [81.2, 82.7] 68.9 [66.8, 70.9] 13 +1
"""

# Table 4: Original Error | New Error | Error Ratio (intervals printed [high, low])
PAPER_TABLE4 = """
shake_shake_64d_cutout 2.9 [3.2, 2.6] 7.0 [8.2, 6.0] 2.4
shake_shake_96d 2.9 [3.3, 2.6] 8.1 [9.3, 6.9] 2.8
shake_shake_64d 3.0 [3.4, 2.7] 8.6 [9.9, 7.4] 2.8
wide_resnet_28_10_cutout 3.0 [3.4, 2.7] 8.0 [9.3, 6.9] 2.6
shake_drop 3.1 [3.5, 2.8] 7.7 [9.0, 6.6] 2.5
shake_shake_32d 3.4 [3.8, 3.1] 10.2 [11.6, 8.9] 3
darc 3.4 [3.8, 3.1] 10.5 [11.9, 9.2] 3.1
resnext_29_4x64d 3.6 [4.0, 3.3] 10.4 [11.8, 9.1] 2.9
pyramidnet_basic_110_270 3.7 [4.0, 3.3] 9.5 [10.9, 8.3] 2.6
resnext_29_8x64d 3.8 [4.2, 3.4] 10.0 [11.4, 8.8] 2.7
wide_resnet_28_10 4.1 [4.5, 3.7] 10.3 [11.7, 9.0] 2.5
pyramidnet_basic_110_84 4.3 [4.7, 3.9] 10.7 [12.2, 9.4] 2.5
densenet_BC_100_12 4.5 [4.9, 4.1] 12.4 [13.9, 11.0] 2.8
neural_architecture_search 4.6 [5.0, 4.2] 11.2 [12.6, 9.8] 2.4
wide_resnet_tf 5.0 [5.4, 4.6] 11.5 [13.0, 10.1] 2.3
resnet_v2_bottleneck_164 5.8 [6.3, 5.4] 14.1 [15.7, 12.6] 2.4
vgg16_keras 6.4 [6.9, 5.9] 14.7 [16.4, 13.2] 2.3
resnet_basic_110 6.5 [7.0, 6.1] 14.8 [16.5, 13.3] 2.3
resnet_v2_basic_110 6.6 [7.1, 6.1] 13.5 [15.1, 12.0] 2
resnet_basic_56 6.7 [7.2, 6.2] 15.0 [16.7, 13.5] 2.2
resnet_basic_44 7.0 [7.5, 6.5] 15.8 [17.4, 14.2] 2.3
vgg_15_BN_64 7.0 [7.5, 6.5] 15.1 [16.8, 13.6] 2.2
resnet_preact_tf 7.3 [7.8, 6.8] 15.6 [17.3, 14.1] 2.1
resnet_basic_32 7.5 [8.0, 7.0] 15.1 [16.8, 13.6] 2
cudaconvnet 11.5 [12.1, 10.8] 22.5 [24.3, 20.7] 2
random_features_256k_aug 14.4 [15.1, 13.7] 26.9 [28.9, 24.9] 1.9
random_features_32k_aug 15.0 [15.7, 14.3] 28.1 [30.1, 26.1] 1.9
random_features_256k 15.8 [16.5, 15.1] 30.1 [32.2, 28.1] 1.9
random_features_32k 16.7 [17.4, 16.0] 32.1 [34.1, 30.0] 1.9
alexnet_tf 18.0 [18.8, 17.3] 31.1 [33.2, 29.1] 1.7
"""

# Table 5: Original Accuracy | New Accuracy (v6, intervals as printed) | Gap | Delta Acc
PAPER_TABLE5 = """
shake_shake_64d_cutout 97.1 [96.8, 97.4] 93.1 [90.9, 93.3] 4 0.13
shake_shake_96d 97.1 [96.7, 97.4] 92.0 [89.7, 92.2] 5.1 0.015
shake_shake_64d 97.0 [96.6, 97.3] 91.9 [89.6, 92.2] 5.1 0.46
wide_resnet_28_10_cutout 97.0 [96.6, 97.3] 92.1 [89.8, 92.3] 4.9 0.12
shake_drop 96.9 [96.5, 97.2] 92.3 [90.0, 92.5] 4.6 0.019
shake_shake_32d 96.6 [96.2, 96.9] 90.0 [87.6, 90.4] 6.6 0.19
darc 96.6 [96.2, 96.9] 89.9 [87.5, 90.3] 6.7 0.39
resnext_29_4x64d 96.4 [96.0, 96.7] 90.1 [87.8, 90.5] 6.2 0.54
pyramidnet_basic_110_270 96.3 [96.0, 96.7] 90.5 [88.1, 90.9] 5.8 0.05
resnext_29_8x64d 96.2 [95.8, 96.6] 90.1 [87.7, 90.5] 6.1 0.14
wide_resnet_28_10 95.9 [95.5, 96.3] 90.1 [87.8, 90.5] 5.8 0.44
pyramidnet_basic_110_84 95.7 [95.3, 96.1] 89.6 [87.2, 90.0] 6.1 0.34
densenet_BC_100_12 95.5 [95.1, 95.9] 87.9 [85.4, 88.4] 7.6 0.32
neural_architecture_search 95.4 [95.0, 95.8] 89.2 [86.8, 89.6] 6.2 0.38
wide_resnet_tf 95.0 [94.6, 95.4] 88.8 [86.4, 89.3] 6.2 0.33
resnet_v2_bottleneck_164 94.2 [93.7, 94.6] 86.1 [83.6, 86.7] 8.1 0.2
vgg16_keras 93.6 [93.1, 94.1] 85.6 [83.1, 86.3] 8 0.35
resnet_basic_110 93.5 [93.0, 93.9] 85.4 [82.9, 86.1] 8.1 0.24
resnet_v2_basic_110 93.4 [92.9, 93.9] 86.9 [84.4, 87.5] 6.5 0.41
resnet_basic_56 93.3 [92.8, 93.8] 84.9 [82.3, 85.5] 8.5 -0.11
resnet_basic_44 93.0 [92.5, 93.5] 84.8 [82.2, 85.5] 8.2 0.58
vgg_15_BN_64 93.0 [92.5, 93.5] 85.0 [82.5, 85.7] 7.9 0.19
resnet_preact_tf 92.7 [92.2, 93.2] 85.1 [82.6, 85.8] 7.6 0.74
resnet_basic_32 92.5 [92.0, 93.0] 85.2 [82.7, 85.9] 7.3 0.34
cudaconvnet 88.5 [87.9, 89.2] 78.2 [75.5, 79.2] 10 0.66
random_features_256k_aug 85.6 [84.9, 86.3] 73.6 [70.8, 74.8] 12 0.47
random_features_32k_aug 85.0 [84.3, 85.7] 72.2 [69.4, 73.4] 13 0.26
random_features_256k 84.2 [83.5, 84.9] 70.5 [67.7, 71.7] 14 0.58
random_features_32k 83.3 [82.6, 84.0] 68.7 [65.9, 70.0] 15 0.76
alexnet_tf 82.0 [81.2, 82.7] 69.2 [66.4, 70.5] 13 0.32
"""

_ROW = re.compile(r"^(\S+) (\S+) \[(\S+), (\S+)\] (\S+) \[(\S+), (\S+)\] (\S+)(?: (\S+))?$")


def _parse(text):
    rows = {}
    for line in text.strip().splitlines():
        m = _ROW.match(line)
        assert m, line
        rows[m.group(1)] = [float(v) for v in m.groups()[1:] if v is not None]
    return rows


T1, T4, T5 = _parse(PAPER_TABLE1), _parse(PAPER_TABLE4), _parse(PAPER_TABLE5)


def _digits(x):
    return f"{x:.1f}"


def _printed_tolerance(printed: float) -> float:
    """Half a unit of the paper's last printed digit (two significant digits for gap, ratio, Delta)."""
    if printed == 0:
        return 0.005
    return 0.5 * 10 ** (math.floor(math.log10(abs(printed))) - 1) + 1e-9


def _original_test_labels(archive, cache):
    """The 10,000 test labels of the CIFAR-10 archive: its test batch alone, read as
    holdout.data.core.load_cifar10 reads it. Decompressing the 188 MB archive takes 2 CPU-seconds,
    so the labels are kept in pytest's cache (``.pytest_cache``), keyed by the archive's size and
    modification time; tests/data/test_cifar10.py tests the reader itself."""
    stat = archive.stat()
    key = f"holdout/cifar10_test_labels/{stat.st_size}-{stat.st_mtime_ns}"
    cached = cache.get(key, None) if cache is not None else None
    if isinstance(cached, list) and len(cached) == 10_000:
        return np.asarray(cached, dtype=np.int64)
    with tarfile.open(archive, "r:*") as tar:
        labels = _read_batch(tar, "test_batch", archive)[1]
    if cache is not None:
        cache.set(key, labels.tolist())
    return labels


@pytest.fixture(scope="module")
def sets(shared_data, repo, request):
    cfg = read_yaml(repo / "config" / "config.yaml")["data"]["cifar10_1_models"]

    def build(split, labels):
        files = {
            paper: shared_data / f"CIFAR-10.1/model_predictions/{split}_predictions/{f}_predictions.json"
            for f, paper in cfg.items()
        }
        return accuracy_table(convert_cifar10_1_predictions(files, labels, test_set=split, labels_source="labels"))

    out = {v: build(v, np.load(shared_data / f"CIFAR-10.1/datasets/cifar10.1_{v}_labels.npy")) for v in ("v4", "v6")}
    if (shared_data / ARCHIVE).is_file():
        out["original"] = build(
            "original", _original_test_labels(shared_data / ARCHIVE, getattr(request.config, "cache", None))
        )
    return out


def _need_original(sets):
    if "original" not in sets:
        pytest.fail(NO_ARCHIVE)
    return sets["original"]


def test_table1_new_accuracy_all_30_rows(sets):
    """Recht et al. Table 1, "New Accuracy" (v4, 95% Clopper-Pearson), all 30 rows to the printed digit,
    e.g. shake_shake_64d_cutout 93.0 [91.8, 94.0]."""
    v4 = sets["v4"].set_index("model")
    assert set(v4.index) == set(T1)
    for model, row in T1.items():
        ours = [_digits(v4.loc[model, c]) for c in ("accuracy", "ci_low", "ci_high")]
        assert ours == [_digits(v) for v in row[3:6]], model
    assert (v4["n"] == 2021).all()


def test_table1_delta_rank_given_the_papers_original_order(sets):
    """Recht et al. Table 1 "Delta Rank", all 30 rows: with the paper's original ranking (its row
    order) and our v4 accuracies, the rank changes equal the paper's (ties share the best rank)."""
    v4 = sets["v4"].set_index("model").loc[list(T1)]
    paper_order_score = -np.arange(len(T1))
    assert delta_rank(paper_order_score, v4["correct"]).tolist() == [int(r[7]) for r in T1.values()]


def test_table5_v6_accuracy_and_delta_acc_all_30_rows(sets):
    """Recht et al. Table 5: v6 accuracy (printed digit) and Delta Acc = v6 - v4 (two significant
    digits as printed, e.g. shake_shake_64d_cutout 93.1 and 0.13), all 30 rows."""
    t5 = table5(sets["v4"], sets["v6"]).set_index("model")
    for model, row in T5.items():
        assert _digits(t5.loc[model, "v6_accuracy"]) == _digits(row[3]), model
        assert abs(t5.loc[model, "delta_acc"] - row[7]) <= _printed_tolerance(row[7]), model
    assert (t5["v6_n"] == 2000).all()


def test_table5_paper_intervals_were_computed_with_n_2021(sets):
    """Recht et al. Table 5 prints v6 intervals that equal Clopper-Pearson of the v6 count with
    n = 2,021 (all 30 rows), not n = 2,000; ours are the n = 2,000 ones and differ."""
    t5 = table5(sets["v4"], sets["v6"]).set_index("model")
    for model, row in T5.items():
        paper = [_digits(row[4]), _digits(row[5])]
        assert [_digits(t5.loc[model, "paper_style_ci_low"]), _digits(t5.loc[model, "paper_style_ci_high"])] == paper
        assert [_digits(t5.loc[model, "v6_ci_low"]), _digits(t5.loc[model, "v6_ci_high"])] != paper
    # shake_shake_64d_cutout: correct interval 93.1 [91.9, 94.2]
    assert [_digits(t5.loc["shake_shake_64d_cutout", c]) for c in ("v6_ci_low", "v6_ci_high")] == ["91.9", "94.2"]


def test_table1_original_columns_all_30_rows(sets):
    """Recht et al. Table 1: original accuracy [95% CI], gap, Delta Rank and row order, all 30 rows
    (e.g. shake_shake_64d_cutout 97.1 [96.8, 97.4], gap 4.1)."""
    t1 = table1(_need_original(sets), sets["v4"])
    assert t1["model"].tolist() == list(T1)
    t1 = t1.set_index("model")
    for model, row in T1.items():
        ours = [_digits(t1.loc[model, c]) for c in ("orig_accuracy", "orig_ci_low", "orig_ci_high")]
        assert ours == [_digits(v) for v in row[0:3]], model
        assert abs(t1.loc[model, "gap"] - row[6]) <= _printed_tolerance(row[6]), model
        assert int(t1.loc[model, "delta_rank"]) == int(row[7]), model


def test_table4_all_30_rows(sets):
    """Recht et al. Table 4: original and new error with intervals and the error ratio, all 30 rows
    (e.g. shake_shake_64d_cutout 2.9 [3.2, 2.6], 7.0 [8.2, 6.0], ratio 2.4)."""
    t4 = table4(table1(_need_original(sets), sets["v4"])).set_index("model")
    for model, row in T4.items():
        for i, side in ((0, "orig"), (3, "new")):
            ours = [
                _digits(t4.loc[model, c]) for c in (f"{side}_error", f"{side}_error_ci_high", f"{side}_error_ci_low")
            ]
            assert ours == [_digits(v) for v in row[i : i + 3]], (model, side)
        assert abs(t4.loc[model, "error_ratio"] - row[6]) <= _printed_tolerance(row[6]), model


def test_table5_original_columns_and_gap(sets):
    """Recht et al. Table 5: original accuracy [95% CI] and gap (original - v6), all 30 rows."""
    t5 = table5(sets["v4"], sets["v6"], _need_original(sets)).set_index("model")
    for model, row in T5.items():
        assert [_digits(t5.loc[model, c]) for c in ("orig_accuracy", "orig_ci_low", "orig_ci_high")] == [
            _digits(v) for v in row[0:3]
        ], model
        assert abs(t5.loc[model, "gap"] - row[6]) <= _printed_tolerance(row[6]), model


def test_linear_fit_eq3(sets):
    """Recht et al. Eq. (3): acc_new = (1.62 +- 0.04) acc_orig - 65.51% +- 3.16%.

    Slope and intercept are pinned to the printed digits (intercept to 0.05). The standard
    errors are only checked to be of the paper's size (within a factor 1.5): an ordinary
    least-squares fit to the paper's own rounded Table 1 numbers gives 0.032 and 3.02, so the
    paper's 0.04 / 3.16 may come from a method it does not describe (see README)."""
    t1 = table1(_need_original(sets), sets["v4"])
    fit = linear_fit(t1["orig_accuracy"], t1["new_accuracy"])
    assert round(fit.slope, 2) == 1.62
    assert abs(fit.intercept - (-65.51)) <= 0.05
    assert 0.04 / 1.5 <= fit.slope_se <= 0.04 * 1.5
    assert 3.16 / 1.5 <= fit.intercept_se <= 3.16 * 1.5


def test_linear_fit_eq3_standard_errors_numpy_before_1_16(sets):
    """Recht et al. Eq. (3), "-65.51% ± 3.16%": the intercept's standard error is the OLS one scaled
    as numpy.polyfit(cov=True) did before numpy 1.16 (numpy PR 11197, 2018): residual variance over
    n - 4 instead of n - 2 degrees of freedom. The slope's 0.04 is not reproduced that way (0.034)
    nor by plain OLS (0.033): it matches only when rounded up."""
    t1 = table1(_need_original(sets), sets["v4"])
    fit = linear_fit(t1["orig_accuracy"], t1["new_accuracy"])
    old_numpy = math.sqrt((fit.n - 2) / (fit.n - 4))
    assert f"{fit.intercept_se * old_numpy:.2f}" == "3.16"
    assert f"{fit.intercept_se:.2f}" == "3.04"
    assert f"{fit.slope_se * old_numpy:.3f}" == "0.034" and math.ceil(fit.slope_se * old_numpy * 100) / 100 == 0.04
