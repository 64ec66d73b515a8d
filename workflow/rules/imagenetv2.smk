# Stage: imagenetv2. Recht et al. (2019), ImageNet -> ImageNetV2 MatchedFrequency from the 67
# testbed models: top-1 / top-5 with intervals, gaps, the linear fit (all 67 and the 64
# convolutional models), the figure in the style of Recht et al. (2018) Figure 2, the similarity
# lens on both sets. Helpers and imagenetv2_targets() are in imagenetv2_helpers.smk.


include: "imagenetv2_helpers.smk"


rule imagenetv2_tables:
    """Top-1 / top-5 with Clopper-Pearson intervals on both sets, gaps, Delta rank, fits, similarity, paper check."""
    input:
        original=data_prediction_path(IV2["original_set"]),
        new=data_prediction_path(IV2["new_set"]),
        top5_original=imagenetv2_top5_files(IV2["original_set"]),
        top5_new=imagenetv2_top5_files(IV2["new_set"]),
    output:
        accuracies=report(
            f"{IV2_RESULTS}/accuracies.csv",
            caption="../report/imagenetv2/accuracies.rst",
            category="Recht et al. 2019 (ImageNetV2)",
            subcategory="Accuracies",
        ),
        accuracies_md=f"{IV2_RESULTS}/accuracies.md",
        fit=report(
            f"{IV2_RESULTS}/linear_fit.csv",
            caption="../report/imagenetv2/linear_fit.rst",
            category="Recht et al. 2019 (ImageNetV2)",
            subcategory="Linear fit",
        ),
        fit_md=f"{IV2_RESULTS}/linear_fit.md",
        similarity=report(
            f"{IV2_RESULTS}/similarity.csv",
            caption="../report/imagenetv2/similarity.rst",
            category="Recht et al. 2019 (ImageNetV2)",
            subcategory="Similarity",
        ),
        similarity_md=f"{IV2_RESULTS}/similarity.md",
        check=report(
            f"{IV2_RESULTS}/paper_check.csv",
            caption="../report/imagenetv2/paper_check.rst",
            category="Recht et al. 2019 (ImageNetV2)",
            subcategory="Accuracies",
        ),
        check_md=f"{IV2_RESULTS}/paper_check.md",
    log:
        log_path("imagenetv2", "tables"),
    benchmark:
        bench_path("imagenetv2", "tables")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(3000),
        runtime=attempt_scaled(15),
    params:
        alpha=IV2["alpha"],
        non_convolutional=IV2["non_convolutional"],
        eps=IV2["eps"],
        delta=IV2["delta"],
    script:
        "../scripts/imagenetv2_tables.py"


rule imagenetv2_figure:
    """New vs original top-1 with interval bars, both least-squares lines, the band, y = x."""
    input:
        accuracies=f"{IV2_RESULTS}/accuracies.csv",
        fit=f"{IV2_RESULTS}/linear_fit.csv",
    output:
        png=report(
            f"{IV2_RESULTS}/figure_top1.png",
            caption="../report/imagenetv2/figure_top1.rst",
            category="Recht et al. 2019 (ImageNetV2)",
            subcategory="Linear fit",
        ),
        pdf=f"{IV2_RESULTS}/figure_top1.pdf",
        points=f"{IV2_RESULTS}/figure_top1.csv",
        lines=f"{IV2_RESULTS}/figure_top1_fit.csv",
    log:
        log_path("imagenetv2", "figure"),
    benchmark:
        bench_path("imagenetv2", "figure")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        level=IV2["fit_band_level"],
    script:
        "../scripts/imagenetv2_figure.py"
