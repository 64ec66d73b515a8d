"""The Figure 4 regime of Werpachowski et al. (2019), Sec. 4 and Appendix A.3, at reduced size:
the dependent case (the model trained on half of the test set, w_1 penalised) is rejected with
confidence ~100% for 10 <= eps <= 50, the independent case is never rejected."""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from holdout.adversarial import synthetic as syn
from holdout.adversarial.synthetic import study

EPS = [0.1, 1.0, 3.0, 10.0, 20.0, 30.0, 50.0]
ALPHA = 0.05


def _run(cfg: dict, case: str) -> tuple[pd.DataFrame, pd.DataFrame, syn.TrainedModels]:
    """Train the case as the workflow does (:func:`holdout.adversarial.synthetic.study.train_case`), then evaluate."""
    runs = study.train_case(cfg, case, 1, logging.getLogger("test"))
    spec = syn.mixture_from_config(cfg)
    n_runs = int(cfg["repetitions"])
    per_run, groups = syn.evaluate_grid(
        spec, runs.x_test, runs.y_test, runs.models.w, runs.models.b, EPS, [1, n_runs], float(cfg["U"])
    )
    return per_run, groups.assign(case=case), runs.models


@pytest.mark.slow  # ~7 s (numba kernel; ~15 CPU-s with the numpy fallback): 2 cases of 3 runs x 2,000 steps in R^500
def test_figure4_regime_reduced_size(workflow_config):
    cfg = workflow_config["adversarial"]["synthetic"]
    # the paper's data, model and attack (D = 500, 500 training points, 1,000 dependent test
    # points of which 500 are trained on); fewer runs (3, not 100), steps (2,000, not 50,000)
    # and independent test points (1,000, not 10,000)
    cfg = dict(cfg, repetitions=3, steps=2000, n_test_independent=1000)
    ind, ind_groups, _ = _run(cfg, "independent")
    dep, dep_groups, dep_models = _run(cfg, "dependent")
    # the dependent models fit their training set (Appendix A.2: 100% accuracy, penalised loss 0.25)
    assert dep_models.train_accuracy.min() == 1.0
    assert dep_models.train_loss.mean() == pytest.approx(0.25, abs=0.01)
    # independent: no run and no N-model group is rejected at any eps
    assert ind.p_value.min() > ALPHA, ind.groupby("eps").p_value.min()
    assert ind_groups.p_value.min() > ALPHA
    # dependent: every run rejected for 10 <= eps <= 50 (paper: at confidence ~100%)
    mid = dep[(dep.eps >= 10) & (dep.eps <= 50)]
    assert len(mid) == 3 * 4 and mid.p_value.max() < 1e-3, mid.groupby("eps").p_value.max()
    # ... and accepted for small eps, so the switch lies between 3 and 10 on this grid
    assert dep[dep.eps <= 1.0].p_value.min() > ALPHA
    transition = syn.dependent_transition(pd.concat([ind_groups, dep_groups]), alpha=ALPHA)
    assert transition == {"first_rejecting_eps": 10.0, "last_accepting_eps": 3.0}
