# Stage adaptive: helpers (functions only); included by adaptive.smk. Uses available_prediction_sets()
# of data_helpers.smk and similarity_label() of similarity_helpers.smk.


def adaptive_sets():
    """The sets of adaptive.sets whose predictions the data stage can provide."""
    available = available_prediction_sets()
    return [s for s in config["adaptive"]["sets"] if s in available]


def adaptive_params(wildcards):
    """The adaptive: config section handed to the study (plain dict)."""
    return dict(config["adaptive"])


def adaptive_targets():
    """Final outputs of the adaptive stage (empty when the stage is disabled)."""
    if not study_enabled("adaptive"):
        return []
    sets = adaptive_sets()
    return expand(list(rules.adaptive_figure.output), set=sets) + expand(list(rules.adaptive_run.output), set=sets)
