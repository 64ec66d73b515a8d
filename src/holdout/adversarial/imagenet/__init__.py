"""The ImageNet study of Werpachowski et al. (2019), Sec. 5.2 and Figure 5.

Modules: [`study`][holdout.adversarial.imagenet.study] (the classifiers, the images, the
attacks and the Figure 5 tables) and [`plots`][holdout.adversarial.imagenet.plots] (Figure 5).
"""
