"""How much can an adaptive analyst overfit a test set? Attacks and defences on real predictions.

Mechanisms (``mechanisms``): trivial, ladder, ladder_parameter_free, thresholdout.
Attacks (``attacks``): boosting (Blum & Hardt 2015, Sec. 5), selective ensembling (Mania et al. 2019,
Sec. 1), greedy best-of-k selection.
Bounds (``bounds``): sqrt_k_over_n, section4_bound (Mania et al. Corollary 4), overfit_bound.
Study (``study``): seeded_split, run_study, summarize; plots in ``plots``.
"""

from holdout.adaptive.bounds import overfit_bound, section4_bound, sqrt_k_over_n
from holdout.adaptive.mechanisms import ladder, ladder_parameter_free, thresholdout, trivial
from holdout.adaptive.study import StudyParams, run_study, seeded_split, summarize

__all__ = [
    "trivial",
    "ladder",
    "ladder_parameter_free",
    "thresholdout",
    "sqrt_k_over_n",
    "section4_bound",
    "overfit_bound",
    "StudyParams",
    "seeded_split",
    "run_study",
    "summarize",
]
