# Stage: similarity. Rules, then the list of final outputs that "rule all" asks for.


def similarity_targets():
    """Final outputs of the similarity stage (empty when the stage is disabled)."""
    if not study_enabled("similarity"):
        return []
    return []
