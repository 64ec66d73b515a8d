# Stage: cifar10_1. Rules, then the list of final outputs that "rule all" asks for.


def cifar10_1_targets():
    """Final outputs of the cifar10_1 stage (empty when the stage is disabled)."""
    if not study_enabled("cifar10_1"):
        return []
    return []
