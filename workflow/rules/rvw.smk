# Stage: rvw. Arora & Zhang (2021), Rip van Winkle's Razor: Tables 1 and 2 (bounds on the
# population error from description lengths, Theorem 3.1). Helpers and rvw_targets() are
# in rvw_helpers.smk.


include: "rvw_helpers.smk"


rule rvw_table:
    """Arora & Zhang Tables 1-2: the Theorem 3.1 bound for each configured row."""
    input:
        descriptions=rvw_descriptions,
    output:
        csv=report(
            "results/rvw/{table}.csv",
            caption="../report/rvw/table.rst",
            category="Arora & Zhang 2021",
            subcategory="Tables 1-2 (CSV)",
        ),
        md=report(
            "results/rvw/{table}.md",
            caption="../report/rvw/table.rst",
            category="Arora & Zhang 2021",
            subcategory="Tables 1-2 (Markdown)",
        ),
    log:
        log_path("rvw", "table_{table}"),
    benchmark:
        bench_path("rvw", "table_{table}")
    wildcard_constraints:
        table="[A-Za-z0-9_-]+",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    params:
        rows=rvw_rows,
        title=lambda wc: rvw_tables()[wc.table].get("title", ""),
        english=lambda wc: rvw_tables()[wc.table].get("english", {}),
        C=config["rvw"]["C"],
        delta=config["rvw"]["delta"],
    script:
        "../scripts/rvw_table.py"
