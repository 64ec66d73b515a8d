# Stage search_analysis: helpers (functions only; the rules are in search_analysis.smk).
# Uses data_file_available() of data_helpers.smk (the data stage is included first).

SA_RESULTS = "results/search_analysis"
SA_PREDICTIONS = "results/search/predictions"
# the CIFAR-10.1 images the search's predictions on a new test set need (absent from the mirror)
SA_NEW_SET_IMAGES = {
    "cifar10_1_v4": "CIFAR-10.1/datasets/cifar10.1_v4_data.npy",
    "cifar10_1_v6": "CIFAR-10.1/datasets/cifar10.1_v6_data.npy",
}
SA_FIGURE3 = [
    "figure3_similarity.png",
    "figure3_similarity.pdf",
    "figure3_similarity.csv",
    "figure3_covering.png",
    "figure3_covering.pdf",
    "figure3_covering.csv",
    "figure3_summary.json",
    "checkpoints.csv",
]
SA_RECHT = [
    "table1.csv",
    "table1.md",
    "linear_fit.csv",
    "linear_fit.md",
    "figure2.png",
    "figure2.pdf",
    "figure2.csv",
    "figure2_fit.csv",
]


def search_analysis_enabled():
    """search.enabled (the search study trains the checkpoints) and search_analysis.enabled."""
    return bool(config.get("search", {}).get("enabled", False)) and study_enabled("search_analysis")


def search_analysis_predictions(test_set):
    """The search study's predictions file on one test set (the predict rule's contract)."""
    return f"{SA_PREDICTIONS}/{test_set}.npz"


def search_analysis_new_sets():
    """The CIFAR-10.1 sets of search_analysis.recht.new_sets whose images can be had."""
    return [s for s in config["search_analysis"]["recht"]["new_sets"] if data_file_available(SA_NEW_SET_IMAGES[s])]


def search_analysis_targets():
    """Final outputs of the search_analysis stage (empty unless search and this stage are enabled).

    Figure 3 and the Table-1-style rows always; the Recht et al. comparison for every
    CIFAR-10.1 set whose images are available (offline: none).
    """
    if not search_analysis_enabled():
        return []
    out = [f"{SA_RESULTS}/{name}" for name in SA_FIGURE3]
    out += [f"{SA_RESULTS}/table1.csv", f"{SA_RESULTS}/table1.md"]
    for new_set in search_analysis_new_sets():
        out += [f"{SA_RESULTS}/recht_{new_set}/{name}" for name in SA_RECHT]
    return out
