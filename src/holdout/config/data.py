"""Checks of the ``data`` keys: the prediction sets the config defines, names that become paths,
the mirror folder."""

from __future__ import annotations

from pathlib import Path

from holdout.config._base import Config, ConfigError, as_list, as_mapping


def builtin_prediction_sets(config: Config) -> list[str]:
    """Names of the prediction sets the data stage builds from public data."""
    return ["cifar10_1_v4", "cifar10_1_v6", "cifar10_original", *config["data"].get("imagenet_datasets", {})]


def known_prediction_sets(config: Config) -> list[str]:
    """Every prediction set name the config defines: the built-in ones and ``user_<name>``."""
    users = [f"user_{u['name']}" for u in config["data"].get("user_predictions", [])]
    return builtin_prediction_sets(config) + users


def check_names(config: Config) -> None:
    """Every config name that becomes part of a path is safe
    ([`check_name`][holdout.data.names.check_name], [`check_relpath`][holdout.data.names.check_relpath]):
    set names, dataset keys and folders, model names, mirror-relative paths, user set names.
    Runs before the schema validation too (its message for a pattern names no key)."""
    from holdout.data.names import UnsafeNameError, check_name, check_relpath

    data = as_mapping(config.get("data"))
    try:
        for key, folder in as_mapping(data.get("imagenet_datasets")).items():
            check_name(key, "data.imagenet_datasets")
            check_name(folder, f"data.imagenet_datasets.{key}")
        for model in as_list(data.get("imagenet_models")):
            check_name(model, "data.imagenet_models")
        for model in as_mapping(data.get("cifar10_1_models")):
            check_name(model, "data.cifar10_1_models")
        for rel in as_mapping(data.get("checksums")):
            check_relpath(rel, "data.checksums")
        for i, entry in enumerate(as_list(data.get("user_predictions"))):
            check_name(as_mapping(entry).get("name"), f"data.user_predictions[{i}].name")
        for name in as_mapping(as_mapping(config.get("audit")).get("user")):
            check_name(name, "audit.user")
        retraining = as_mapping(config.get("retraining"))
        for name in [*as_list(retraining.get("table2_models")), *as_mapping(retraining.get("models"))]:
            check_name(name, "retraining.table2_models / retraining.models")
        for name in as_list(as_mapping(config.get("adversarial_imagenet")).get("models")):
            check_name(name, "adversarial_imagenet.models")
        lb = as_mapping(config.get("leaderboards"))
        for rel in as_mapping(lb.get("checksums")):
            check_relpath(rel, "leaderboards.checksums")
        for name, pair in as_mapping(lb.get("pairs")).items():
            check_name(name, "leaderboards.pairs")
            if as_mapping(pair).get("source") == "timm":  # timm's set names become file names and URLs
                for side in ("original", "new"):
                    check_name(as_mapping(pair).get(side), f"leaderboards.pairs.{name}.{side}")
    except UnsafeNameError as exc:
        raise ConfigError(str(exc)) from None


def check_data(config: Config, workdir: str | Path = ".") -> None:
    """``data.mirror`` is an existing folder; ``data.user_predictions`` names are unique."""
    check_names(config)
    data = config["data"]
    mirror = data.get("mirror")
    if mirror:
        folder = Path(workdir, Path(mirror).expanduser()).resolve()
        if folder.exists() and not folder.is_dir():
            raise ConfigError(f"data.mirror: {folder} is a file, not a folder: give the folder that holds the mirror")
        if not folder.is_dir():
            raise ConfigError(f"data.mirror: folder {folder} does not exist")
    names = [u["name"] for u in data.get("user_predictions", [])]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise ConfigError(f"data.user_predictions: name {', '.join(map(repr, dups))} given more than once")
