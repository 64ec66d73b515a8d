"""The synthetic experiment of Werpachowski et al. (2019), Sec. 4 and Appendix A.

Data (A.1): X = R^D (D = 500), an equal mixture of two isotropic Gaussians with
means (+-mu, 0, ..., 0) (mu = 1) and coordinate standard deviation sigma = sqrt(D),
each truncated in the first coordinate so that rho_+(x) = 0 for x_1 <= margin and
rho_-(x) = 0 for x_1 >= -margin (margin = 0.025); the true label is f*(x) = sgn(x_1).

Model (A.1-A.2): f(x) = sgn(w.x + b) trained with the logistic loss
c((w, b), x, y) = ln(1 + exp(-y (w.x + b))) by RMSProp (learning rate 0.01, batch 100,
50,000 steps); the dependent case adds ``penalty * w_1^2`` to the loss.

Attack (Sec. 4, A.1): x' = x - eps y w / ||w||_2; g(x) = x' when x is correctly
classified and f*(x') = f*(x), else g(x) = x. For a point x' the density is

    h_g(x') = rho(x') / (rho(x') + rho(x) (1 - L(f, x)) 1{f*(x) = f*(x')}),

with x = x' + eps f*(x') w / ||w|| the exact (unique) preimage.

Choices the paper leaves open (also in the README):

- **RMSProp variant**: TensorFlow 1's ``tf.train.RMSPropOptimizer`` defaults, the
  optimizer of the paper's time and place: ms <- decay ms + (1 - decay) g^2 with
  decay 0.9, accumulator ms started at **1**, update lr g / sqrt(ms + eps) with
  eps = 1e-10 **inside** the square root, no momentum, not centred.
- **Initialisation**: Glorot-uniform weights (the Keras/TF ``Dense`` default),
  zero bias.
- **Batches**: each run puts its training set in its own random order once and
  then cycles through contiguous batches (random order, no reshuffling; the
  optional per-epoch reshuffle costs more time).
- **Floating point**: float32, one fixed order of operations
  ([`holdout.adversarial.synthetic.kernel`][holdout.adversarial.synthetic.kernel]): the trained models are the same
  bits on every CPU, with or without numba, for any number of threads. The
  training is chaotic (RMSProp's normalised steps amplify a last-bit difference
  to a different model within ~100 steps), so a fixed order is what makes the
  models, and every p-value, reproducible.
- **Dependent case**: the first ``dependent_train_fraction`` of the fixed test
  set *replaces* each run's own training points (``dependent_mode: replace``,
  the default: it reproduces the paper's final penalized loss 0.25 with 100%
  training accuracy and R(f) ~ 1/2) or *joins* them (``join``: 1,000 points at
  the separability limit, 90-100% training accuracy).
- **Range U = 2**: the attack is not density-preserving, so a successful
  adversarial point can have h_g > 1/2 and U = 3/2 does not hold.

Modules: [`mixture`][holdout.adversarial.synthetic.mixture] (data, A.1),
[`training`][holdout.adversarial.synthetic.training] and
[`kernel`][holdout.adversarial.synthetic.kernel] (A.2),
[`attacks`][holdout.adversarial.synthetic.attacks] (Sec. 4, tests of Sec. 3),
[`grid`][holdout.adversarial.synthetic.grid] (the eps grid, numpy only),
[`config`][holdout.adversarial.synthetic.config] (the config section); every public
name of these is importable from ``holdout.adversarial.synthetic``. The workflow's steps are
[`study`][holdout.adversarial.synthetic.study] (train a case, evaluate it, the tables beside the
paper) and [`plots`][holdout.adversarial.synthetic.plots] (Figures 4, 7 and 8).

Every name loads on first use (PEP 562), so that ``import holdout.adversarial.synthetic.grid``
(what the workflow's rule files need at parse time) does not import scipy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from holdout._lazy import lazy_exports

if TYPE_CHECKING:
    from holdout.adversarial.synthetic.attacks import (
        AttackEvaluation,
        attack,
        evaluate_attack,
        evaluate_grid,
        n_model_p_values,
        pairwise_p_values,
    )
    from holdout.adversarial.synthetic.config import (
        case_seeds,
        dependent_transition,
        mixture_from_config,
        train_spec_from_config,
    )
    from holdout.adversarial.synthetic.grid import CASES, check_plot_eps, eps_grid, find_eps
    from holdout.adversarial.synthetic.kernel import training_backend
    from holdout.adversarial.synthetic.mixture import (
        Mixture,
        log_density,
        log_density_from_stats,
        make_training_sets,
        sample_mixture,
        true_risk,
    )
    from holdout.adversarial.synthetic.training import (
        RMSProp,
        TrainedModels,
        TrainSpec,
        initial_parameters,
        penalized_loss,
        train_linear_batched,
    )

__all__ = [
    "CASES",
    "AttackEvaluation",
    "Mixture",
    "RMSProp",
    "TrainSpec",
    "TrainedModels",
    "attack",
    "case_seeds",
    "check_plot_eps",
    "dependent_transition",
    "eps_grid",
    "evaluate_attack",
    "evaluate_grid",
    "find_eps",
    "initial_parameters",
    "log_density",
    "log_density_from_stats",
    "make_training_sets",
    "mixture_from_config",
    "n_model_p_values",
    "pairwise_p_values",
    "penalized_loss",
    "sample_mixture",
    "train_linear_batched",
    "train_spec_from_config",
    "training_backend",
    "true_risk",
]

# Each public name -> its submodule, imported on first access.
_SUBMODULE_OF = {
    **dict.fromkeys(
        ("AttackEvaluation", "attack", "evaluate_attack", "evaluate_grid", "n_model_p_values", "pairwise_p_values"),
        "attacks",
    ),
    **dict.fromkeys(("case_seeds", "dependent_transition", "mixture_from_config", "train_spec_from_config"), "config"),
    **dict.fromkeys(("CASES", "check_plot_eps", "eps_grid", "find_eps"), "grid"),
    "training_backend": "kernel",
    **dict.fromkeys(
        ("Mixture", "log_density", "log_density_from_stats", "make_training_sets", "sample_mixture", "true_risk"),
        "mixture",
    ),
    **dict.fromkeys(
        ("RMSProp", "TrainedModels", "TrainSpec", "initial_parameters", "penalized_loss", "train_linear_batched"),
        "training",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _SUBMODULE_OF)
