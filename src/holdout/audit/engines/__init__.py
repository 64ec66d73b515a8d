"""The computation behind the audit's lenses: the modules that compute a lens's numbers.

The lens modules of [`holdout.audit.lenses`][holdout.audit.lenses] (one per lens, picked by the
[registry][holdout.audit.registry]), ``run.py``, ``correctness.py`` and the report call these. What
parses the command line, reads an input kind or renders the report lives beside this package
(``readers/``, ``report/``, ``parser.py``, the ``*_cli`` modules); a few engines also keep the small
helpers of their own lens (``core.load_audit_predictions``, ``aline_lens.read_unlabeled``, the
``write_*`` functions of a lens's own files).

- ``core``: accuracy, new set, similarity, bounds and Rip van Winkle's Razor lenses (Recht et al.
  2018, Mania et al. 2019, Arora & Zhang 2021).
- ``bounds_eps``: the bounds read the other way round, the smallest eps at which all K models are
  guaranteed.
- ``pairs_lens``: every pair of models compared on the same items, simultaneous rank sets.
- ``best_of``: how much picking the best of N variants can inflate a score.
- ``adversarial_lens``: Werpachowski et al. (2019) from a translations file.
- ``adaptive_lens``: the adaptive analyst study on the audited models.
- ``aline_lens``: new-set accuracy without new labels (ALine, Baek et al. 2022).
- ``own_models``: the four lenses side by side for the models the workflow trains.

The module names keep their ``_lens`` suffix where ``holdout.audit.lenses`` has a module of the
same stem (``lenses/pairs.py`` calls ``engines/pairs_lens.py``).
"""
