# Stage imagenetv2: helpers (functions only; the rules are in imagenetv2.smk).
# Uses available_prediction_sets(), data_prediction_path() and data_raw_path() of data_helpers.smk.

IV2 = config["imagenetv2"]
IV2_RESULTS = "results/imagenetv2"


def imagenetv2_top5_files(set_name):
    """The testbed's raw top-5 arrays of prediction set ``set_name`` (fetched, verified by the data stage)."""
    dataset = DATA["imagenet_datasets"][set_name]
    return [data_raw_path(p) for p in data_imagenet_prediction_files(dataset)]


def imagenetv2_targets():
    """Final outputs of the imagenetv2 stage: empty when disabled or a testbed set is unavailable."""
    if not study_enabled("imagenetv2"):
        return []
    if not {IV2["original_set"], IV2["new_set"]} <= available_prediction_sets():
        return []
    return [
        f"{IV2_RESULTS}/{name}"
        for name in (
            "accuracies.csv",
            "accuracies.md",
            "linear_fit.csv",
            "linear_fit.md",
            "similarity.csv",
            "similarity.md",
            "paper_check.csv",
            "paper_check.md",
            "figure_top1.png",
            "figure_top1.pdf",
            "figure_top1.csv",
            "figure_top1_fit.csv",
        )
    ]
