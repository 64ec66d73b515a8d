# Study: search. Mania et al. (2019) Sec. 5.2 / Appendix D: a random search over Table 2.
#   search_sample  Table 2 draws -> results/search/configs.csv (+ the training subset's indices)
#   search_train   one job per sampled model (gpu=1): num_checkpoints checkpoints, config.json, log.csv
# Predictions of every checkpoint: predict.smk.


include: "search_helpers.smk"


rule search_sample:
    """n_models configurations from Table 2 (seeded), and the training subset shared by all models."""
    output:
        configs=report(
            f"{SEARCH_DIR}/configs.csv",
            caption="../report/search/configs.rst",
            category="Own models",
            subcategory="Random search (Mania et al. Table 2)",
        ),
        train_subset=f"{SEARCH_DIR}/train_subset.npy",
    log:
        log_path("search", "sample"),
    benchmark:
        bench_path("search", "sample")
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        n_models=lambda w: int(SEARCH["n_models"]),
        seed=lambda w: int(SEARCH["seed"]),
        train_subset_size=lambda w: TRAINING_CAP.size(SEARCH["train_subset_size"]),
        train_subset_seed=lambda w: int(SEARCH["train_subset_seed"]),
        n_total=CIFAR10_TRAIN_SIZE,
    script:
        "../scripts/search_sample.py"


rule search_train:
    """Train one sampled model (resumable: state under resources/training_state/search/)."""
    input:
        configs=f"{SEARCH_DIR}/configs.csv",
        train_subset=f"{SEARCH_DIR}/train_subset.npy",
        arrays=TRAINING_CIFAR10_ARRAYS,
    output:
        checkpoints=[
            str(p) for p in _checkpoint_paths(f"{SEARCH_DIR}/models/{{model}}", int(SEARCH["num_checkpoints"]))
        ],
        config=f"{SEARCH_DIR}/models/{{model}}/config.json",
        log=f"{SEARCH_DIR}/models/{{model}}/log.csv",
    log:
        log_path("search", "train_{model}"),
    benchmark:
        bench_path("search", "train_{model}")
    wildcard_constraints:
        model=r"m\d\d\d+",
    conda:
        "../../envs/torch.yaml"
    threads: lambda w: int(SEARCH["threads"])
    resources:
        gpu=1,
        mem_mb=attempt_scaled(int(SEARCH["mem_mb"])),
        runtime=attempt_scaled(int(SEARCH["runtime"])),
    params:
        cfg=lambda w: dict(SEARCH),
        jobs_per_gpu=lambda w: int(config["training"]["jobs_per_gpu"]),
        state_dir=lambda w: f"{TRAINING_STATE}/search/{w.model}",
        cap=config["training"]["cap"],
    script:
        "../scripts/search_train.py"
