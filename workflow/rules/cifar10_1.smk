# Stage: cifar10_1. Recht et al. (2018) Tables 1, 4, 5 and Figure 2 from the published
# per-image predictions (resources/predictions/, built by the data stage).
# Helpers and cifar10_1_targets() are in cifar10_1_helpers.smk.


include: "cifar10_1_helpers.smk"


rule cifar10_1_new_test_sets:
    """v4 / v6 accuracies with Clopper-Pearson intervals, and Table 5 (v6 vs v4; original columns when available)."""
    input:
        unpack(cifar10_1_new_test_sets_inputs),
    output:
        accuracies=report(
            f"{C101_RESULTS}/new_test_accuracies.csv",
            caption="../report/cifar10_1/new_test_accuracies.rst",
            category="Recht et al. 2018",
            subcategory="Accuracies",
        ),
        accuracies_md=f"{C101_RESULTS}/new_test_accuracies.md",
        table5=report(
            f"{C101_RESULTS}/table5.csv",
            caption="../report/cifar10_1/table5.rst",
            category="Recht et al. 2018",
            subcategory="Table 5",
        ),
        table5_md=f"{C101_RESULTS}/table5.md",
    log:
        log_path("cifar10_1", "new_test_sets"),
    benchmark:
        bench_path("cifar10_1", "new_test_sets")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        alpha=config["cifar10_1"]["alpha"],
    script:
        "../scripts/cifar10_1_new_test_sets.py"


rule cifar10_1_tables_1_4:
    """Table 1 (original and v4 accuracy, 95% intervals, gap, Delta Rank) and Table 4 (errors, ratio)."""
    input:
        original=data_prediction_path("cifar10_original"),
        new=data_prediction_path("cifar10_1_v4"),
    output:
        table1=report(
            f"{C101_RESULTS}/table1.csv",
            caption="../report/cifar10_1/table1.rst",
            category="Recht et al. 2018",
            subcategory="Table 1",
        ),
        table1_md=f"{C101_RESULTS}/table1.md",
        table4=report(
            f"{C101_RESULTS}/table4.csv",
            caption="../report/cifar10_1/table4.rst",
            category="Recht et al. 2018",
            subcategory="Table 4",
        ),
        table4_md=f"{C101_RESULTS}/table4.md",
    log:
        log_path("cifar10_1", "tables_1_4"),
    benchmark:
        bench_path("cifar10_1", "tables_1_4")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        alpha=config["cifar10_1"]["alpha"],
    script:
        "../scripts/cifar10_1_tables_1_4.py"


rule cifar10_1_figure2:
    """Eq. (3) least-squares line with standard errors, and Figure 2 (new vs original, bars, band, y = x)."""
    input:
        table1=f"{C101_RESULTS}/table1.csv",
    output:
        fit=report(
            f"{C101_RESULTS}/linear_fit.csv",
            caption="../report/cifar10_1/linear_fit.rst",
            category="Recht et al. 2018",
            subcategory="Figure 2",
        ),
        fit_md=f"{C101_RESULTS}/linear_fit.md",
        png=report(
            f"{C101_RESULTS}/figure2.png",
            caption="../report/cifar10_1/figure2.rst",
            category="Recht et al. 2018",
            subcategory="Figure 2",
        ),
        pdf=f"{C101_RESULTS}/figure2.pdf",
        points=f"{C101_RESULTS}/figure2.csv",
        line=f"{C101_RESULTS}/figure2_fit.csv",
    log:
        log_path("cifar10_1", "figure2"),
    benchmark:
        bench_path("cifar10_1", "figure2")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        level=config["cifar10_1"]["fit_band_level"],
    script:
        "../scripts/cifar10_1_figure2.py"
