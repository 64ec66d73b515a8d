"""holdout.training.search: Mania et al. (2019) Appendix D, Table 2 -- the sampler and the row -> config mapping."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from holdout.training.search import (
    CONDITIONS,
    DISCRETE,
    INTERVALS,
    TABLE2_COLUMNS,
    SearchScale,
    row_to_configs,
    row_to_record,
    sample_configs,
    scaled_decay_points,
)

N_DRAWS = 20_000
ALPHA = 1e-3  # per-marginal level; the draws are seeded, so the test is deterministic


@pytest.fixture(scope="module")
def draws() -> pd.DataFrame:
    return sample_configs(N_DRAWS, seed=2019)


def _drawn(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in CONDITIONS:
        return df[col]
    switch, values = CONDITIONS[col]
    on = np.logical_or.reduce([df[c].isin(values).to_numpy() for c in switch.split("|")])
    assert df.loc[~on, col].isna().all(), f"{col} drawn although its switch is off"
    assert df.loc[on, col].notna().all(), f"{col} missing although its switch is on"
    return df.loc[on, col]


def test_columns_are_the_table2_rows_in_snake_case(draws):
    assert list(draws.columns) == ["model", *TABLE2_COLUMNS]
    assert len(TABLE2_COLUMNS) == 29  # the 29 rows of Table 2
    assert set(DISCRETE) | set(INTERVALS) == set(TABLE2_COLUMNS)
    assert list(draws["model"][:3]) == ["m000", "m001", "m002"]


@pytest.mark.parametrize("col", sorted(DISCRETE))
def test_discrete_marginals_are_uniform_chi_square(draws, col):
    values = _drawn(draws, col)
    choices = DISCRETE[col]
    counts = values.value_counts()
    assert set(counts.index) == set(choices), f"{col}: values {sorted(map(str, counts.index))}"
    observed = np.array([counts[c] for c in choices])
    p = stats.chisquare(observed).pvalue
    assert p > ALPHA, f"{col}: chi-square p = {p:.2e}, counts {observed}"


@pytest.mark.parametrize("col", sorted(INTERVALS))
def test_interval_marginals_are_uniform_kolmogorov_smirnov(draws, col):
    values = _drawn(draws, col).astype(float).to_numpy()
    lo, hi = INTERVALS[col]
    if col == "weight_decay":  # 10 ** U[-5, -1]: uniform on the log scale
        values = np.log10(values)
    assert values.min() >= lo and values.max() <= hi
    p = stats.kstest(values, stats.uniform(loc=lo, scale=hi - lo).cdf).pvalue
    assert p > ALPHA, f"{col}: KS p = {p:.2e}"


@pytest.mark.parametrize("col", sorted(CONDITIONS))
def test_conditional_parameters_appear_exactly_with_their_switch(draws, col):
    k = len(_drawn(draws, col))
    switch = CONDITIONS[col][0]
    # P(switch on): optimizer 1/4 per value, schedule 1/2, booleans 1/2, cutout-or-dual 3/4
    prob = {"optimizer": 0.25, "use_cutout|use_dual_cutout_augmentation": 0.75}.get(switch, 0.5)
    assert stats.binomtest(k, N_DRAWS, prob).pvalue > ALPHA


def test_the_marginal_tests_detect_a_wrong_distribution():
    """The same chi-square / KS checks reject an interval momentum and a non-log weight decay."""
    rng = np.random.default_rng(0)
    wrong_wd = np.log10(rng.uniform(1e-5, 1e-1, N_DRAWS))
    assert stats.kstest(wrong_wd, stats.uniform(loc=-5, scale=4).cdf).pvalue < ALPHA
    skewed = rng.choice([4, 8, 16, 32], N_DRAWS, p=[0.28, 0.24, 0.24, 0.24])
    assert stats.chisquare(np.bincount(np.searchsorted([4, 8, 16, 32], skewed))).pvalue < ALPHA


def test_prefix_property_and_seeding():
    a, b = sample_configs(50, 7), sample_configs(20, 7)
    pd.testing.assert_frame_equal(a.iloc[:20], b)
    assert not sample_configs(20, 8).equals(b)
    with pytest.raises(ValueError):
        sample_configs(-1, 0)


def _row(**over):
    row = {c: None for c in TABLE2_COLUMNS}
    row.update(
        model="m007",
        number_of_base_channels=32,
        residual_block_type="bottleneck",
        remove_relu_before_residual_units=True,
        add_batchnorm_after_last_convolutions=False,
        preactivation_of_shortcuts_after_downsampling=False,
        batch_size=64,
        base_learning_rate=0.2,
        weight_decay=3e-4,
        use_weight_decay_with_batch_norm=False,
        optimizer="momentum",
        momentum=0.99,
        learning_rate_schedule="fixed_decay",
        learning_rate_decay_point_1=60,
        learning_rate_decay_point_2=180,
        use_random_crops=True,
        random_crop_padding=8,
        use_horizontal_flips=False,
        use_cutout=True,
        cutout_size=12,
        use_dual_cutout_augmentation=True,
        dual_cutout_alpha=0.2,
        use_random_erasing=True,
        random_erasing_probability=0.7,
        use_mixup_data_augmentation=True,
        mixup_alpha=1.3,
        use_label_smoothing=True,
        label_smoothing_epsilon=0.05,
    )
    row.update(over)
    return row


def test_row_to_configs_maps_every_table2_row():
    model, train = row_to_configs(_row())
    assert (model.depth, model.block_type, model.base_channels) == (110, "bottleneck", 32)
    assert model.remove_first_relu and not model.add_last_bn and model.preact_stage == (True, False, False)
    assert (train.epochs, train.batch_size, train.base_lr, train.weight_decay) == (200, 64, 0.2, 3e-4)
    assert train.optimizer == "momentum" and train.momentum == 0.99 and not train.weight_decay_bn
    assert train.scheduler == "multistep" and train.milestones == (60, 180) and train.lr_min_factor == 0.0
    a = train.augment
    assert a.random_crop and a.crop_padding == 8 and not a.horizontal_flip
    assert a.cutout and a.dual_cutout and a.cutout_size == 12 and a.dual_cutout_alpha == 0.2
    assert a.random_erasing and a.erasing_prob == 0.7 and a.mixup and a.mixup_alpha == 1.3
    assert a.label_smoothing and a.label_smoothing_epsilon == 0.05 and a.window is None


def test_row_to_configs_defaults_where_table2_is_silent_or_switched_off():
    row = _row(
        optimizer="nesterov",
        momentum=None,
        learning_rate_schedule="cosine",
        learning_rate_decay_point_1=None,
        learning_rate_decay_point_2=None,
        preactivation_of_shortcuts_after_downsampling=True,
        use_cutout=False,
        use_dual_cutout_augmentation=False,
        cutout_size=None,
        dual_cutout_alpha=None,
        use_random_crops=False,
        random_crop_padding=None,
    )
    model, train = row_to_configs(row)
    assert model.preact_stage == (True, True, True)
    assert (
        train.optimizer == "nesterov" and train.momentum == 0.9
    )  # hysts' default, Table 2 samples it for "momentum" only
    assert train.scheduler == "cosine" and train.lr_min_factor == 0.0
    assert not train.augment.cutout and not train.augment.dual_cutout and not train.augment.random_crop
    _, adam = row_to_configs(_row(optimizer="adam", momentum=None, adam_beta1=0.85, adam_beta2=0.95))
    assert adam.adam_betas == (0.85, 0.95)
    with pytest.raises(ValueError, match="momentum is missing"):
        row_to_configs(_row(momentum=None))


def test_scale_overrides_depth_width_and_rescale_decay_points():
    scale = SearchScale(depth=8, depth_bottleneck=11, max_base_channels=8, epochs=4)
    model, train = row_to_configs(_row(), scale)
    assert (model.depth, model.base_channels, train.epochs) == (11, 8, 4)
    assert train.milestones == (1, 4)  # 60 / 200 * 4 = 1.2 -> 1; 180 / 200 * 4 = 3.6 -> 4
    basic, _ = row_to_configs(_row(residual_block_type="basic", number_of_base_channels=4), scale)
    assert (basic.depth, basic.base_channels) == (8, 4)
    assert scaled_decay_points(100, 120, 4) == (2, 3)  # 2 and 2.4 -> 2: point 2 pushed past point 1
    assert scaled_decay_points(40, 180, 200) == (40, 180)
    with pytest.raises(ValueError):
        SearchScale(max_base_channels=2)


def test_rows_survive_the_csv_round_trip(draws):
    table = draws.iloc[:200]
    buf = io.StringIO()
    table.to_csv(buf, index=False)
    back = pd.read_csv(io.StringIO(buf.getvalue()))
    for i in range(len(table)):
        direct = row_to_configs(row_to_record(table.iloc[i].to_dict()))
        via_csv = row_to_configs(row_to_record(back.iloc[i].to_dict()))
        assert direct == via_csv
    rec = row_to_record(table.iloc[0].to_dict())
    assert all(v is None or not (isinstance(v, float) and math.isnan(v)) for v in rec.values())
