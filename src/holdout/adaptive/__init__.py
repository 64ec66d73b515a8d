"""How much can an adaptive analyst overfit a test set? Attacks and defences on real predictions,
beside Mania et al. (2019) Section 4 (beyond the papers; docs/studies/adaptive.md).

Leaderboard mechanisms (:mod:`holdout.adaptive.mechanisms`)
-----------------------------------------------------------
- :func:`trivial`                 the exact accuracy of every query.
- :func:`ladder`                  Blum & Hardt (2015)'s Ladder with a fixed step.
- :func:`ladder_parameter_free`   their parameter-free Ladder.
- :func:`thresholdout`            Dwork et al. (2015)'s reusable holdout.

Attacks (:mod:`holdout.adaptive.attacks`): boosting (Blum & Hardt 2015, Sec. 5; on the real
predictions and in their own setting of random labels), selective ensembling (Mania et al. 2019,
Sec. 1) and greedy best-of-k selection, run by :func:`run_study`. Each mechanism's overfit is
measured where its guarantee lives (the attack half, or Thresholdout's holdout).

Bounds (:mod:`holdout.adaptive.bounds`)
---------------------------------------
- :func:`sqrt_k_over_n`           the sqrt(k/n) bias of a simple adaptive strategy.
- :func:`section4_bound`          Corollary 4, eq. (7), at a measured similarity.
- :func:`overfit_bound`           attack-half minus held-out accuracy after k queries, w.p. 1 - delta.

Study (:mod:`holdout.adaptive.study`; its figure in :mod:`holdout.adaptive.plots`)
-----------------------------------------------------------------------------------
- :class:`StudyParams`            the study's settings (the ``adaptive`` config section).
- :func:`seeded_split`            the attack / held-out halves of a test set.
- :func:`run_study`               every attack against every mechanism, over the splits.
- :func:`summarize`               mean overfit per (attack, mechanism, k) beside the bounds.

The table and ``summary.json`` of one set: :mod:`holdout.adaptive.outputs`.
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
