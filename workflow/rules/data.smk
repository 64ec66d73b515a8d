# Stage: data. Rules, then the list of final outputs that "rule all" asks for.


def data_targets():
    """Final outputs of the data stage (empty when the stage is disabled)."""
    if not study_enabled("data"):
        return []
    return []
