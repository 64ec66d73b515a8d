"""The ``adversarial.synthetic`` config section of the synthetic experiment (Werpachowski et al.
2019, Appendix A): the mixture and training settings it describes, the seeds, the eps grid, the
checks of the plotted eps, and where the dependent case changes regime (Appendix A.3)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from holdout.adversarial.synthetic.grid import CASES, check_plot_eps, eps_grid, find_eps
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


def dependent_transition(groups: pd.DataFrame, alpha: float = 0.05) -> dict[str, float]:
    """Where the dependent case's single runs switch from accepting to rejecting (Appendix A.3):
    ``first_rejecting_eps``, the smallest eps whose mean single-run (N = 1) p-value is below
    ``alpha``; ``last_accepting_eps``, the largest smaller eps whose mean p-value is >= 0.5
    (NaN when there is none). ``groups`` is the N-model table of `evaluate_grid` with a
    ``case`` column."""
    d = groups[(groups["case"] == "dependent") & (groups["N"] == 1)]
    mean = d.groupby("eps")["p_value"].mean().sort_index()
    rejecting = mean.index[mean < alpha]
    first = float(rejecting.min()) if len(rejecting) else math.nan
    accepting = mean[(mean >= 0.5) & (mean.index < first if len(rejecting) else True)]
    last = float(accepting.index.max()) if len(accepting) else math.nan
    return {"first_rejecting_eps": first, "last_accepting_eps": last}
