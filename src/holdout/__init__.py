"""holdout: reproducible audits of test-set reuse in machine learning.

Statistics shared by the studies
--------------------------------
- ``holdout.stats``        Clopper-Pearson intervals, Delta Rank, the least-squares line and its band,
  the independent-errors similarity (one definition each, scipy.stats style).

Studies, one per paper (named like the Snakemake rules files and results folders)
----------------------------------------------------------------------------------
- ``holdout.cifar10_1``    Recht et al. (2018): CIFAR-10.1 Tables 1, 4, 5 and Figure 2.
- ``holdout.retraining``   Recht et al. (2018) Sec. 5.4-5.6: retraining on CIFAR-10 + CIFAR-10.1.
- ``holdout.imagenetv2``   Recht et al. (2019): ImageNet -> ImageNetV2 on the 67-model testbed.
- ``holdout.bounds``       Mania et al. (2019): union, similarity and naive-Bayes bounds.
- ``holdout.similarity``   Mania et al. (2019): pairwise model similarity and similarity covers.
- ``holdout.adversarial``  Werpachowski et al. (2019): the adversarial overfitting test.
- ``holdout.rvw``          Arora & Zhang (2021): Rip van Winkle's Razor.
- ``holdout.training``     the CIFAR ResNet-preact family, augmentation, training loop, GPU slots.
- ``holdout.search_analysis``  Mania et al. Fig. 3 / Table 1 and Recht et al. Table 1 for our own search's checkpoints.

Built on the studies
--------------------
- ``holdout.audit``        ``holdout audit``: every lens of the four papers on a user's own models.
- ``holdout.commands``     ``holdout power`` (which comparisons a test set resolves, items needed) and
  ``holdout compare`` (a paired regression gate with exit codes).
- ``holdout.adaptive``     beyond the papers: adaptive attacks and leaderboard defences on real predictions.
- ``holdout.leaderboards`` beyond the papers: correctness matrices, accuracy tables (linear and probit
  fits, effective robustness) and contamination by date, on public leaderboards.
- ``holdout.items``        beyond the papers: which items are wrong (suspect keys, the answer the models
  propose, discrimination, duplicates) from the models' own answers, measured on published reviews.
- ``holdout.contamination`` beyond the papers: what a model should have scored (ConStat's reference-benchmark
  test, agreement on the line) and the field's public contamination results reproduced.
- ``holdout.site``         ``holdout site``: many benchmarks audited by ``holdout audit`` and published side by
  side as a static site (tie groups, resolved adjacent pairs, models a test set vouches for).

Inputs, outputs and plumbing
----------------------------
- ``holdout.data``         fetching with checksums, converters to the predictions format.
- ``holdout.logs``         readers of evaluation harnesses' per-item logs (lm-eval, Inspect, HELM, Every Eval
  Ever, EvalPlus, LiveCodeBench), aligned by item id into a correctness matrix.
- ``holdout.predictions``  the one predictions format crossing the model/analysis seam.
- ``holdout.config``       loading and checking the workflow's configuration.
- ``holdout.plotting``     one figure saver (PNG + PDF + CSV of the plotted values).
- ``holdout.tables``       one table writer (CSV + Markdown) and the number formats of the papers.
- ``holdout.runlog``       logging and timing helpers for the workflow scripts.
- ``holdout.docs_schema``  the documentation site's configuration page, generated from config/schema.yaml.
- ``holdout.cli``          the ``holdout`` command: ``holdout COMMAND ...``, one line per command.
- ``holdout.plan_cli``     ``holdout plan``: every training job of a set of config files.
"""

__version__ = "0.1.0"
