# Helpers of the adversarial_synthetic stage (included by adversarial_synthetic.smk): paths, config, targets.

ADV_SYN_DIR = "results/adversarial_synthetic"
ADV_SYN_CASES = ["independent", "dependent"]


def adversarial_synthetic_cfg():
    """The adversarial.synthetic config section (schema defaults filled in)."""
    return config["adversarial"]["synthetic"]


ADV_SYN_TRAIN_KEYS = [
    "dim",
    "mean",
    "std",
    "margin",
    "n_train",
    "n_test_independent",
    "n_test_dependent",
    "dependent_train_fraction",
    "dependent_mode",
    "penalty_dependent",
    "repetitions",
    "steps",
    "batch_size",
    "learning_rate",
    "rmsprop",
    "init",
    "reshuffle_each_epoch",
    "dtype",
    "seed",
]
ADV_SYN_EVAL_KEYS = ["dim", "mean", "std", "margin", "eps_grid", "eps_extra", "U", "n_models"]


def adversarial_synthetic_params(keys):
    """The given keys of adversarial.synthetic: a rule's params hold only what its output
    depends on, so that changing a plot setting does not retrain the models."""
    cfg = adversarial_synthetic_cfg()
    return {k: cfg[k] for k in keys}


def adversarial_synthetic_targets():
    """Final outputs of the adversarial_synthetic stage (empty when adversarial.enabled or
    adversarial.synthetic.enabled is false)."""
    if not study_enabled("adversarial"):
        return []
    targets = []
    if adversarial_synthetic_cfg().get("enabled", True):
        # fail at start-up, naming the key, when a plotted eps is off the grid
        # light module (numpy only): holdout.adversarial.synthetic would load scipy.stats at parse time
        from holdout.adversarial.synthetic.grid import check_plot_eps

        check_plot_eps(adversarial_synthetic_cfg())
        targets += list(rules.adversarial_synthetic_figures.output)
    return targets
