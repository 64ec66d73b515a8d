"""Mania et al. (2019) random hyperparameter search: Table 2 (Appendix D), sampled and mapped.

[`sample_configs`][holdout.training.search.sample_configs] draws ``n`` configurations from exactly the distributions of
Table 2 ("Random grid search hyperparameters") of Mania, Miller, Schmidt, Hardt and
Recht, "Model similarity mitigates test set overuse in practice" (NeurIPS 2019).
Columns are the Table 2 rows in snake case; a conditional parameter (momentum, Adam
betas, decay points, crop padding, cutout size, dual cutout alpha, erasing probability,
mixup alpha, label smoothing epsilon) is drawn only where its switch is on and is
missing (NaN / <NA>) elsewhere.

Readings of the table (stated in README `search` as well):

- "Momentum (SGD with momentum) Uniform{0.6, 0.99}": braces denote a finite set
  everywhere else in Table 2 (square brackets an interval), so momentum is the
  two-point set {0.6, 0.99}, drawn only for "SGD with Momentum". "Nesterov GD" keeps
  hysts' default momentum 0.9 (``configs/resnet_preact.json`` at commit 1d76092).
- "Number of base channels", block type and the three architecture switches map to
  hysts' ResNet-preact; "Preactivation of shortcuts after downsampling" True is hysts'
  ``preact_stage [true, true, true]``, False is ``[true, false, false]`` (the two
  settings of hysts' ResNet experiments). ResNet-110 is the depth for both block types
  (basic 6n + 2 with n = 18, bottleneck 9n + 2 with n = 12).
- Epochs: Table 2 does not give them and hysts' default is 160, but "decay point 2" reaches
  180, so the schedule must be longer than 180 epochs for every draw to decay twice. We
  train every sampled model for 200 epochs (`PAPER_EPOCHS`), 20 epochs past the
  latest decay point; at smaller scales the decay points are rescaled by
  ``epochs / 200`` ([`scaled_decay_points`][holdout.training.search.scaled_decay_points]).
- "Use cutout" is drawn independently of "Use dual cutout" (hysts refused the pair);
  dual cutout is cutout applied to two copies, so the pair trains as dual cutout with
  "Cutout size" (drawn whenever either switch is on). Mixup with dual cutout, and label
  smoothing with mixup, compose ([`holdout.training.augment`][holdout.training.augment]).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from holdout.training.augment import AugmentConfig
from holdout.training.jobs import TrainJob
from holdout.training.loop import TrainConfig
from holdout.training.models import ResNetPreactConfig
from holdout.training.naming import search_model_name as model_name

__all__ = [
    "fused_search_groups",
    "search_job",
    "CONDITIONS",
    "DISCRETE",
    "INTERVALS",
    "PAPER_DEPTH",
    "PAPER_EPOCHS",
    "TABLE2_COLUMNS",
    "SearchScale",
    "model_name",
    "row_to_configs",
    "row_to_record",
    "sample_configs",
    "scaled_decay_points",
]

PAPER_EPOCHS = 200
PAPER_DEPTH = 110

#: Table 2 finite sets ("Uniform{...}"), column -> choices.
DISCRETE: dict[str, tuple[Any, ...]] = {
    "number_of_base_channels": (4, 8, 16, 32),
    "residual_block_type": ("basic", "bottleneck"),
    "remove_relu_before_residual_units": (True, False),
    "add_batchnorm_after_last_convolutions": (True, False),
    "preactivation_of_shortcuts_after_downsampling": (True, False),
    "batch_size": (32, 64, 128, 256),
    "use_weight_decay_with_batch_norm": (True, False),
    "optimizer": ("sgd", "momentum", "nesterov", "adam"),
    "momentum": (0.6, 0.99),
    "learning_rate_schedule": ("cosine", "fixed_decay"),
    "learning_rate_decay_point_1": (40, 60, 80, 100),
    "learning_rate_decay_point_2": (120, 140, 160, 180),
    "use_random_crops": (True, False),
    "random_crop_padding": (2, 4, 8),
    "use_horizontal_flips": (True, False),
    "use_cutout": (True, False),
    "cutout_size": (8, 12, 16),
    "use_dual_cutout_augmentation": (True, False),
    "use_random_erasing": (True, False),
    "use_mixup_data_augmentation": (True, False),
    "use_label_smoothing": (True, False),
}

#: Table 2 intervals ("Uniform[a, b]"), column -> (a, b). Weight decay is 10 ** U[-5, -1].
INTERVALS: dict[str, tuple[float, float]] = {
    "base_learning_rate": (1e-4, 0.5),
    "weight_decay": (-5.0, -1.0),  # exponent: weight_decay = 10 ** U[-5, -1]
    "adam_beta1": (0.8, 0.95),
    "adam_beta2": (0.9, 0.999),
    "dual_cutout_alpha": (0.05, 0.3),
    "random_erasing_probability": (0.2, 0.8),
    "mixup_alpha": (0.6, 1.4),
    "label_smoothing_epsilon": (0.01, 0.2),
}

#: Conditional column -> (switch column, values of the switch under which it is drawn).
CONDITIONS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "momentum": ("optimizer", ("momentum",)),
    "adam_beta1": ("optimizer", ("adam",)),
    "adam_beta2": ("optimizer", ("adam",)),
    "learning_rate_decay_point_1": ("learning_rate_schedule", ("fixed_decay",)),
    "learning_rate_decay_point_2": ("learning_rate_schedule", ("fixed_decay",)),
    "random_crop_padding": ("use_random_crops", (True,)),
    "cutout_size": ("use_cutout|use_dual_cutout_augmentation", (True,)),
    "dual_cutout_alpha": ("use_dual_cutout_augmentation", (True,)),
    "random_erasing_probability": ("use_random_erasing", (True,)),
    "mixup_alpha": ("use_mixup_data_augmentation", (True,)),
    "label_smoothing_epsilon": ("use_label_smoothing", (True,)),
}

#: The Table 2 rows in table order (snake case), the columns of
#: [`sample_configs`][holdout.training.search.sample_configs] after ``model``.
TABLE2_COLUMNS: tuple[str, ...] = (
    "number_of_base_channels",
    "residual_block_type",
    "remove_relu_before_residual_units",
    "add_batchnorm_after_last_convolutions",
    "preactivation_of_shortcuts_after_downsampling",
    "batch_size",
    "base_learning_rate",
    "weight_decay",
    "use_weight_decay_with_batch_norm",
    "optimizer",
    "momentum",
    "adam_beta1",
    "adam_beta2",
    "learning_rate_schedule",
    "learning_rate_decay_point_1",
    "learning_rate_decay_point_2",
    "use_random_crops",
    "random_crop_padding",
    "use_horizontal_flips",
    "use_cutout",
    "cutout_size",
    "use_dual_cutout_augmentation",
    "dual_cutout_alpha",
    "use_random_erasing",
    "random_erasing_probability",
    "use_mixup_data_augmentation",
    "mixup_alpha",
    "use_label_smoothing",
    "label_smoothing_epsilon",
)


def _switch_on(df: pd.DataFrame, switch: str, values: tuple[Any, ...]) -> np.ndarray:
    cols = switch.split("|")
    return np.logical_or.reduce([df[c].isin(values).to_numpy() for c in cols])


def sample_configs(n: int, seed: int) -> pd.DataFrame:
    """``n`` configurations drawn from Mania et al. (2019), Table 2 (module docstring).

    One row per model (column ``model`` = ``m000``...), then `TABLE2_COLUMNS`.
    Every column has its own random stream (``numpy.random.SeedSequence(seed).spawn``), so
    the first ``k`` rows of ``sample_configs(n, seed)`` are ``sample_configs(k, seed)``:
    a search can be extended without changing the models already trained.
    """
    if n < 0:
        raise ValueError(f"sample_configs: n must be >= 0, got {n}")
    streams = dict(zip(TABLE2_COLUMNS, np.random.SeedSequence(seed).spawn(len(TABLE2_COLUMNS))))
    data: dict[str, Any] = {"model": [model_name(i) for i in range(n)]}
    for col in TABLE2_COLUMNS:
        rng = np.random.default_rng(streams[col])
        if col in DISCRETE:
            choices = DISCRETE[col]
            data[col] = pd.array([choices[i] for i in rng.integers(0, len(choices), n)], dtype=_dtype_of(choices))
        else:
            lo, hi = INTERVALS[col]
            u = rng.uniform(lo, hi, n)
            data[col] = 10.0**u if col == "weight_decay" else u
    df = pd.DataFrame(data)
    for col, (switch, values) in CONDITIONS.items():
        df.loc[~_switch_on(df, switch, values), col] = pd.NA if df[col].dtype != float else np.nan
    return df


def _dtype_of(choices: tuple[Any, ...]) -> str:
    if all(isinstance(c, bool) for c in choices):
        return "boolean"
    if all(isinstance(c, int) for c in choices):
        return "Int64"
    if all(isinstance(c, float) for c in choices):
        return "Float64"
    return "string"


def scaled_decay_points(point1: int, point2: int, epochs: int, reference_epochs: int = PAPER_EPOCHS) -> tuple[int, int]:
    """Table 2's decay epochs (defined for ``reference_epochs``) for a run of ``epochs``.

    ``round(p * epochs / reference_epochs)``, at least 1, and point 2 at least point 1 + 1
    (so a short run still decays twice when it has room; a point beyond ``epochs`` never fires).
    """
    if epochs < 1 or reference_epochs < 1:
        raise ValueError("scaled_decay_points: epochs and reference_epochs must be >= 1")
    m1 = max(1, round(point1 * epochs / reference_epochs))
    m2 = max(m1 + 1, round(point2 * epochs / reference_epochs))
    return m1, m2


@dataclass(frozen=True)
class SearchScale:
    """How a Table 2 row becomes a training run at a given scale (paper: the defaults).

    ``depth`` for basic blocks and ``depth_bottleneck`` (None: ``depth``) for bottleneck
    blocks; ``max_base_channels`` caps the sampled base channels (None: Table 2 as drawn;
    e.g. 8 turns {4, 8, 16, 32} into {4, 8, 8, 8} for CPU-sized runs); ``epochs`` of every
    run, the decay points rescaled from ``reference_epochs``.
    """

    depth: int = PAPER_DEPTH
    depth_bottleneck: int | None = None
    max_base_channels: int | None = None
    epochs: int = PAPER_EPOCHS
    reference_epochs: int = PAPER_EPOCHS

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.reference_epochs < 1:
            raise ValueError("SearchScale: epochs and reference_epochs must be >= 1")
        if self.max_base_channels is not None and self.max_base_channels < 4:
            raise ValueError("SearchScale: max_base_channels must be None or >= 4 (a bottleneck needs 4 channels)")


def _is_missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _get(row: Mapping[str, Any], key: str) -> Any:
    v = row[key]
    if _is_missing(v):
        raise ValueError(f"row {row.get('model', '?')}: {key} is missing but its switch is on")
    return v


def row_to_configs(
    row: Mapping[str, Any], scale: SearchScale = SearchScale()
) -> tuple[ResNetPreactConfig, TrainConfig]:
    """The model and training configuration of one sampled row (pure; see module docstring).

    Settings Table 2 does not sample keep [`TrainConfig`][holdout.training.search.TrainConfig] /
    [`AugmentConfig`][holdout.training.search.AugmentConfig]
    defaults, which are hysts' argparse-era defaults (commit 1d76092).
    """
    block = str(row["residual_block_type"])
    depth = scale.depth if block == "basic" or scale.depth_bottleneck is None else scale.depth_bottleneck
    model = ResNetPreactConfig(
        depth=depth,
        base_channels=min(int(row["number_of_base_channels"]), scale.max_base_channels or 10**9),
        block_type=block,  # type: ignore[arg-type]
        remove_first_relu=bool(row["remove_relu_before_residual_units"]),
        add_last_bn=bool(row["add_batchnorm_after_last_convolutions"]),
        preact_stage=(True, True, True)
        if bool(row["preactivation_of_shortcuts_after_downsampling"])
        else (True, False, False),
    )
    opt = str(row["optimizer"])
    fixed = str(row["learning_rate_schedule"]) == "fixed_decay"
    crop = bool(row["use_random_crops"])
    cut, dual = bool(row["use_cutout"]), bool(row["use_dual_cutout_augmentation"])
    erase, mix, smooth = (
        bool(row["use_random_erasing"]),
        bool(row["use_mixup_data_augmentation"]),
        bool(row["use_label_smoothing"]),
    )
    base = AugmentConfig()
    augment = AugmentConfig(
        random_crop=crop,
        crop_padding=int(_get(row, "random_crop_padding")) if crop else base.crop_padding,
        horizontal_flip=bool(row["use_horizontal_flips"]),
        cutout=cut,
        dual_cutout=dual,
        cutout_size=int(_get(row, "cutout_size")) if (cut or dual) else base.cutout_size,
        dual_cutout_alpha=float(_get(row, "dual_cutout_alpha")) if dual else base.dual_cutout_alpha,
        random_erasing=erase,
        erasing_prob=float(_get(row, "random_erasing_probability")) if erase else base.erasing_prob,
        mixup=mix,
        mixup_alpha=float(_get(row, "mixup_alpha")) if mix else base.mixup_alpha,
        label_smoothing=smooth,
        label_smoothing_epsilon=float(_get(row, "label_smoothing_epsilon")) if smooth else base.label_smoothing_epsilon,
    )
    defaults = TrainConfig()
    train = TrainConfig(
        epochs=scale.epochs,
        batch_size=int(row["batch_size"]),
        optimizer=opt,  # type: ignore[arg-type]
        base_lr=float(row["base_learning_rate"]),
        momentum=float(_get(row, "momentum")) if opt == "momentum" else defaults.momentum,
        adam_betas=(float(_get(row, "adam_beta1")), float(_get(row, "adam_beta2")))
        if opt == "adam"
        else defaults.adam_betas,
        weight_decay=float(row["weight_decay"]),
        weight_decay_bn=bool(row["use_weight_decay_with_batch_norm"]),
        scheduler="multistep" if fixed else "cosine",
        milestones=scaled_decay_points(
            int(_get(row, "learning_rate_decay_point_1")),
            int(_get(row, "learning_rate_decay_point_2")),
            scale.epochs,
            scale.reference_epochs,
        )
        if fixed
        else (),
        augment=augment,
    )
    return model, train


def row_to_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """One sampled row as JSON-ready Python values (missing -> None), e.g. for ``config.json``."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if _is_missing(v):
            out[k] = None
        elif isinstance(v, (bool, np.bool_)):
            out[k] = bool(v)
        elif isinstance(v, (int, np.integer)):
            out[k] = int(v)
        elif isinstance(v, (float, np.floating)):
            out[k] = float(v)
        else:
            out[k] = str(v)
    json.dumps(out)  # fail here, not in the caller, if something is not serialisable
    return out


