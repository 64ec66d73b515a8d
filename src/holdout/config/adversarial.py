"""Checks of the ``adversarial`` keys (Werpachowski et al. 2019, the synthetic study)."""

from __future__ import annotations

from holdout.config._base import Config, ConfigError


def check_adversarial(config: Config) -> None:
    """Synthetic study: ``eps_grid.min <= max``; ``batch_size`` divides each case's training set."""
    syn = config["adversarial"]["synthetic"]
    if syn["eps_grid"]["min"] > syn["eps_grid"]["max"]:
        raise ConfigError(
            f"adversarial.synthetic.eps_grid: min = {syn['eps_grid']['min']} is above max = {syn['eps_grid']['max']}"
        )
    shared = round(syn["dependent_train_fraction"] * syn["n_test_dependent"])
    sizes = {
        "independent": syn["n_train"],
        "dependent": shared + (syn["n_train"] if syn["dependent_mode"] == "join" else 0),
    }
    for case, size in sizes.items():
        if size % syn["batch_size"]:
            raise ConfigError(
                f"adversarial.synthetic.batch_size = {syn['batch_size']} does not divide the {case} "
                f"training set of {size} points (n_train, n_test_dependent, dependent_train_fraction, "
                "dependent_mode)"
            )
