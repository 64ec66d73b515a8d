"""The ImageNet study of Werpachowski et al. (2019), Sec. 5.2 and Figure 5: the adversarial
overfitting test with the translational AEGs of Appendix B on torchvision's ImageNet classifiers.

Modules: [`study`][holdout.adversarial.imagenet.study] (the classifiers, the images, the attacks
of one split, the Figure 5 and summary tables) and [`plots`][holdout.adversarial.imagenet.plots]
(Figure 5). Their public names are importable from ``holdout.adversarial.imagenet``; each loads on
first use (PEP 562), so the tables need neither torch nor matplotlib until they are asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holdout._lazy import lazy_exports

if TYPE_CHECKING:
    from holdout.adversarial.imagenet.plots import plot_figure5
    from holdout.adversarial.imagenet.study import (
        IMAGENET_MEAN,
        IMAGENET_STD,
        attack_range,
        attack_split,
        build_model,
        canvas_transform,
        describe_result,
        figure5_table,
        figure5_tables,
        image_folder,
        image_paths,
        resolve_device,
        result_frame,
        run_study,
        sample_indices,
        summary_table,
    )

__all__ = [
    "IMAGENET_MEAN",
    "IMAGENET_STD",
    "attack_range",
    "attack_split",
    "build_model",
    "canvas_transform",
    "describe_result",
    "figure5_table",
    "figure5_tables",
    "image_folder",
    "image_paths",
    "plot_figure5",
    "resolve_device",
    "result_frame",
    "run_study",
    "sample_indices",
    "summary_table",
]

_SUBMODULE_OF = {**dict.fromkeys(__all__, "study"), "plot_figure5": "plots"}
__getattr__, __dir__ = lazy_exports(__name__, _SUBMODULE_OF)
