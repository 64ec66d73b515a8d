"""holdout: reproducible audits of test-set reuse in machine learning.

Subpackages, one per study (named like its Snakemake rules file and results folder):

- ``holdout.bounds``      Mania et al. (2019): union, similarity and naive-Bayes bounds.
- ``holdout.rvw``         Arora & Zhang (2021): Rip van Winkle's Razor.
- ``holdout.data``        fetching, checksums, converters to the predictions format.
- ``holdout.predictions`` the one predictions format crossing the model/analysis seam.
- ``holdout.cifar10_1``   Recht et al. (2018): CIFAR-10.1 tables and figures.
- ``holdout.similarity``  pairwise model similarity and similarity covers.
- ``holdout.adversarial`` Werpachowski et al. (2019): the adversarial overfitting test.
- ``holdout.training``    the CIFAR ResNet-preact family, augmentation, training loop, GPU slots.
- ``holdout.plotting``, ``holdout.tables``: one figure saver (PNG + PDF + CSV), one table writer.
- ``holdout.runlog``      logging and timing helpers for the workflow scripts.
"""

__version__ = "0.1.0"
