# Stage cifar10_1: helpers (functions only; the rules are in cifar10_1.smk).
# Uses available_prediction_sets() and data_prediction_path() of data_helpers.smk.

C101_RESULTS = "results/cifar10_1"


def cifar10_1_have_original():
    """True when the original CIFAR-10 test labels can be had (the archive is available)."""
    return "cifar10_original" in available_prediction_sets()


def cifar10_1_new_test_sets_inputs(wildcards):
    inputs = {"v4": data_prediction_path("cifar10_1_v4"), "v6": data_prediction_path("cifar10_1_v6")}
    if cifar10_1_have_original():
        inputs["original"] = data_prediction_path("cifar10_original")
    return inputs


def cifar10_1_targets():
    """Final outputs of the cifar10_1 stage (empty when the stage is disabled).

    Without the CIFAR-10 archive (offline mirror lacking it) only the outputs that do not
    need the original test labels: v4/v6 accuracies with intervals and Table 5.
    """
    if not study_enabled("cifar10_1"):
        return []
    sets = available_prediction_sets()
    if not {"cifar10_1_v4", "cifar10_1_v6"} <= sets:
        return []
    out = list(rules.cifar10_1_new_test_sets.output)
    if "cifar10_original" in sets:
        out += [*rules.cifar10_1_tables_1_4.output, *rules.cifar10_1_figure2.output]
    return out
