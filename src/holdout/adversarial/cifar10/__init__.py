"""The adversarial overfitting test of Werpachowski et al. (2019), Sec. 5.2, on the workflow's own
CIFAR-10 models (the ``seeds`` study), and their Figures 1 and 2.

Modules: [`window`][holdout.adversarial.cifar10.window] (the window and eps check, numpy only),
[`attack`][holdout.adversarial.cifar10.attack] (attacking a seeds model),
[`tables`][holdout.adversarial.cifar10.tables] (p-values, the N-model test, the summary),
[`figures`][holdout.adversarial.cifar10.figures] (the data of Figures 1 and 2) and
[`plots`][holdout.adversarial.cifar10.plots] (the figures).
"""
