# Helpers of the adversarial_imagenet stage (included by adversarial_imagenet.smk).

ADV_IN_DIR = "results/adversarial_imagenet"
ADV_IN_SPLITS = ("train", "val")


def adversarial_imagenet_cfg():
    """The adversarial_imagenet config section (schema defaults filled in)."""
    return config["adversarial_imagenet"]


def adversarial_imagenet_splits():
    """Splits with a folder in config (train: the paper's Figure 5; val: the test set)."""
    cfg = adversarial_imagenet_cfg()
    return [s for s in ADV_IN_SPLITS if cfg.get(f"{s}_dir")]


def adversarial_imagenet_models():
    return list(adversarial_imagenet_cfg()["models"])


def adversarial_imagenet_targets():
    """Final outputs of the ImageNet adversarial study (empty when disabled)."""
    if not study_enabled("adversarial_imagenet"):
        return []
    if not adversarial_imagenet_splits():
        raise ValueError(
            "adversarial_imagenet.enabled is true but neither adversarial_imagenet.val_dir nor "
            "adversarial_imagenet.train_dir is set: give the ImageNet folder(s) in the config"
        )
    return expand(
        list(rules.adversarial_imagenet_figure5.output),
        model=adversarial_imagenet_models(),
    ) + list(rules.adversarial_imagenet_summary.output)
