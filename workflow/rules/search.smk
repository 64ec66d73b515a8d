# Study: search. Mania et al. (2019) Sec. 5.2 / Appendix D: a random search over Table 2.
#   search_sample  Table 2 draws -> results/search/configs.csv (+ the training subset's indices)
#   search_train   one job per sampled model (gpu=1): num_checkpoints checkpoints, config.json, log.csv;
#                  with training.fused_members > 1, search_train_groupNNN instead: one job per fused
#                  group (same files per model; holdout.training.fused)
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


if not SEARCH_GROUPS:

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

else:
    for _g, _models in enumerate(SEARCH_GROUPS):

        rule:
            name:
                f"search_train_group{_g:03d}"
            input:
                configs=f"{SEARCH_DIR}/configs.csv",
                train_subset=f"{SEARCH_DIR}/train_subset.npy",
                arrays=TRAINING_CIFAR10_ARRAYS,
            output:
                [f for m in _models for f in search_model_outputs(m)],
            log:
                log_path("search", f"train_group{_g:03d}"),
            benchmark:
                bench_path("search", f"train_group{_g:03d}")
            conda:
                "../../envs/torch.yaml"
            threads: int(SEARCH["threads"])
            resources:
                gpu=1,
                mem_mb=attempt_scaled(int(SEARCH["mem_mb"]) * len(_models)),
                runtime=attempt_scaled(int(SEARCH["runtime"])),
            params:
                cfg=dict(SEARCH),
                models=list(_models),
                jobs_per_gpu=int(config["training"]["jobs_per_gpu"]),
                state_dirs=[f"{TRAINING_STATE}/search/{m}" for m in _models],
                cap=config["training"]["cap"],
            script:
                "../scripts/search_train_group.py"
