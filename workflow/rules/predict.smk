# Stage: predict. Every checkpoint of every model of a study (search, seeds) predicts, one job
# per model with all its checkpoints in one load of the data, in large batches:
#   predict_model   results/<study>/predictions/per_model/<model>/<test_set>.npz
#   predict_gather  results/<study>/predictions/<test_set>.npz  (holdout.predictions, logits in
#                   `scores`, model names <model>@e<epoch:03d>)
# Test sets: cifar10_test, cifar10_train_subset (search: a seeded subset of the images the search
# trained on; seeds: exactly the images the seed models trained on), and cifar10_1_v4 / v6 when
# their images can be fetched (not in the offline mirror: then they are left out).

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


rule predict_model:
    """All checkpoints of one model on every test set (one load of the data, large batches)."""
    input:
        unpack(predict_cifar10_1_inputs),
        checkpoints=lambda w: predict_model_checkpoints(w.study, w.model),
        config="results/{study}/models/{model}/config.json",
        train_subset="results/{study}/train_subset.npy",
        arrays=TRAINING_CIFAR10_ARRAYS,
    output:
        [f"results/{{study}}/predictions/per_model/{{model}}/{t}.npz" for t in predict_test_sets()],
    wildcard_constraints:
        study="|".join(PREDICT_STUDIES),
        model=r"m\d\d\d+|seed\d\d\d+",
    params:
        cfg=lambda w: dict(PREDICT),
        jobs_per_gpu=lambda w: int(config["training"]["jobs_per_gpu"]),
        test_sets=predict_test_sets(),
        missing_cifar10_1=lambda w: sorted(set(PREDICT["cifar10_1_versions"]) - set(predict_cifar10_1_versions())),
    log:
        log_path("predict", "{study}/{model}"),
    benchmark:
        bench_path("predict", "{study}/{model}")
    threads: lambda w: int(PREDICT["threads"])
    resources:
        gpu=1,
        mem_mb=attempt_scaled(int(PREDICT["mem_mb"])),
        runtime=attempt_scaled(int(PREDICT["runtime"])),
    conda:
        "../../envs/torch.yaml"
    script:
        "../scripts/predict_model.py"


rule predict_gather:
    """One predictions file per study and test set: every checkpoint of every model."""
    input:
        lambda w: [f"results/{w.study}/predictions/per_model/{m}/{w.test_set}.npz" for m in predict_models(w.study)],
    output:
        "results/{study}/predictions/{test_set}.npz",
    wildcard_constraints:
        study="|".join(PREDICT_STUDIES),
        test_set="|".join(PREDICT_BASE_SETS + ("cifar10_1_v4", "cifar10_1_v6")),
    log:
        log_path("predict", "{study}/gather_{test_set}"),
    benchmark:
        bench_path("predict", "{study}/gather_{test_set}")
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(10),
    conda:
        "../../envs/torch.yaml"
    script:
        "../scripts/predict_gather.py"


def predict_targets():
    """results/<study>/predictions/<test_set>.npz for every enabled training study."""
    out = []
    for study in PREDICT_STUDIES:
        if predict_models(study):
            out += [f"results/{study}/predictions/{t}.npz" for t in predict_test_sets()]
    return out
