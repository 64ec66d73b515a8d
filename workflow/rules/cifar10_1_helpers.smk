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
    out = [f"{C101_RESULTS}/new_test_accuracies.csv", f"{C101_RESULTS}/new_test_accuracies.md",
           f"{C101_RESULTS}/table5.csv", f"{C101_RESULTS}/table5.md"]
    if "cifar10_original" in sets:
        out += [f"{C101_RESULTS}/{name}" for name in (
            "table1.csv", "table1.md", "table4.csv", "table4.md", "linear_fit.csv", "linear_fit.md",
            "figure2.png", "figure2.pdf", "figure2.csv", "figure2_fit.csv")]
    return out
