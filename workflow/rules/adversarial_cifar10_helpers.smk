# Helpers of the adversarial_cifar10 stage (included by adversarial_cifar10.smk).
from snakemake.exceptions import WorkflowError

# light modules (no pandas, no torch): parsing the workflow stays fast
from holdout.adversarial.cifar10.window import resolve_window_eps as _adv_c10_resolve
from holdout.training.naming import seed_model_name as _adv_c10_model_name

ADV_C10_DIR = "results/adversarial_cifar10"
ADV_C10_SETS = ("train", "test")


def adversarial_cifar10_cfg():
    """The adversarial_cifar10 config section (schema defaults filled in)."""
    return config["adversarial_cifar10"]


def adversarial_cifar10_active():
    """True when the study runs: enabled, and the workflow has the seeds study (its `seeds`
    config section) or adversarial_cifar10.seeds names the models; an error when it is
    enabled but the seeds study is switched off."""
    if not study_enabled("adversarial_cifar10"):
        return False
    if "seeds" not in config:
        return adversarial_cifar10_cfg()["seeds"] is not None
    if not config["seeds"].get("enabled", True):
        raise WorkflowError(
            "adversarial_cifar10.enabled is true but seeds.enabled is false: the test needs the "
            "seeds study's models (enable it, or set adversarial_cifar10.enabled: false)"
        )
    return True


def adversarial_cifar10_window_eps():
    """(W, eps), checked against the 32 x 32 canvas (every window within 3 eps inside it)."""
    cfg = adversarial_cifar10_cfg()
    try:
        return _adv_c10_resolve(cfg["window"], cfg["eps"], config.get("seeds", {}).get("window"))
    except ValueError as exc:
        raise WorkflowError(str(exc)) from None


def adversarial_cifar10_seeds():
    """The seeds tested: adversarial_cifar10.seeds, else the seeds study's (seeds.first_seed,
    first_seed + 1, ..., n_models of them); the first adversarial_cifar10.n_models when set.
    """
    cfg = adversarial_cifar10_cfg()
    s = config.get("seeds", {})
    if cfg["seeds"] is not None:
        seeds = [int(v) for v in cfg["seeds"]]
    else:
        first = int(s.get("first_seed", 0))
        seeds = list(range(first, first + int(s["n_models"])))
    n = cfg["n_models"]
    if n is not None:
        if n > len(seeds):
            raise WorkflowError(f"adversarial_cifar10.n_models = {n} but only {len(seeds)} seeds models exist")
        seeds = seeds[:n]
    if not seeds:
        raise WorkflowError("adversarial_cifar10: the seeds study has no models")
    return seeds


def adversarial_cifar10_models():
    return [_adv_c10_model_name(s) for s in adversarial_cifar10_seeds()]


def adversarial_cifar10_checkpoint(model):
    """The final checkpoint of a seeds model: the last of holdout.training.checkpoint_paths
    (checkpoint_<K>.pt, K = seeds.num_checkpoints, at least two digits)."""
    k = int(config.get("seeds", {}).get("num_checkpoints", 1))
    width = max(2, len(str(k)))
    return f"{adversarial_cifar10_cfg()['seeds_dir']}/models/{model}/checkpoint_{k:0{width}d}.pt"


def adversarial_cifar10_figure1_targets():
    """Figure 1 of Werpachowski et al. (published models by year): needs only the published
    CIFAR-10 predictions, so it is made whenever the study is enabled and they are available."""
    if not study_enabled("adversarial_cifar10") or "cifar10_original" not in available_prediction_sets():
        return []
    return [f"{ADV_C10_DIR}/figure1.{ext}" for ext in ("png", "pdf", "csv")] + [f"{ADV_C10_DIR}/figure1_models.csv"]


def adversarial_cifar10_targets():
    """Final outputs of the CIFAR-10 adversarial study (empty when it does not run)."""
    if not adversarial_cifar10_active():
        return adversarial_cifar10_figure1_targets()
    adversarial_cifar10_window_eps()  # refuse a window/eps the canvas cannot hold, before anything runs
    adversarial_cifar10_models()
    return [
        f"{ADV_C10_DIR}/{name}"
        for name in (
            "pvalues.csv",
            "pvalues.md",
            "n_model.csv",
            "summary.csv",
            "figure5.png",
            "figure5.pdf",
            "figure5.csv",
            "pvalue_vs_error.png",
            "pvalue_vs_error.pdf",
            "pvalue_vs_error.csv",
            "figure2.png",
            "figure2.pdf",
            "figure2.csv",
            "translations.npz",
        )
    ] + adversarial_cifar10_figure1_targets()
