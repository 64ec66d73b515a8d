# Stage: adaptive (beyond the papers): how much an adaptive analyst can overfit a test set with
# real predictions; attacks (Blum & Hardt 2015 boosting, selective ensembling, best of k) against
# mechanisms (trivial, Ladder, Thresholdout), beside Mania et al.'s Section 4 bound.
# Reads resources/predictions/<set>.npz (holdout.predictions format).


include: "adaptive_helpers.smk"


rule adaptive_run:
    input:
        predictions="resources/predictions/{set}.npz",
    output:
        runs="results/adaptive/{set}/runs.csv",
        table_csv=report(
            "results/adaptive/{set}/table.csv",
            caption="../report/adaptive/table.rst",
            category="Adaptive analyst",
            subcategory="{set}",
        ),
        table_md="results/adaptive/{set}/table.md",
        summary="results/adaptive/{set}/summary.json",
    log:
        log_path("adaptive", "run_{set}"),
    benchmark:
        bench_path("adaptive", "run_{set}")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(20),
    params:
        cfg=adaptive_params,
    script:
        "../scripts/adaptive_run.py"


rule adaptive_figure:
    input:
        table=rules.adaptive_run.output.table_csv,
    output:
        png=report(
            "results/adaptive/{set}/overfit.png",
            caption="../report/adaptive/overfit.rst",
            category="Adaptive analyst",
            subcategory="{set}",
        ),
        pdf="results/adaptive/{set}/overfit.pdf",
        csv="results/adaptive/{set}/overfit.csv",
    log:
        log_path("adaptive", "figure_{set}"),
    benchmark:
        bench_path("adaptive", "figure_{set}")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        label=lambda wc: similarity_label(wc.set),
    script:
        "../scripts/adaptive_figure.py"
