"""The attack-strength grid of the synthetic experiment (Werpachowski et al. 2019, Appendix A.3),
with numpy only: ``workflow/rules/adversarial_synthetic_helpers.smk`` checks the plotted eps values against
it at parse time, without loading scipy ([`holdout.adversarial.synthetic`][holdout.adversarial.synthetic] does).

This is the one definition: [`holdout.adversarial.synthetic`][holdout.adversarial.synthetic] re-exports these names.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CASES", "check_plot_eps", "eps_grid", "find_eps"]

CASES = ("independent", "dependent")


def eps_grid(cfg: dict) -> np.ndarray:
    """Attack strengths: ``eps_grid.num`` log-spaced values from ``eps_grid.min`` to
    ``eps_grid.max`` plus ``eps_extra``, sorted, duplicates removed (relative 1e-9)."""
    g = cfg.get("eps_grid", {})
    lo, hi, num = float(g.get("min", 0.01)), float(g.get("max", 100.0)), int(g.get("num", 17))
    if not 0 < lo <= hi:
        raise ValueError(f"adversarial.synthetic.eps_grid needs 0 < min <= max, got {lo}, {hi}")
    vals = np.concatenate([np.geomspace(lo, hi, num), np.asarray(cfg.get("eps_extra", []), dtype=float)])
    vals = np.sort(vals)
    keep = np.concatenate([[True], np.diff(vals) > 1e-9 * vals[1:]])
    return vals[keep]


def find_eps(grid: np.ndarray, eps: float, key: str) -> float:
    """The grid value equal to ``eps`` (relative 1e-9); a clear error naming ``key`` otherwise."""
    grid = np.asarray(grid, dtype=float)
    hit = np.flatnonzero(np.abs(grid - eps) <= 1e-9 * abs(eps))
    if hit.size == 0:
        raise ValueError(
            f"adversarial.synthetic.{key}: eps = {eps:g} is not on the eps grid "
            f"({', '.join(f'{v:g}' for v in grid)}); add it to eps_extra"
        )
    return float(grid[hit[0]])


def check_plot_eps(cfg: dict) -> None:
    """Fail early (naming the key) when a histogram or Figure 8 eps is not on the grid,
    or a Figure 8 N is not among ``n_models``."""
    grid = eps_grid(cfg)
    for case in CASES:
        for e in cfg.get("histogram_eps", {}).get(case, []):
            find_eps(grid, float(e), f"histogram_eps.{case}")
    f8 = cfg.get("figure8", {})
    find_eps(grid, float(f8.get("eps_independent", 10.0)), "figure8.eps_independent")
    for e in f8.get("eps_dependent", []):
        find_eps(grid, float(e), "figure8.eps_dependent")
    missing = sorted(set(int(n) for n in f8.get("n_models", [])) - set(int(n) for n in cfg["n_models"]))
    if missing:
        raise ValueError(f"adversarial.synthetic.figure8.n_models {missing} are not in adversarial.synthetic.n_models")
    too_big = [int(n) for n in cfg["n_models"] if int(n) > int(cfg["repetitions"])]
    if too_big:
        raise ValueError(
            f"adversarial.synthetic.n_models {too_big} exceed repetitions = {cfg['repetitions']} "
            "(each N-model test needs N runs)"
        )
