# Stage: adversarial_imagenet (Werpachowski et al. Sec. 5.2; off by default).


def adversarial_imagenet_targets():
    """Final outputs of the ImageNet adversarial study (empty when disabled)."""
    if not study_enabled("adversarial_imagenet"):
        return []
    return []
