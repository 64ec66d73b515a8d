# Stage: rvw. Rules, then the list of final outputs that "rule all" asks for.


def rvw_targets():
    """Final outputs of the rvw stage (empty when the stage is disabled)."""
    if not study_enabled("rvw"):
        return []
    return []
