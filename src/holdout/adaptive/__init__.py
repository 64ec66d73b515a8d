"""How much can an adaptive analyst overfit a test set? Attacks and defences on real predictions,
beside Mania et al. (2019) Section 4 (beyond the papers; docs/studies/adaptive.md).

Leaderboard mechanisms ([`holdout.adaptive.mechanisms`][holdout.adaptive.mechanisms])
-----------------------------------------------------------
- [`trivial`][holdout.adaptive.trivial]                 the exact accuracy of every query.
- [`ladder`][holdout.adaptive.ladder]                  Blum & Hardt (2015)'s Ladder with a fixed step.
- [`ladder_parameter_free`][holdout.adaptive.ladder_parameter_free]   their parameter-free Ladder.
- [`thresholdout`][holdout.adaptive.thresholdout]            Dwork et al. (2015)'s reusable holdout.

Attacks ([`holdout.adaptive.attacks`][holdout.adaptive.attacks]): boosting (Blum & Hardt 2015, Sec. 5; on the real
predictions and in their own setting of random labels), selective ensembling (Mania et al. 2019,
Sec. 1) and greedy best-of-k selection, run by [`run_study`][holdout.adaptive.run_study]. Each mechanism's overfit is
measured where its guarantee would live (the attack half, or Thresholdout's holdout).

Bounds ([`holdout.adaptive.bounds`][holdout.adaptive.bounds])
---------------------------------------
- [`sqrt_k_over_n`][holdout.adaptive.sqrt_k_over_n]           the sqrt(k/n) bias of a simple adaptive strategy.
- [`section4_bound`][holdout.adaptive.section4_bound]          Corollary 4, eq. (7), at a measured similarity.
- [`overfit_bound`][holdout.adaptive.overfit_bound]           attack-half minus held-out accuracy after k queries, w.p.
  1 - delta.

Study ([`holdout.adaptive.study`][holdout.adaptive.study]; its figure in
[`holdout.adaptive.plots`][holdout.adaptive.plots])
-----------------------------------------------------------------------------------
- [`StudyParams`][holdout.adaptive.StudyParams]            the study's settings (the ``adaptive`` config section).
- [`seeded_split`][holdout.adaptive.seeded_split]            the attack / held-out halves of a test set.
- [`run_study`][holdout.adaptive.run_study]               every attack against every mechanism, over the splits.
- [`summarize`][holdout.adaptive.summarize]               mean overfit per (attack, mechanism, k) beside the bounds.

The table and ``summary.json`` of one set: [`holdout.adaptive.outputs`][holdout.adaptive.outputs].
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
