# Stage similarity: helpers (functions only, so that `snakemake --lint` stays clean); included by
# similarity.smk. Uses available_prediction_sets() of data_helpers.smk (the data stage).

SIMILARITY_LABELS = {
    "imagenet_val": "ImageNet validation",
    "imagenetv2_b33": "ImageNetV2 MatchedFrequency",
    "cifar10_original": "CIFAR-10 test set",
    "cifar10_1_v4": "CIFAR-10.1 v4",
    "cifar10_1_v6": "CIFAR-10.1 v6",
}


def similarity_label(name):
    """Readable name of a prediction set (user sets: user_<name> -> 'user set <name>')."""
    if name in SIMILARITY_LABELS:
        return SIMILARITY_LABELS[name]
    if name.startswith("user_"):
        return f"user set {name[len('user_'):]}"
    return name


def similarity_sets():
    """The sets of similarity.sets whose predictions the data stage can provide."""
    available = available_prediction_sets()  # data_helpers.smk (data.smk is included first)
    return [s for s in config["similarity"]["sets"] if s in available]


def similarity_table1_sets():
    """The sets of similarity.table1.sets that are analysed and available."""
    analysed = set(similarity_sets())
    return [s for s in config["similarity"]["table1"]["sets"] if s in analysed]


def similarity_targets():
    """Final outputs of the similarity stage (empty when the stage is disabled)."""
    if not study_enabled("similarity"):
        return []
    sets = similarity_sets()
    targets = expand(list(rules.similarity_plots.output), set=sets)
    targets += expand(rules.similarity_analyse.output.summary, set=sets)
    if config["similarity"]["setting_set"] in sets:
        targets += list(rules.similarity_setting.output)
    if similarity_table1_sets():
        targets += list(rules.similarity_table1.output)
    return targets