def search_job(configs: str | Path, model: str, cfg: Mapping[str, Any], log: logging.Logger | None = None) -> TrainJob:
    """The [`holdout.training.jobs.TrainJob`][holdout.training.jobs.TrainJob] of search model ``model`` (``m<index>``).

    Reads its Table 2 row from the sampled ``configs`` CSV, scales it with the
    ``search:`` config ``cfg`` ([`SearchScale`][holdout.training.search.SearchScale],
    [`row_to_configs`][holdout.training.search.row_to_configs]) and derives its
    seed from ``cfg["seed"]`` and the model index (``numpy.random.SeedSequence``).
    """
    log = log or logging.getLogger("holdout")
    table = pd.read_csv(configs)
    rows = table[table["model"] == model]
    if len(rows) != 1:
        raise ValueError(f"{configs}: no row for model {model}")
    record = row_to_record(rows.iloc[0].to_dict())
    scale = SearchScale(
        depth=int(cfg["depth"]),
        depth_bottleneck=cfg["depth_bottleneck"],
        max_base_channels=cfg["max_base_channels"],
        epochs=int(cfg["epochs"]),
        reference_epochs=int(cfg["reference_epochs"]),
    )
    model_cfg, train_cfg = row_to_configs(record, scale)
    seed = int(np.random.SeedSequence([int(cfg["seed"]), int(model[1:])]).generate_state(1)[0])
    log.info("%s: %s", model, json.dumps(record))
    log.info("model %s; training %s; seed %d", model_cfg, train_cfg, seed)
    return TrainJob(
        name=model,
        model_config=model_cfg,
        train_config=train_cfg,
        seed=seed,
        metadata={"model_name": model, "table2": record},
        record={"model": model, "table2": record, "scale": asdict(scale), "seed": seed},
    )


def fused_search_groups(cfg: Mapping[str, Any], models: list[str], max_members: int) -> list[list[str]]:
    """``models`` (``m<index>``, in order) in fused groups: the draws of the ``search:`` config ``cfg``
    that share a [`fusion_key`][holdout.training.fused.fusion_key], at most ``max_members`` per group
    (what the workflow trains as one job when ``training.fused_members`` > 1)."""
    from holdout.training.fused import fusion_key

    scale = SearchScale(
        int(cfg["depth"]),
        cfg["depth_bottleneck"],
        cfg["max_base_channels"],
        int(cfg["epochs"]),
        int(cfg["reference_epochs"]),
    )
    table = sample_configs(int(cfg["n_models"]), int(cfg["seed"])).set_index("model")
    by_key: dict[str, list[str]] = {}
    for m in models:
        model_cfg, train_cfg = row_to_configs(row_to_record(table.loc[m].to_dict()), scale)
        by_key.setdefault(fusion_key(model_cfg, train_cfg), []).append(m)
    groups = [ms[i : i + max_members] for ms in by_key.values() for i in range(0, len(ms), max_members)]
    return sorted(groups, key=lambda g: models.index(g[0]))
