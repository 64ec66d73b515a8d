# Stage: similarity (Mania et al. 2019: Fig. 1a, Fig. 4, covering numbers of Definition 1,
# Table-1-like SB/NBB gains). Reads resources/predictions/<set>.npz (holdout.predictions format).
# Helpers and similarity_targets() (the final outputs that "rule all" asks for) are in
# similarity_helpers.smk.


include: "similarity_helpers.smk"


wildcard_constraints:
    set=r"[A-Za-z0-9_]+",


rule similarity_analyse:
    input:
        predictions="resources/predictions/{set}.npz",
    output:
        summary="results/similarity/{set}/summary.json",
        models="results/similarity/{set}/models.csv",
        pairs="results/similarity/{set}/pairs.csv",
        covering="results/similarity/{set}/covering_numbers.csv",
        difficulty="results/similarity/{set}/difficulty.csv",
    log:
        log_path("similarity", "analyse_{set}"),
    benchmark:
        bench_path("similarity", "analyse_{set}")
    conda:
        "../../envs/analysis.yaml"
    threads: 2
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(15),
    params:
        exclude_models=config["similarity"]["exclude_models"],
        method=config["similarity"]["method"],
        quantiles=config["similarity"]["quantiles"],
        eta_min=config["similarity"]["eta"]["min"],
        eta_max=config["similarity"]["eta"]["max"],
        eta_num=config["similarity"]["eta"]["num"],
    script:
        "../scripts/similarity_analyse.py"


rule similarity_plots:
    input:
        summary=rules.similarity_analyse.output.summary,
        pairs=rules.similarity_analyse.output.pairs,
        covering=rules.similarity_analyse.output.covering,
        difficulty=rules.similarity_analyse.output.difficulty,
    output:
        fig1a_png=report(
            "results/similarity/{set}/fig1a_pairs.png",
            caption="../report/similarity/fig1a_pairs.rst",
            category="Mania et al. 2019",
            subcategory="Similarity: {set}",
        ),
        fig1a_pdf="results/similarity/{set}/fig1a_pairs.pdf",
        scatter_png=report(
            "results/similarity/{set}/pairs_scatter.png",
            caption="../report/similarity/pairs_scatter.rst",
            category="Mania et al. 2019",
            subcategory="Similarity: {set}",
        ),
        scatter_pdf="results/similarity/{set}/pairs_scatter.pdf",
        fig4_png=report(
            "results/similarity/{set}/fig4_difficulty.png",
            caption="../report/similarity/fig4_difficulty.rst",
            category="Mania et al. 2019",
            subcategory="Similarity: {set}",
        ),
        fig4_pdf="results/similarity/{set}/fig4_difficulty.pdf",
        cover_png=report(
            "results/similarity/{set}/covering_numbers.png",
            caption="../report/similarity/covering_numbers.rst",
            category="Mania et al. 2019",
            subcategory="Similarity: {set}",
        ),
        cover_pdf="results/similarity/{set}/covering_numbers.pdf",
    log:
        log_path("similarity", "plots_{set}"),
    benchmark:
        bench_path("similarity", "plots_{set}")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        label=lambda wc: similarity_label(wc.set),
    script:
        "../scripts/similarity_plots.py"


rule similarity_setting:
    input:
        summary=lambda wc: expand(rules.similarity_analyse.output.summary, set=config["similarity"]["setting_set"])[0],
    output:
        setting=report(
            "results/similarity/imagenet/setting.json",
            caption="../report/similarity/setting.rst",
            category="Mania et al. 2019",
            subcategory="Measured setting (bounds inputs)",
        ),
    log:
        log_path("similarity", "setting"),
    benchmark:
        bench_path("similarity", "setting")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    script:
        "../scripts/similarity_setting.py"


rule similarity_table1_set:
    input:
        predictions="resources/predictions/{set}.npz",
    output:
        table="results/similarity/{set}/table1.csv",
    log:
        log_path("similarity", "table1_{set}"),
    benchmark:
        bench_path("similarity", "table1_{set}")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(30),
    params:
        exclude_models=config["similarity"]["exclude_models"],
        subsets=config["similarity"]["table1"]["subsets"],
        eps=config["similarity"]["table1"]["eps"],
        delta=config["similarity"]["table1"]["delta"],
        n=config["similarity"]["table1"]["n"],
    script:
        "../scripts/similarity_table1_set.py"


rule similarity_table1:
    input:
        tables=lambda wc: expand(rules.similarity_table1_set.output.table, set=similarity_table1_sets()),
    output:
        csv=report(
            "results/similarity/table1.csv",
            caption="../report/similarity/table1.rst",
            category="Mania et al. 2019",
            subcategory="Table 1 (testable models)",
        ),
        md="results/similarity/table1.md",
    log:
        log_path("similarity", "table1"),
    benchmark:
        bench_path("similarity", "table1")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../scripts/similarity_table1.py"
