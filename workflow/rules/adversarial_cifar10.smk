# Stage: adversarial_cifar10 (Werpachowski et al. Sec. 5.2 on the workflow's own CIFAR-10 models).
#
# The adversarial overfitting test with translational AEGs (Appendix B) on the seeds study's
# models (one recipe, N seeds, trained on W x W windows of the 32 x 32 images):
#   adversarial_cifar10_attacks   (per model: the four AEGs with exact densities on its
#                                  training subset and on the test set)
#   adversarial_cifar10_summary   (every p-value, the N-model test, Figure 5, p-value vs error)

# Helpers, constants and adversarial_cifar10_targets() are in adversarial_cifar10_helpers.smk.


include: "adversarial_cifar10_helpers.smk"


rule adversarial_cifar10_attacks:
    input:
        checkpoint=lambda wildcards: adversarial_cifar10_checkpoint(wildcards.model),
        recipe=f"{adversarial_cifar10_cfg()['seeds_dir']}/recipe.json",
        train_subset=f"{adversarial_cifar10_cfg()['seeds_dir']}/train_subset.npy",
        arrays=lambda wildcards: TRAINING_CIFAR10_ARRAYS,  # decoded once (training.smk)
    output:
        train=f"{ADV_C10_DIR}/per_image/{{model}}_train.csv",
        test=f"{ADV_C10_DIR}/per_image/{{model}}_test.csv",
    log:
        log_path("adversarial_cifar10", "attacks_{model}"),
    benchmark:
        bench_path("adversarial_cifar10", "attacks_{model}")
    wildcard_constraints:
        model="seed[0-9]+",
    conda:
        "../../envs/torch.yaml"
    threads: lambda wildcards: int(adversarial_cifar10_cfg()["threads"])
    resources:
        mem_mb=lambda wildcards, attempt: int(adversarial_cifar10_cfg()["mem_mb"]) * attempt,
        runtime=lambda wildcards, attempt: int(adversarial_cifar10_cfg()["runtime"]) * attempt,
    params:
        cfg=lambda wildcards: adversarial_cifar10_cfg(),
        window_eps=lambda wildcards: adversarial_cifar10_window_eps(),
    script:
        "../scripts/adversarial_cifar10_attacks.py"


rule adversarial_cifar10_summary:
    input:
        per_image=lambda wildcards: expand(
            f"{ADV_C10_DIR}/per_image/{{model}}_{{split}}.csv",
            model=adversarial_cifar10_models(),
            split=ADV_C10_SETS,
        ),
    output:
        pvalues=report(
            f"{ADV_C10_DIR}/pvalues.csv",
            caption="../report/adversarial_cifar10/pvalues.rst",
            category="Werpachowski et al.",
            subcategory="CIFAR-10 (own models)",
        ),
        pvalues_md=f"{ADV_C10_DIR}/pvalues.md",
        n_model=f"{ADV_C10_DIR}/n_model.csv",
        summary=f"{ADV_C10_DIR}/summary.csv",
        figure5=report(
            f"{ADV_C10_DIR}/figure5.png",
            caption="../report/adversarial_cifar10/figure5.rst",
            category="Werpachowski et al.",
            subcategory="CIFAR-10 (own models)",
        ),
        figure5_pdf=f"{ADV_C10_DIR}/figure5.pdf",
        figure5_csv=f"{ADV_C10_DIR}/figure5.csv",
        error=report(
            f"{ADV_C10_DIR}/pvalue_vs_error.png",
            caption="../report/adversarial_cifar10/pvalue_vs_error.rst",
            category="Werpachowski et al.",
            subcategory="CIFAR-10 (own models)",
        ),
        error_pdf=f"{ADV_C10_DIR}/pvalue_vs_error.pdf",
        error_csv=f"{ADV_C10_DIR}/pvalue_vs_error.csv",
    log:
        log_path("adversarial_cifar10", "summary"),
    benchmark:
        bench_path("adversarial_cifar10", "summary")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        cfg=lambda wildcards: adversarial_cifar10_cfg(),
        models=lambda wildcards: adversarial_cifar10_models(),
    script:
        "../scripts/adversarial_cifar10_summary.py"


rule adversarial_cifar10_figure1:
    """Werpachowski et al. Figure 1: the published models' CIFAR-10 test accuracy by year."""
    input:
        predictions=data_prediction_path("cifar10_original"),
        # in the repository, not the working directory (runs with --directory elsewhere)
        years=str(REPO / "src/holdout/adversarial/data/werpachowski_model_years.csv"),
    output:
        png=report(
            f"{ADV_C10_DIR}/figure1.png",
            caption="../report/adversarial_cifar10/figure1.rst",
            category="Werpachowski et al.",
            subcategory="CIFAR-10 (published models)",
        ),
        pdf=f"{ADV_C10_DIR}/figure1.pdf",
        csv=f"{ADV_C10_DIR}/figure1.csv",
        table=f"{ADV_C10_DIR}/figure1_models.csv",
    log:
        log_path("adversarial_cifar10", "figure1"),
    benchmark:
        bench_path("adversarial_cifar10", "figure1")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../scripts/adversarial_cifar10_figure1.py"


rule adversarial_cifar10_figure2:
    """Werpachowski et al. Figure 2: the strongest AEG's most confident adversarial translation."""
    input:
        per_image=lambda wildcards: expand(
            f"{ADV_C10_DIR}/per_image/{{model}}_test.csv", model=adversarial_cifar10_models()
        ),
        checkpoints=lambda wildcards: [adversarial_cifar10_checkpoint(m) for m in adversarial_cifar10_models()],
        archive=data_raw_path(DATA_CIFAR10_ARCHIVE),
    output:
        png=report(
            f"{ADV_C10_DIR}/figure2.png",
            caption="../report/adversarial_cifar10/figure2.rst",
            category="Werpachowski et al.",
            subcategory="CIFAR-10 (own models)",
        ),
        pdf=f"{ADV_C10_DIR}/figure2.pdf",
        csv=f"{ADV_C10_DIR}/figure2.csv",
    log:
        log_path("adversarial_cifar10", "figure2"),
    benchmark:
        bench_path("adversarial_cifar10", "figure2")
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        models=lambda wildcards: adversarial_cifar10_models(),
        window_eps=lambda wildcards: adversarial_cifar10_window_eps(),
    script:
        "../scripts/adversarial_cifar10_figure2.py"


rule adversarial_cifar10_translations:
    """The translations file of the seeds models (input of `holdout audit --translations`)."""
    input:
        checkpoints=lambda wildcards: [adversarial_cifar10_checkpoint(m) for m in adversarial_cifar10_models()],
        archive=data_raw_path(DATA_CIFAR10_ARCHIVE),
    output:
        translations=f"{ADV_C10_DIR}/translations.npz",
    log:
        log_path("adversarial_cifar10", "translations"),
    benchmark:
        bench_path("adversarial_cifar10", "translations")
    conda:
        "../../envs/torch.yaml"
    threads: lambda wildcards: int(adversarial_cifar10_cfg()["threads"])
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(20),
    params:
        cfg=lambda wildcards: adversarial_cifar10_cfg(),
        models=lambda wildcards: adversarial_cifar10_models(),
        window_eps=lambda wildcards: adversarial_cifar10_window_eps(),
    script:
        "../scripts/adversarial_cifar10_translations.py"
