"""Checks of the ``retraining`` keys (Recht et al. 2018): the published recipes train on the full set."""

from __future__ import annotations

from holdout.config._base import Config, ConfigError, as_list, as_mapping


def check_retraining(config: Config) -> None:
    """A scale that trains the published recipes (paper, gpu) needs the full training set: with
    ``retraining.train_per_class`` set it would train them on a few images under a CPU-run note."""
    rt = as_mapping(config.get("retraining"))
    scale, per_class = rt.get("scale"), rt.get("train_per_class")
    if scale in ("paper", "gpu") and per_class is not None:
        raise ConfigError(
            f"retraining.scale: {scale} trains on the full training set, but retraining.train_per_class is "
            f"{per_class} ({10 * int(per_class):,} images): set retraining.train_per_class: null (as "
            f"config/{scale}.yaml does), or use retraining.scale: cpu"
        )
    if scale in ("paper", "gpu") and any("scale: cpu" in str(n) for n in as_list(rt.get("notes"))):
        raise ConfigError(
            f"retraining.notes: still the CPU run's note under retraining.scale: {scale}; set retraining.notes "
            f"(config/{scale}.yaml has one)"
        )
