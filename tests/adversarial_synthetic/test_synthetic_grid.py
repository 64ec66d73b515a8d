"""The synthetic study's eps grid (holdout.adversarial.synthetic.grid, numpy only, read at parse time)
is the one holdout.adversarial.synthetic uses, and checks the plotted eps (that it imports no scipy is
checked with the other rule-file imports in tests/infra/test_parse.py)."""

from __future__ import annotations

import numpy as np
import pytest

from holdout.adversarial import synthetic as syn
from holdout.adversarial.synthetic import grid as grid_mod

CONFIGS = [
    {"eps_grid": {"min": 0.01, "max": 100.0, "num": 17}, "eps_extra": [5.0, 6.0, 10.0]},
    {"eps_grid": {"min": 0.5, "max": 0.5, "num": 3}, "eps_extra": [0.5]},
    {},
]


def test_synthetic_uses_the_one_grid():
    for name in ("CASES", "eps_grid", "find_eps", "check_plot_eps"):
        assert getattr(syn, name) is getattr(grid_mod, name), name


@pytest.mark.parametrize("cfg", CONFIGS)
def test_grid_is_sorted_unique_and_holds_the_extras(cfg):
    grid = grid_mod.eps_grid(cfg)
    assert np.all(np.diff(grid) > 0)
    for e in cfg.get("eps_extra", []):
        assert grid_mod.find_eps(grid, e, "eps_extra") == e
    g = cfg.get("eps_grid", {})
    assert grid[0] == pytest.approx(g.get("min", 0.01)) and grid[-1] == pytest.approx(g.get("max", 100.0))


def _plot_cfg(eps_dependent, n_models=(1, 2), figure8_n=(1, 2), repetitions=10):
    return {
        **CONFIGS[0],
        "histogram_eps": {"independent": [10.0], "dependent": [6.0]},
        "figure8": {"eps_independent": 10.0, "eps_dependent": list(eps_dependent), "n_models": list(figure8_n)},
        "n_models": list(n_models),
        "repetitions": repetitions,
    }


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        (_plot_cfg([6.0]), None),
        (_plot_cfg([7.0]), "figure8.eps_dependent: eps = 7 is not on the eps grid"),
        (_plot_cfg([6.0], figure8_n=(1, 3)), r"figure8.n_models \[3\] are not in"),
        (_plot_cfg([6.0], n_models=(1, 2, 20)), r"n_models \[20\] exceed repetitions = 10"),
    ],
)
def test_check_plot_eps_matches_synthetic(cfg, message):
    for check in (grid_mod.check_plot_eps, syn.check_plot_eps):
        if message is None:
            check(cfg)
        else:
            with pytest.raises(ValueError, match=message):
                check(cfg)
