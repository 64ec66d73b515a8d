"""The seeds study: one training recipe repeated with N seeds (Werpachowski et al. 2019, Sec. 3.3).

Werpachowski et al.'s N-model test compares N independently trained models (120
retrainings in their ImageNet experiment). The default recipe trains a small
ResNet-preact on ``window x window`` windows of the 32 x 32 CIFAR-10 images (a random
window per image and step as augmentation, the centre window at test time) so that
translating a test image by up to ``32 - window`` pixels loses nothing, and on a small
seeded subset of the training set for enough epochs that it overfits it clearly (the
adversarial test must be able to show a training set the models depend on).

Everything here is pure: the recipe is built from the ``seeds:`` config section, the
subset from its seed; the workflow writes them to ``results/seeds/recipe.json`` and
``results/seeds/train_subset.npy``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holdout.training.augment import AugmentConfig
from holdout.training.jobs import TrainJob
from holdout.training.loop import TrainConfig
from holdout.training.models import ResNetPreactConfig
from holdout.training.naming import seed_model_name
from holdout.training.subset import train_subset

__all__ = [
    "SeedsRecipe",
    "recipe_from_config",
    "seed_model_name",
    "seeds_job",
    "train_subset",
    "window_test_time",
]


@dataclass(frozen=True)
class SeedsRecipe:
    """One recipe (model, training configuration, window) and the seeds it is trained with."""

    model: ResNetPreactConfig
    train: TrainConfig
    window: int | None
    seeds: tuple[int, ...]
    train_subset_size: int | None
    train_subset_seed: int

    def to_dict(self) -> dict[str, Any]:
        """The ``recipe.json`` record (keys ``window``, ``seeds``, ``train_subset_size``, ``epochs``, ...)."""
        return {
            "window": self.window,
            "seeds": list(self.seeds),
            "models": [seed_model_name(s) for s in self.seeds],
            "train_subset_size": self.train_subset_size,
            "train_subset_seed": self.train_subset_seed,
            "epochs": self.train.epochs,
            "model": self.model.to_dict(),
            "train": self.train.to_dict(),
        }


def recipe_from_config(cfg: Mapping[str, Any]) -> SeedsRecipe:
    """Build the recipe of the ``seeds:`` config section.

    Keys: ``n_models``, ``first_seed``, ``window`` (None: whole images), ``train_subset_size``
    (None: all), ``train_subset_seed``, ``epochs``, ``model``
    ([`ResNetPreactConfig`][holdout.training.seeds.ResNetPreactConfig]
    fields) and ``train`` ([`TrainConfig`][holdout.training.seeds.TrainConfig] fields, ``augment`` a mapping of
    [`AugmentConfig`][holdout.training.seeds.AugmentConfig] fields; ``window`` is added to it).
    """
    n = int(cfg["n_models"])
    if n < 1:
        raise ValueError(f"seeds.n_models must be >= 1, got {n}")
    first = int(cfg.get("first_seed", 0))
    window = cfg.get("window")
    window = None if window is None else int(window)
    model = ResNetPreactConfig.from_dict(dict(cfg.get("model", {})))
    train_d = dict(cfg.get("train", {}))
    aug_d = dict(train_d.pop("augment", {}))
    aug_d["window"] = window
    train = TrainConfig.from_dict({**train_d, "epochs": int(cfg["epochs"]), "augment": AugmentConfig.from_dict(aug_d)})
    size = cfg.get("train_subset_size")
    return SeedsRecipe(
        model=model,
        train=train,
        window=window,
        seeds=tuple(range(first, first + n)),
        train_subset_size=None if size is None else int(size),
        train_subset_seed=int(cfg.get("train_subset_seed", 0)),
    )


def window_test_time(augment: AugmentConfig, num_classes: int, image_size: int = 32) -> dict[str, Any]:
    """The ``test_time`` checkpoint metadata of a model trained with ``augment`` (a window or not).

    Passed to [`holdout.training.train`][holdout.training.train] as ``extra_metadata={"test_time": ...}``;
    [`holdout.training.inference.prepare_images`][holdout.training.inference.prepare_images] follows it.
    """
    w = augment.window
    size = image_size if w is None else w
    what = (
        "uint8 RGB images N x C x H x W"
        if w is None
        else (f"the centre {w} x {w} window (holdout.training.augment.center_window) of uint8 RGB images N x C x H x W")
    )
    return {
        "input": f"{what}; x / 255, then (x - mean) / std per channel",
        "mean": list(augment.mean),
        "std": list(augment.std),
        "image_size": [size, size],
        "window": w,
        "num_classes": int(num_classes),
    }


def seeds_job(recipe: str | Path, model: str, image_size: int = 32, log: logging.Logger | None = None) -> TrainJob:
    """The [`holdout.training.jobs.TrainJob`][holdout.training.jobs.TrainJob] of ``model`` (``seed<k>``) from
    ``recipe.json``.

    The seed must be one of the recipe's; the checkpoints carry the recipe's test-time
    window ([`window_test_time`][holdout.training.seeds.window_test_time] for ``image_size`` x ``image_size`` images).
    """
    log = log or logging.getLogger("holdout")
    seed = int(model.removeprefix("seed"))
    with open(recipe) as fh:
        r = json.load(fh)
    if seed not in r["seeds"]:
        raise ValueError(f"{recipe}: seed {seed} is not one of the recipe's seeds")
    model_cfg = ResNetPreactConfig.from_dict(r["model"])
    train_cfg = TrainConfig.from_dict(r["train"])
    log.info("%s: model %s; training %s", model, model_cfg, train_cfg)
    test_time = window_test_time(train_cfg.augment, model_cfg.num_classes, image_size)
    return TrainJob(
        name=model,
        model_config=model_cfg,
        train_config=train_cfg,
        seed=seed,
        metadata={"model_name": model, "test_time": test_time},
        record={"model": model, "seed": seed, "window": r["window"]},
    )
