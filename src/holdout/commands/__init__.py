"""Commands beside ``holdout audit``, one module each with ``main(argv) -> int``, and their Python API
(pure functions: they print and write nothing).

holdout power
-------------
- [`resolution`][holdout.commands.power.resolution]  per adjacent pair and per model against the best: the
  paired difference, its spread, the minimum detectable difference and the items needed, plain and clustered.
- [`summary_line`][holdout.commands.power.summary_line]  "this test set resolves R of P adjacent pairs; ...".
- [`plan`][holdout.commands.power.plan]  planning without data: n from two accuracies and a discordance or
  correlation (Connor 1987).

holdout compare
---------------
- [`compare_scores`][holdout.commands.compare.compare_scores]  candidate - base on the same items: interval,
  test and p-value (exact McNemar, paired t, or the clustered test).
- [`decide`][holdout.commands.compare.decide]  'not worse', 'worse' or 'inconclusive' (exit 0, 1, 3).
- [`reuse_bounds`][holdout.commands.compare.reuse_bounds]  how far earlier uses of the test set may have moved
  the measured accuracies (Mania et al. 2019, a theorem).

holdout site
------------
- the command only (``holdout.commands.site``); its Python API is ``holdout.site`` (``load_spec``, ``build_site``).
"""

from holdout._lazy import lazy_exports

_SUBMODULE = {
    "resolution": "power",
    "summary_line": "power",
    "plan": "power",
    "compare_scores": "compare",
    "decide": "compare",
    "reuse_bounds": "compare",
}

__all__ = sorted(_SUBMODULE)

__getattr__, __dir__ = lazy_exports(__name__, _SUBMODULE)
