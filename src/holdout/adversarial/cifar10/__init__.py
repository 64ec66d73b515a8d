"""The adversarial overfitting test of Werpachowski et al. (2019), Sec. 5.2, on the workflow's own
CIFAR-10 models (the ``seeds`` study), and the paper's Figures 1 and 2.

Modules: [`window`][holdout.adversarial.cifar10.window] (the window and eps check, numpy only: the
workflow's rule files import it at parse time), [`attack`][holdout.adversarial.cifar10.attack]
(attacking a seeds model), [`tables`][holdout.adversarial.cifar10.tables] (p-values, the N-model
test, the summary), [`figures`][holdout.adversarial.cifar10.figures] (the data of Figures 1 and 2)
and [`plots`][holdout.adversarial.cifar10.plots] (the figures). Their public names are importable
from ``holdout.adversarial.cifar10``; each loads on first use (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holdout._lazy import lazy_exports

if TYPE_CHECKING:
    from holdout.adversarial.cifar10.attack import (
        SETS,
        attack_model,
        attack_seed_model,
        check_recipe,
        model_name,
        per_image_frame,
        read_recipe,
        read_train_subset,
        resolve_device,
        sample_indices,
        windowed_classifier,
    )
    from holdout.adversarial.cifar10.figures import (
        CIFAR10_CLASSES,
        figure1_table,
        figure2_example,
        model_years,
        seed_model_translations,
        strongest_successes,
        success_logits,
        windows_of,
    )
    from holdout.adversarial.cifar10.plots import plot_figure1, plot_figure2, plot_figure5, plot_pvalue_vs_error
    from holdout.adversarial.cifar10.tables import (
        n_model_table,
        pvalue_markdown,
        pvalue_table,
        read_per_image,
        rejection_summary,
        summary_tables,
    )
    from holdout.adversarial.cifar10.window import CANVAS, check_window, resolve_window_eps

__all__ = [
    "CANVAS",
    "CIFAR10_CLASSES",
    "SETS",
    "attack_model",
    "attack_seed_model",
    "check_recipe",
    "check_window",
    "figure1_table",
    "figure2_example",
    "model_name",
    "model_years",
    "n_model_table",
    "per_image_frame",
    "plot_figure1",
    "plot_figure2",
    "plot_figure5",
    "plot_pvalue_vs_error",
    "pvalue_markdown",
    "pvalue_table",
    "read_per_image",
    "read_recipe",
    "read_train_subset",
    "rejection_summary",
    "resolve_device",
    "resolve_window_eps",
    "sample_indices",
    "seed_model_translations",
    "strongest_successes",
    "success_logits",
    "summary_tables",
    "windowed_classifier",
    "windows_of",
]

# Each public name -> its submodule, imported on first access.
_SUBMODULE_OF = {
    **dict.fromkeys(("CANVAS", "check_window", "resolve_window_eps"), "window"),
    **dict.fromkeys(
        (
            "SETS",
            "attack_model",
            "attack_seed_model",
            "check_recipe",
            "model_name",
            "per_image_frame",
            "read_recipe",
            "read_train_subset",
            "resolve_device",
            "sample_indices",
            "windowed_classifier",
        ),
        "attack",
    ),
    **dict.fromkeys(
        ("n_model_table", "pvalue_markdown", "pvalue_table", "read_per_image", "rejection_summary", "summary_tables"),
        "tables",
    ),
    **dict.fromkeys(
        (
            "CIFAR10_CLASSES",
            "figure1_table",
            "figure2_example",
            "model_years",
            "seed_model_translations",
            "strongest_successes",
            "success_logits",
            "windows_of",
        ),
        "figures",
    ),
    **dict.fromkeys(("plot_figure1", "plot_figure2", "plot_figure5", "plot_pvalue_vs_error"), "plots"),
}
__getattr__, __dir__ = lazy_exports(__name__, _SUBMODULE_OF)
