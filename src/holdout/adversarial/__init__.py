"""Werpachowski et al. (2019), *Detecting overfitting via adversarial examples*.

Risks and the statistic T_i (Sec. 2.2 and 3)
---------------------------------------------
- [`empirical_error`][holdout.adversarial.empirical_error]      R_S(f), the error on the test set (Sec. 2).
- [`adversarial_risk`][holdout.adversarial.adversarial_risk]     R_g(f), the importance-weighted adversarial risk (eq.
  2).
- [`t_statistic`][holdout.adversarial.t_statistic]          T_i = L(f, g(X_i)) h_g(g(X_i)) - L(f, X_i), per example (eq.
  5).

Bounds and tests (Sec. 3)
-------------------------
- [`bernstein_bound`][holdout.adversarial.bernstein_bound]      the empirical Bernstein bound B(m, sigma^2, delta, U)
  (eq. 6).
- [`bernstein_p_value`][holdout.adversarial.bernstein_p_value]    the p-value of an observed |T| under that bound (eq.
  7).
- [`interval_test`][holdout.adversarial.interval_test]        the confidence-interval test (Sec. 3.1).
- [`pairwise_test`][holdout.adversarial.pairwise_test]        the pairwise independence test (Sec. 3.2).
- [`n_model_test`][holdout.adversarial.n_model_test]         the N-model test (Sec. 3.3).
- [`IntervalTestResult`][holdout.adversarial.IntervalTestResult],
  [`OverfittingTestResult`][holdout.adversarial.OverfittingTestResult]: their results.

The shared core: these statistics ([`stats`][holdout.adversarial.stats]), the translational
AEGs of Appendix B with exact densities ([`translation_set`][holdout.adversarial.translation_set],
[`translation`][holdout.adversarial.translation]), the tests on their per-image table
([`per_image`][holdout.adversarial.per_image]) and the translations file that carries a model's
translated predictions to the audit ([`translations_file`][holdout.adversarial.translations_file]).
One subpackage per study: [`synthetic`][holdout.adversarial.synthetic] (Sec. 4, Appendix A),
[`imagenet`][holdout.adversarial.imagenet] (Sec. 5.2, Figure 5) and
[`cifar10`][holdout.adversarial.cifar10] (Sec. 5.2 on our seeds models, Figures 1 and 2).
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
    "empirical_error",
    "interval_test",
    "n_model_test",
    "pairwise_test",
    "t_statistic",
]
