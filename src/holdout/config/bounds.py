"""Checks of the ``bounds`` keys (Mania et al. 2019): grids that run upwards, similarities at least
that of independent errors."""

from __future__ import annotations

from holdout.config._base import Config, ConfigError


def _independent_similarity(accuracy: float) -> float:
    """mu^2 + (1 - mu)^2 for error mu = 1 - accuracy (Mania et al. Sec. 5.1)."""
    from holdout.stats import independent_similarity  # numpy: imported only when bounds are checked

    return independent_similarity(1.0 - float(accuracy))


def _check_above_independent(key: str, similarity: float, accuracy: float, accuracy_key: str) -> None:
    floor = _independent_similarity(accuracy)
    if float(similarity) < floor - 1e-12:
        raise ConfigError(
            f"{key} = {similarity} is below the independent-errors similarity {floor:.6g} at "
            f"{accuracy_key} = {accuracy} (the bounds need a similarity at least that large)"
        )


def check_bounds(config: Config) -> None:
    """Fig. 2 grids run upwards; similarities are at least the independent-errors similarity.

    The similarity and naive-Bayes bounds of Mania et al. need the coupling of Appendix B,
    which exists only for a similarity >= mu^2 + (1 - mu)^2. With ``bounds.setting_from:
    config`` the accuracy is known here; with ``measured`` the bounds stage checks the grid
    against the measured accuracy ([`holdout.bounds.study.gain_grid`][holdout.bounds.study.gain_grid]).
    """
    b = config["bounds"]
    for panel in ("similarity", "eps"):
        grid = b["figure2"][panel]
        if grid["start"] >= grid["stop"]:
            raise ConfigError(f"bounds.figure2.{panel}: start = {grid['start']} must be below stop = {grid['stop']}")
    if b["setting_from"] == "config":
        acc = b["setting"]["mean_accuracy"]
        _check_above_independent(
            "bounds.setting.similarity", b["setting"]["similarity"], acc, "bounds.setting.mean_accuracy"
        )
        _check_above_independent(
            "bounds.figure2.similarity.start", b["figure2"]["similarity"]["start"], acc, "bounds.setting.mean_accuracy"
        )
    for i, row in enumerate(b["table1"]["rows"]):
        _check_above_independent(
            f"bounds.table1.rows[{i}].mean_similarity",
            row["mean_similarity"],
            row["mean_accuracy"],
            f"bounds.table1.rows[{i}].mean_accuracy",
        )
