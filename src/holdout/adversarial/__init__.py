"""Werpachowski et al. (2019), *Detecting overfitting via adversarial examples*.

- ``holdout.adversarial.stats``: R_S, the importance-weighted adversarial risk R_g,
  the statistic T_i, empirical Bernstein bounds and the tests (Sec. 3).
- ``holdout.adversarial.synthetic``: the synthetic experiment (Sec. 4, Appendix A).
- ``holdout.adversarial.translation``: translation attacks with exact densities
  (Sec. 5.1, Appendix B).
"""

from holdout.adversarial.stats import (
    IntervalTestResult,
    OverfittingTestResult,
    adversarial_risk,
    bernstein_bound,
    bernstein_p_value,
    empirical_error,
    interval_test,
    n_model_test,
    pairwise_test,
    t_statistic,
)

__all__ = [
    "IntervalTestResult",
    "OverfittingTestResult",
    "adversarial_risk",
    "bernstein_bound",
    "bernstein_p_value",
    "interval_test",
    "n_model_test",
    "pairwise_test",
    "t_statistic",
    "empirical_error",
]
