# Stage: bounds. Mania et al. (2019): Figure 1b, Figure 2 (both panels) and Table 1,
# from formulas only. Helpers and bounds_targets() (the final outputs that "rule all"
# asks for) are in bounds_helpers.smk.


include: "bounds_helpers.smk"


rule bounds_setting:
    """The ImageNet setting (n, mean accuracy, similarity) behind Fig. 1b and Fig. 2."""
    input:
        unpack(_bounds_setting_input),
    output:
        setting="results/bounds/setting.json",
    log:
        log_path("bounds", "setting"),
    benchmark:
        bench_path("bounds", "setting")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    params:
        setting_from=lambda wildcards: _bounds_cfg()["setting_from"],
        setting=lambda wildcards: _bounds_cfg()["setting"],
    script:
        "../scripts/bounds_setting.py"


rule bounds_figure1b:
    """Mania et al. Fig. 1b: testable models, union vs similarity vs naive-Bayes bound."""
    input:
        setting=rules.bounds_setting.output.setting,
    output:
        csv="results/bounds/figure1b.csv",
        png=report(
            "results/bounds/figure1b.png",
            caption="../report/bounds/figure1b.rst",
            category="Mania et al. 2019",
            subcategory="Bounds",
        ),
        pdf="results/bounds/figure1b.pdf",
    log:
        log_path("bounds", "figure1b"),
    benchmark:
        bench_path("bounds", "figure1b")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        eps=lambda wildcards: _bounds_cfg()["eps"],
        delta=lambda wildcards: _bounds_cfg()["delta"],
        form=lambda wildcards: _bounds_cfg()["form"],
    script:
        "../scripts/bounds_figure1b.py"


rule bounds_figure2_grid:
    """Mania et al. Fig. 2, one panel: gains over the union bound on a grid (vs eta or eps)."""
    input:
        setting=rules.bounds_setting.output.setting,
    output:
        csv="results/bounds/figure2_{panel}.csv",
    log:
        log_path("bounds", "figure2_{panel}"),
    benchmark:
        bench_path("bounds", "figure2_{panel}")
    wildcard_constraints:
        panel="similarity|eps",
    conda:
        "../../envs/analysis.yaml"
    threads: lambda wildcards: _bounds_cfg()["threads"]
    resources:
        mem_mb=attempt_scaled(3000),
        runtime=attempt_scaled(30),
    params:
        grid=lambda wildcards: _bounds_cfg()["figure2"][wildcards.panel],
        eps=lambda wildcards: _bounds_cfg()["eps"],
        delta=lambda wildcards: _bounds_cfg()["delta"],
        form=lambda wildcards: _bounds_cfg()["form"],
    script:
        "../scripts/bounds_figure2_grid.py"


rule bounds_figure2:
    """Mania et al. Fig. 2, both panels (log y axis), from the two grid CSVs beside it."""
    input:
        similarity=expand(rules.bounds_figure2_grid.output.csv, panel="similarity")[0],
        eps=expand(rules.bounds_figure2_grid.output.csv, panel="eps")[0],
    output:
        png=report(
            "results/bounds/figure2.png",
            caption="../report/bounds/figure2.rst",
            category="Mania et al. 2019",
            subcategory="Bounds",
        ),
        pdf="results/bounds/figure2.pdf",
    log:
        log_path("bounds", "figure2"),
    benchmark:
        bench_path("bounds", "figure2")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../scripts/bounds_figure2_plot.py"


rule bounds_table1:
    """Mania et al. Table 1: SB and NBB gains for the configured families of models."""
    output:
        csv="results/bounds/table1.csv",
        md=report(
            "results/bounds/table1.md",
            caption="../report/bounds/table1.rst",
            category="Mania et al. 2019",
            subcategory="Bounds",
        ),
    log:
        log_path("bounds", "table1"),
    benchmark:
        bench_path("bounds", "table1")
    conda:
        "../../envs/analysis.yaml"
    threads: lambda wildcards: _bounds_cfg()["threads"]
    resources:
        mem_mb=attempt_scaled(3000),
        runtime=attempt_scaled(15),
    params:
        rows=lambda wildcards: _bounds_cfg()["table1"]["rows"],
        eps=lambda wildcards: _bounds_cfg()["eps"],
        delta=lambda wildcards: _bounds_cfg()["delta"],
        form=lambda wildcards: _bounds_cfg()["form"],
    script:
        "../scripts/bounds_table1.py"
