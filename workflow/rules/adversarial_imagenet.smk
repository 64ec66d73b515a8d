# Stage: adversarial_imagenet (Werpachowski et al. Sec. 5.2; off by default).
#
# The adversarial overfitting test with translational AEGs (Appendix B) on
# torchvision's VGG16 and ResNet-50 over an ImageNet folder:
#   adversarial_imagenet_attacks   (per model and split: the four AEGs, exact densities)
#   adversarial_imagenet_figure5   (per model: Figure 5, p-values and R_S / R_g vs sample size)
#   adversarial_imagenet_summary   (all models and splits: the tests on the whole samples)

# Helpers, constants and adversarial_imagenet_targets() are in adversarial_imagenet_helpers.smk.


include: "adversarial_imagenet_helpers.smk"


rule adversarial_imagenet_attacks:
    output:
        per_image=f"{ADV_IN_DIR}/{{model}}/{{split}}/per_image.csv",
    log:
        log_path("adversarial_imagenet", "attacks_{model}_{split}"),
    benchmark:
        bench_path("adversarial_imagenet", "attacks_{model}_{split}")
    wildcard_constraints:
        split="train|val",
        model="[A-Za-z0-9_]+",
    conda:
        "../../envs/torch.yaml"
    threads: lambda wildcards: int(adversarial_imagenet_cfg()["threads"])
    resources:
        mem_mb=lambda wildcards, attempt: int(adversarial_imagenet_cfg()["mem_mb"]) * attempt,
        runtime=lambda wildcards, attempt: int(adversarial_imagenet_cfg()["runtime"]) * attempt,
    params:
        cfg=lambda wildcards: adversarial_imagenet_cfg(),
        folder=lambda wildcards: adversarial_imagenet_cfg()[f"{wildcards.split}_dir"],
        sample_size=lambda wildcards: adversarial_imagenet_cfg()[f"{wildcards.split}_sample_size"],
    script:
        "../scripts/adversarial_imagenet_attacks.py"


rule adversarial_imagenet_figure5:
    input:
        per_image=lambda wildcards: expand(
            f"{ADV_IN_DIR}/{wildcards.model}/{{split}}/per_image.csv",
            split=adversarial_imagenet_splits(),
        ),
    output:
        figure=report(
            f"{ADV_IN_DIR}/figure5_{{model}}.png",
            caption="../report/adversarial_imagenet/figure5.rst",
            category="Werpachowski et al. 2019",
            subcategory="ImageNet",
        ),
        pdf=f"{ADV_IN_DIR}/figure5_{{model}}.pdf",
        csv=f"{ADV_IN_DIR}/figure5_{{model}}.csv",
    log:
        log_path("adversarial_imagenet", "figure5_{model}"),
    benchmark:
        bench_path("adversarial_imagenet", "figure5_{model}")
    wildcard_constraints:
        model="[A-Za-z0-9_]+",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        cfg=lambda wildcards: adversarial_imagenet_cfg(),
        splits=lambda wildcards: adversarial_imagenet_splits(),
    script:
        "../scripts/adversarial_imagenet_figure5.py"


rule adversarial_imagenet_summary:
    input:
        per_image=lambda wildcards: expand(
            f"{ADV_IN_DIR}/{{model}}/{{split}}/per_image.csv",
            model=adversarial_imagenet_models(),
            split=adversarial_imagenet_splits(),
        ),
    output:
        summary=report(
            f"{ADV_IN_DIR}/summary.csv",
            caption="../report/adversarial_imagenet/summary.rst",
            category="Werpachowski et al. 2019",
            subcategory="ImageNet",
        ),
    log:
        log_path("adversarial_imagenet", "summary"),
    benchmark:
        bench_path("adversarial_imagenet", "summary")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        cfg=lambda wildcards: adversarial_imagenet_cfg(),
        models=lambda wildcards: adversarial_imagenet_models(),
        splits=lambda wildcards: adversarial_imagenet_splits(),
    script:
        "../scripts/adversarial_imagenet_summary.py"
