# Study: seeds. One recipe trained with N seeds (Werpachowski et al. Sec. 3.3, the N-model test):
#   seeds_recipe  results/seeds/recipe.json and the shared training subset results/seeds/train_subset.npy
#   seeds_train   one job per seed (gpu=1): results/seeds/models/seed<seed:03d>/checkpoint_XX.pt, config.json, log.csv;
#                 with training.fused_members > 1, seeds_train_groupNNN instead: one job per fused group
# Predictions: predict.smk.


include: "seeds_helpers.smk"


rule seeds_recipe:
    """The recipe (model, training configuration, window, seeds) and the training subset's indices."""
    output:
        recipe=f"{SEEDS_DIR}/recipe.json",
        train_subset=f"{SEEDS_DIR}/train_subset.npy",
    log:
        log_path("seeds", "recipe"),
    benchmark:
        bench_path("seeds", "recipe")
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        cfg=lambda w: dict(SEEDS, train_subset_size=TRAINING_CAP.size(SEEDS["train_subset_size"])),
        n_total=CIFAR10_TRAIN_SIZE,
    script:
        "../scripts/seeds_recipe.py"


if not SEEDS_GROUPS:

    rule seeds_train:
        """Train the recipe with one seed (resumable: state under resources/training_state/seeds/)."""
        input:
            recipe=f"{SEEDS_DIR}/recipe.json",
            train_subset=f"{SEEDS_DIR}/train_subset.npy",
            arrays=TRAINING_CIFAR10_ARRAYS,
        output:
            checkpoints=[
                str(p) for p in _checkpoint_paths(f"{SEEDS_DIR}/models/{{model}}", int(SEEDS["num_checkpoints"]))
            ],
            config=f"{SEEDS_DIR}/models/{{model}}/config.json",
            log=f"{SEEDS_DIR}/models/{{model}}/log.csv",
        log:
            log_path("seeds", "train_{model}"),
        benchmark:
            bench_path("seeds", "train_{model}")
        wildcard_constraints:
            model=r"seed\d\d\d+",
        conda:
            "../../envs/torch.yaml"
        threads: lambda w: int(SEEDS["threads"])
        resources:
            gpu=1,
            mem_mb=attempt_scaled(int(SEEDS["mem_mb"])),
            runtime=attempt_scaled(int(SEEDS["runtime"])),
        params:
            cfg=lambda w: dict(SEEDS),
            jobs_per_gpu=lambda w: int(config["training"]["jobs_per_gpu"]),
            state_dir=lambda w: f"{TRAINING_STATE}/seeds/{w.model}",
            cap=config["training"]["cap"],
        script:
            "../scripts/seeds_train.py"

else:
    for _g, _models in enumerate(SEEDS_GROUPS):

        rule:
            name:
                f"seeds_train_group{_g:03d}"
            input:
                recipe=f"{SEEDS_DIR}/recipe.json",
                train_subset=f"{SEEDS_DIR}/train_subset.npy",
                arrays=TRAINING_CIFAR10_ARRAYS,
            output:
                [f for m in _models for f in seeds_model_outputs(m)],
            log:
                log_path("seeds", f"train_group{_g:03d}"),
            benchmark:
                bench_path("seeds", f"train_group{_g:03d}")
            conda:
                "../../envs/torch.yaml"
            threads: int(SEEDS["threads"])
            resources:
                gpu=1,
                mem_mb=attempt_scaled(int(SEEDS["mem_mb"]) * len(_models)),
                runtime=attempt_scaled(int(SEEDS["runtime"])),
            params:
                cfg=dict(SEEDS),
                models=list(_models),
                jobs_per_gpu=int(config["training"]["jobs_per_gpu"]),
                state_dirs=[f"{TRAINING_STATE}/seeds/{m}" for m in _models],
                cap=config["training"]["cap"],
            script:
                "../scripts/seeds_train_group.py"
