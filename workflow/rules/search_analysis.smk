# Stage: search_analysis. Mania et al. (2019) Figure 3 and Table-1-style rows of the checkpoints
# of our own random search, and the Recht et al. (2018) comparison with CIFAR-10.1 when its
# images exist. Reads results/search/predictions/<test_set>.npz (holdout.predictions format,
# written by the search study's predict rule). Helpers and search_analysis_targets() are in
# search_analysis_helpers.smk; library: holdout.search_analysis.


include: "search_analysis_helpers.smk"


rule search_analysis_figure3:
    """Mania et al. Fig. 3: pair similarities of the checkpoints with accuracy >= search_analysis.min_accuracy
    vs independent errors, N_eta (the paper and config/paper.yaml: 50%; the CPU default: 25%)."""
    input:
        predictions=search_analysis_predictions(config["search_analysis"]["test_set"]),
    output:
        pairs_png=report(
            f"{SA_RESULTS}/figure3_similarity.png",
            caption="../report/search_analysis/figure3_similarity.rst",
            category="Our random search",
            subcategory="Figure 3",
        ),
        pairs_pdf=f"{SA_RESULTS}/figure3_similarity.pdf",
        pairs_csv=f"{SA_RESULTS}/figure3_similarity.csv",
        covering_png=report(
            f"{SA_RESULTS}/figure3_covering.png",
            caption="../report/search_analysis/figure3_covering.rst",
            category="Our random search",
            subcategory="Figure 3",
        ),
        covering_pdf=f"{SA_RESULTS}/figure3_covering.pdf",
        covering_csv=f"{SA_RESULTS}/figure3_covering.csv",
        summary=report(
            f"{SA_RESULTS}/figure3_summary.json",
            caption="../report/search_analysis/figure3_summary.rst",
            category="Our random search",
            subcategory="Figure 3",
        ),
        checkpoints=f"{SA_RESULTS}/checkpoints.csv",
    log:
        log_path("search_analysis", "figure3"),
    benchmark:
        bench_path("search_analysis", "figure3")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        min_accuracy=config["search_analysis"]["min_accuracy"],
        eta=config["search_analysis"]["eta"],
    script:
        "../scripts/search_analysis_figure3.py"


rule search_analysis_table1:
    """Table-1-style rows of the kept checkpoints: all, 20 random, 20 highest scoring; SB and NBB gains."""
    input:
        predictions=search_analysis_predictions(config["search_analysis"]["test_set"]),
    output:
        csv=report(
            f"{SA_RESULTS}/table1.csv",
            caption="../report/search_analysis/table1.rst",
            category="Our random search",
            subcategory="Table 1 (testable models)",
        ),
        md=f"{SA_RESULTS}/table1.md",
    log:
        log_path("search_analysis", "table1"),
    benchmark:
        bench_path("search_analysis", "table1")
    conda:
        "../../envs/analysis.yaml"
    threads: 2
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(30),
    params:
        min_accuracy=config["search_analysis"]["min_accuracy"],
        table1=config["search_analysis"]["table1"],
    script:
        "../scripts/search_analysis_table1.py"


rule search_analysis_recht:
    """Recht et al. Table 1, Eq. (3) and Figure 2 for the checkpoints: CIFAR-10 test set vs a CIFAR-10.1 set."""
    input:
        original=search_analysis_predictions(config["search_analysis"]["test_set"]),
        new=search_analysis_predictions("{new_set}"),
    output:
        table1=report(
            f"{SA_RESULTS}/recht_{{new_set}}/table1.csv",
            caption="../report/search_analysis/recht_table1.rst",
            category="Our random search",
            subcategory="Recht et al. comparison",
        ),
        table1_md=f"{SA_RESULTS}/recht_{{new_set}}/table1.md",
        fit=f"{SA_RESULTS}/recht_{{new_set}}/linear_fit.csv",
        fit_md=f"{SA_RESULTS}/recht_{{new_set}}/linear_fit.md",
        png=report(
            f"{SA_RESULTS}/recht_{{new_set}}/figure2.png",
            caption="../report/search_analysis/recht_figure2.rst",
            category="Our random search",
            subcategory="Recht et al. comparison",
        ),
        pdf=f"{SA_RESULTS}/recht_{{new_set}}/figure2.pdf",
        points=f"{SA_RESULTS}/recht_{{new_set}}/figure2.csv",
        line=f"{SA_RESULTS}/recht_{{new_set}}/figure2_fit.csv",
    log:
        log_path("search_analysis", "recht_{new_set}"),
    benchmark:
        bench_path("search_analysis", "recht_{new_set}")
    wildcard_constraints:
        new_set="cifar10_1_v4|cifar10_1_v6",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        recht=config["search_analysis"]["recht"],
    script:
        "../scripts/search_analysis_recht.py"
