# Stage: predict. Every checkpoint of every model of a study (search, seeds) predicts, one job
# per model with all its checkpoints in one load of the data, in large batches:
#   predict_model   results/<study>/predictions/per_model/<model>/<test_set>.npz
#   predict_gather  results/<study>/predictions/<test_set>.npz  (holdout.predictions, logits in
#                   `scores`, model names <model>@e<epoch:03d>)
# Test sets: cifar10_test, cifar10_train_subset (search: a seeded subset of the images the search
# trained on; seeds: exactly the images the seed models trained on), and cifar10_1_v4 / v6 when
# their images can be fetched (not in the offline mirror: then they are left out).


include: "predict_helpers.smk"


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
    log:
        log_path("predict", "{study}/{model}"),
    benchmark:
        bench_path("predict", "{study}/{model}")
    wildcard_constraints:
        study="|".join(PREDICT_STUDIES),
        model=r"m\d\d\d+|seed\d\d\d+",
    conda:
        "../../envs/torch.yaml"
    threads: lambda w: int(PREDICT["threads"])
    resources:
        gpu=1,
        mem_mb=attempt_scaled(int(PREDICT["mem_mb"])),
        runtime=attempt_scaled(int(PREDICT["runtime"])),
    params:
        cfg=lambda w: dict(PREDICT, train_subset_size=TRAINING_CAP.size(PREDICT["train_subset_size"])),
        max_images=TRAINING_CAP.images,
        jobs_per_gpu=lambda w: int(config["training"]["jobs_per_gpu"]),
        test_sets=predict_test_sets(),
        missing_cifar10_1=lambda w: sorted(set(PREDICT["cifar10_1_versions"]) - set(predict_cifar10_1_versions())),
    script:
        "../scripts/predict_model.py"


rule predict_gather:
    """One predictions file per study and test set: every checkpoint of every model."""
    input:
        lambda w: [f"results/{w.study}/predictions/per_model/{m}/{w.test_set}.npz" for m in predict_models(w.study)],
    output:
        "results/{study}/predictions/{test_set}.npz",
    log:
        log_path("predict", "{study}/gather_{test_set}"),
    benchmark:
        bench_path("predict", "{study}/gather_{test_set}")
    wildcard_constraints:
        study="|".join(PREDICT_STUDIES),
        test_set="|".join(PREDICT_BASE_SETS + ("cifar10_1_v4", "cifar10_1_v6")),
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(10),
    script:
        "../scripts/predict_gather.py"
