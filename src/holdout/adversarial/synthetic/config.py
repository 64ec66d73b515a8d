"""The ``adversarial.synthetic`` config section of the synthetic experiment (Werpachowski et al.
2019, Appendix A): the mixture and training settings it describes, the seeds, the eps grid, the
checks of the plotted eps, and where the dependent case changes regime (Appendix A.3)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from holdout.adversarial.synthetic.mixture import Mixture
from holdout.adversarial.synthetic.training import RMSProp, TrainSpec

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CASES",
    "case_seeds",
    "check_plot_eps",
    "dependent_transition",
    "eps_grid",
    "find_eps",
    "mixture_from_config",
    "train_spec_from_config",
]

CASES = ("independent", "dependent")


def mixture_from_config(cfg: dict) -> Mixture:
    """The data distribution from the ``adversarial.synthetic`` config section."""
    return Mixture(dim=int(cfg["dim"]), mean=float(cfg["mean"]), std=float(cfg["std"]), margin=float(cfg["margin"]))


def train_spec_from_config(cfg: dict, case: str) -> TrainSpec:
    """Training settings of ``case`` from the ``adversarial.synthetic`` config section."""
    if case not in CASES:
        raise ValueError(f"case must be one of {CASES}, got {case!r}")
    r = cfg.get("rmsprop", {})
    opt = RMSProp(
        learning_rate=float(cfg["learning_rate"]),
        decay=float(r.get("decay", 0.9)),
        epsilon=float(r.get("epsilon", 1e-10)),
        epsilon_inside_sqrt=bool(r.get("epsilon_inside_sqrt", True)),
        accumulator_init=float(r.get("accumulator_init", 1.0)),
    )
    return TrainSpec(
        steps=int(cfg["steps"]),
        batch_size=int(cfg["batch_size"]),
        penalty=float(cfg["penalty_dependent"]) if case == "dependent" else 0.0,
        optimizer=opt,
        init=str(cfg.get("init", "glorot_uniform")),
        reshuffle_each_epoch=bool(cfg.get("reshuffle_each_epoch", False)),
        dtype=str(cfg.get("dtype", "float32")),
    )


def case_seeds(seed: int, case: str, n_runs: int) -> tuple[int, list[int]]:
    """Seed of the case's fixed test set and one seed per run, all derived from the
    master ``seed`` with ``numpy.random.SeedSequence`` (distinct streams per case)."""
    ss = np.random.SeedSequence([int(seed), CASES.index(case)])
    test_ss, runs_ss = ss.spawn(2)
    test_seed = int(test_ss.generate_state(1, dtype=np.uint32)[0])
    run_seeds = [int(v) for v in runs_ss.generate_state(n_runs, dtype=np.uint32)]
    return test_seed, run_seeds


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


def dependent_transition(groups: pd.DataFrame, alpha: float = 0.05) -> dict[str, float]:
    """Where the dependent case's single runs switch from accepting to rejecting (Appendix A.3):
    ``first_rejecting_eps``, the smallest eps whose mean single-run (N = 1) p-value is below
    ``alpha``; ``last_accepting_eps``, the largest smaller eps whose mean p-value is >= 0.5
    (NaN when there is none). ``groups`` is the N-model table of :func:`evaluate_grid` with a
    ``case`` column."""
    d = groups[(groups["case"] == "dependent") & (groups["N"] == 1)]
    mean = d.groupby("eps")["p_value"].mean().sort_index()
    rejecting = mean.index[mean < alpha]
    first = float(rejecting.min()) if len(rejecting) else math.nan
    accepting = mean[(mean >= 0.5) & (mean.index < first if len(rejecting) else True)]
    last = float(accepting.index.max()) if len(accepting) else math.nan
    return {"first_rejecting_eps": first, "last_accepting_eps": last}


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
