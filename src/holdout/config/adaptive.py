"""Checks of the ``adaptive`` keys: configured sets, and user sets with the models the attacks need."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holdout.config._base import Config, ConfigError, as_list, as_mapping, check_known_sets, closest
from holdout.config.data import known_prediction_sets


def check_adaptive(config: Config, workdir: str | Path = ".") -> None:
    """Each ``adaptive.sets`` entry is a prediction set the config defines (built-in or user_<name>);
    with the study on, each user set has the models the attacks need (its file's header read):
    ``adaptive.subset_size`` models per random ensemble, one model left by ``adaptive.exclude_models``,
    ``adaptive.base_model`` among them."""
    ad = as_mapping(config.get("adaptive"))
    sets = ad.get("sets") or []
    check_known_sets("adaptive.sets", sets, known_prediction_sets(config), "a configured prediction set")
    if not ad.get("enabled", True):
        return
    users = {f"user_{u.get('name')}": u for u in as_list(as_mapping(config.get("data")).get("user_predictions"))}
    for name in (s for s in sets if s in users):
        path = Path(workdir, Path(str(users[name].get("predictions"))).expanduser())
        models = _user_set_models(users[name], path)
        if models is not None:
            _check_adaptive_models(ad, name, models, path)


def _check_adaptive_models(ad: Mapping[str, Any], name: str, models: list[str], path: Path) -> None:
    kept = [m for m in models if m not in set(as_list(ad.get("exclude_models")))]
    if not kept:
        raise ConfigError(f"adaptive.exclude_models: leaves none of the {len(models)} models of {name} ({path})")
    size = ad.get("subset_size", 5)
    if "ensemble" in as_list(ad.get("attacks", ["ensemble"])) and len(kept) < size:
        raise ConfigError(
            f"adaptive.subset_size: {size} models per random ensemble, but {name} has {len(kept)} ({path}): set "
            f"adaptive.subset_size to at most {len(kept)}, or leave ensemble out of adaptive.attacks or {name} out "
            "of adaptive.sets"
        )
    base = ad.get("base_model")
    if base is not None and base not in kept:
        raise ConfigError(f"adaptive.base_model: {base!r} is not a model of {name} ({path}){closest(base, kept)}")


def _user_set_models(entry: Mapping[str, Any], path: Path) -> list[str] | None:
    """The model names of a ``data.user_predictions`` entry from its file's header (a .csv's first
    row, an index column left out; a .npy's shape), None where it cannot be read (its conversion
    job names the problem)."""
    import csv

    try:
        if path.suffix.lower() == ".npy":
            import numpy as np

            shape = np.load(path, mmap_mode="r", allow_pickle=False).shape
            k = 1 if len(shape) == 1 else shape[0]
            return [str(m) for m in entry.get("model_names") or [f"model_{i}" for i in range(k)]]
        if path.suffix.lower() == ".csv":
            with open(path, newline="", encoding="utf-8-sig") as fh:
                header = [c.strip() for c in next(csv.reader(fh), [])]
            return header[1:] if header and header[0].lower() in ("", "unnamed: 0", "index") else header
    except (OSError, ValueError, csv.Error):
        return None
    return None
