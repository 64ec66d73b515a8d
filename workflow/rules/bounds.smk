# Stage: bounds. Rules, then the list of final outputs that "rule all" asks for.


def bounds_targets():
    """Final outputs of the bounds stage (empty when the stage is disabled)."""
    if not study_enabled("bounds"):
        return []
    return []
