# Stage: data. Fetch (mirror or download, always verified) into resources/raw/ in the
# mirror's layout, then convert into the one predictions format, resources/predictions/.
# Helpers, available_prediction_sets() and data_targets() are in data_helpers.smk; which sets
# can be built is holdout.data.availability. The three fetch rules share one definition.


include: "data_helpers.smk"


rule data_fetch_file:
    """One file (archive, labels, dataset list) from the mirror or its URL, verified."""
    output:
        f"{DATA_RAW}/{{relpath}}",
    log:
        log_path("data", "fetch/{relpath}"),
    benchmark:
        bench_path("data", "fetch/{relpath}")
    wildcard_constraints:
        relpath="|".join(re.escape(p) for p in _DATA_SINGLE) or "NO_FILE",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(512),
        runtime=attempt_scaled(60),
    params:
        relpaths=lambda w: [w.relpath],
        checksums=lambda w: [data_checksum(w.relpath)],
    script:
        "../scripts/data_fetch.py"


use rule data_fetch_file as data_fetch_cifar10_1_predictions with:
    output:
        [f"{DATA_RAW}/{p}" for p in data_c101_prediction_files("{split}")],
    log:
        log_path("data", "fetch_cifar10_1_{split}_predictions"),
    benchmark:
        bench_path("data", "fetch_cifar10_1_{split}_predictions")
    wildcard_constraints:
        split="|".join(DATA_C101_SPLITS),
    resources:
        mem_mb=attempt_scaled(512),
        runtime=attempt_scaled(30),
    params:
        relpaths=lambda w: data_c101_prediction_files(w.split),
        checksums=lambda w: [data_checksum(p) for p in data_c101_prediction_files(w.split)],


use rule data_fetch_file as data_fetch_imagenet_predictions with:
    output:
        [f"{DATA_RAW}/{p}" for p in data_imagenet_prediction_files("{dataset}")],
    log:
        log_path("data", "fetch_imagenet_{dataset}_predictions"),
    benchmark:
        bench_path("data", "fetch_imagenet_{dataset}_predictions")
    wildcard_constraints:
        dataset="|".join(re.escape(d) for d in DATA["imagenet_datasets"].values()) or "NO_DATASET",
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(60),
    params:
        relpaths=lambda w: data_imagenet_prediction_files(w.dataset),
        checksums=lambda w: [data_checksum(p) for p in data_imagenet_prediction_files(w.dataset)],


rule data_convert_cifar10_1:
    """CIFAR-10.1 v4 / v6: published predictions + labels -> predictions format."""
    input:
        labels=f"{DATA_RAW}/CIFAR-10.1/datasets/cifar10.1_{{version}}_labels.npy",
        predictions=[f"{DATA_RAW}/{p}" for p in data_c101_prediction_files("{version}")],
    output:
        f"{DATA_PRED}/cifar10_1_{{version}}.npz",
    log:
        log_path("data", "convert_cifar10_1_{version}"),
    benchmark:
        bench_path("data", "convert_cifar10_1_{version}")
    wildcard_constraints:
        version="v4|v6",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(10),
    params:
        model_names=list(DATA["cifar10_1_models"].values()),
        test_set=lambda w: f"cifar10_1_{w.version}",
    script:
        "../scripts/data_convert_cifar10_1.py"


rule data_convert_cifar10_original:
    """Original CIFAR-10 test set: published predictions + test_batch labels of the archive."""
    input:
        archive=f"{DATA_RAW}/{DATA_CIFAR10_ARCHIVE}",
        predictions=[f"{DATA_RAW}/{p}" for p in data_c101_prediction_files("original")],
    output:
        data_prediction_path("cifar10_original"),
    log:
        log_path("data", "convert_cifar10_original"),
    benchmark:
        bench_path("data", "convert_cifar10_original")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2048),
        runtime=attempt_scaled(10),
    params:
        model_names=list(DATA["cifar10_1_models"].values()),
        test_set="cifar10_original",
    script:
        "../scripts/data_convert_cifar10_1.py"


rule data_convert_imagenet:
    """ImageNet testbed: top-1 (column 0 of top-5) of every model + labels from the dataset json."""
    input:
        dataset=lambda w: f"{DATA_RAW}/ImageNetV2/data/datasets/{DATA['imagenet_datasets'][w.imagenet_set]}.json",
        class_info=f"{DATA_RAW}/{DATA_IMAGENET_CLASS_INFO}",
        predictions=lambda w: [
            f"{DATA_RAW}/{p}" for p in data_imagenet_prediction_files(DATA["imagenet_datasets"][w.imagenet_set])
        ],
    output:
        f"{DATA_PRED}/{{imagenet_set}}.npz",
    log:
        log_path("data", "convert_{imagenet_set}"),
    benchmark:
        bench_path("data", "convert_{imagenet_set}")
    wildcard_constraints:
        imagenet_set="|".join(re.escape(s) for s in DATA["imagenet_datasets"]) or "NO_SET",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2048),
        runtime=attempt_scaled(10),
    params:
        model_names=list(DATA["imagenet_models"]),
        test_set=lambda w: w.imagenet_set,
    script:
        "../scripts/data_convert_imagenet.py"


rule data_convert_user:
    """Your own models (data.user_predictions): CSV / NPY + labels -> predictions format."""
    input:
        predictions=lambda w: data_user_entries()[w.name]["predictions"],
        labels=lambda w: data_user_entries()[w.name]["labels"],
    output:
        f"{DATA_PRED}/user_{{name}}.npz",
    log:
        log_path("data", "convert_user_{name}"),
    benchmark:
        bench_path("data", "convert_user_{name}")
    wildcard_constraints:
        name="|".join(re.escape(n) for n in data_user_entries()) or "NO_USER_SET",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2048),
        runtime=attempt_scaled(10),
    params:
        entry=lambda w: data_user_entries()[w.name],
    script:
        "../scripts/data_convert_user.py"
