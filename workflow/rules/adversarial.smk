# Stage: adversarial. Rules, then the list of final outputs that "rule all" asks for.


def adversarial_targets():
    """Final outputs of the adversarial stage (empty when the stage is disabled)."""
    if not study_enabled("adversarial"):
        return []
    return []
