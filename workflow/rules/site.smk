# Stage: site. `holdout site` over the shipped benchmarks (site.spec): every benchmark audited by
# holdout audit into results/site/shipped/<benchmark>/, the pages (index, one per benchmark and per
# shared model) and every number beside them. Helpers and site_targets() are in site_helpers.smk;
# the library is holdout.site.


include: "site_helpers.smk"


rule site_build:
    """The whole site in one job (its audits one after another, or site.jobs at once)."""
    input:
        spec=site_spec(),
    output:
        site=directory(f"{SITE_RESULTS}/shipped"),
        index=report(
            f"{SITE_RESULTS}/shipped_index.csv",
            caption="../report/site/index.rst",
            category="Site",
            subcategory="Benchmarks side by side",
        ),
    log:
        log_path("site", "build"),
    benchmark:
        bench_path("site", "build")
    conda:
        "../../envs/analysis.yaml"
    threads: SITE["jobs"]
    resources:
        mem_mb=attempt_scaled(3000),
        runtime=attempt_scaled(30),
    params:
        root=lambda w: str(site_root()),
        jobs=SITE["jobs"],
    script:
        "../scripts/site_build.py"
