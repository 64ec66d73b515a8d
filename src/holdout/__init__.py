"""holdout: reproducible audits of test-set reuse in machine learning.

Submodules (import them explicitly, e.g. ``from holdout import bounds``):

- ``holdout.bounds``      Mania et al. (2019): union, similarity and naive-Bayes bounds.
- ``holdout.rvw``         Arora & Zhang (2021): Rip van Winkle's Razor.
- ``holdout.data``        fetching, checksums and the predictions format.
- ``holdout.recht``       Recht et al. (2018): CIFAR-10.1 tables and figures.
- ``holdout.similarity``  pairwise model similarity and similarity covers.
- ``holdout.adversarial`` Werpachowski et al. (2019): the adversarial overfitting test.
- ``holdout.models``, ``holdout.training``: the CIFAR ResNet-preact family and its training.
- ``holdout.runlog``      logging and timing helpers for the workflow scripts.
"""

__version__ = "0.1.0"
