# Helpers and constants of the predict stage (rules: predict.smk).

PREDICT = config["predict"]
PREDICT_STUDIES = ("search", "seeds")
PREDICT_BASE_SETS = ("cifar10_test", "cifar10_train_subset")


def predict_cifar10_1_image_file(version):
    return f"CIFAR-10.1/datasets/cifar10.1_{version}_data.npy"


def predict_cifar10_1_versions():
    """The CIFAR-10.1 versions whose images and labels can be fetched under this config."""
    return [
        v
        for v in PREDICT["cifar10_1_versions"]
        if data_file_available(predict_cifar10_1_image_file(v))
        and data_file_available(f"CIFAR-10.1/datasets/cifar10.1_{v}_labels.npy")
    ]


def predict_test_sets():
    return list(PREDICT_BASE_SETS) + [f"cifar10_1_{v}" for v in predict_cifar10_1_versions()]


def predict_models(study):
    return search_models() if study == "search" else seeds_models()


def predict_model_checkpoints(study, model):
    outs = search_model_outputs(model) if study == "search" else seeds_model_outputs(model)
    return [p for p in outs if p.endswith(".pt")]


def predict_cifar10_1_inputs(wildcards):
    out = {}
    for v in predict_cifar10_1_versions():
        out[f"images_{v}"] = data_raw_path(predict_cifar10_1_image_file(v))
        out[f"labels_{v}"] = data_raw_path(f"CIFAR-10.1/datasets/cifar10.1_{v}_labels.npy")
    return out


def predict_targets():
    """results/<study>/predictions/<test_set>.npz for every enabled training study."""
    out = []
    for study in PREDICT_STUDIES:
        if predict_models(study):
            out += [f"results/{study}/predictions/{t}.npz" for t in predict_test_sets()]
    return out
