# Stage: contamination. What should a model have scored? ConStat's reference-benchmark test
# (Dekoninck et al. 2024) and its published GSM8K / ARC tables reproduced from their own columns.
# Helpers and contamination_targets() are in contamination_helpers.smk; the library is
# holdout.contamination.


include: "contamination_helpers.smk"


rule contamination_fetch:
    """One anchor file from data.mirror or its pinned URL (contamination.urls), verified."""
    output:
        f"{CT_RAW}/{{relpath}}",
    log:
        log_path("contamination", "fetch/{relpath}"),
    benchmark:
        bench_path("contamination", "fetch/{relpath}")
    wildcard_constraints:
        relpath="|".join(re.escape(p) for p in CT["checksums"]) or "NO_FILE",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(512),
        runtime=attempt_scaled(10),
    params:
        checksum=lambda w: contamination_checksum(w.relpath),
    script:
        "../scripts/contamination_fetch.py"


rule contamination_constat:
    """ConStat's GSM8K and ARC tables redone from their columns (parametric bootstrap), the
    deltas and verdicts next to the published ones, and what is off in the tables."""
    input:
        unpack(contamination_constat_inputs),
    output:
        tables=expand(f"{CT_RESULTS}/constat/{{name}}.csv", name=CT["constat"]["tables"]),
        summary=report(
            f"{CT_RESULTS}/constat/summary.csv",
            caption="../report/contamination/constat_summary.rst",
            category="Contamination",
            subcategory="ConStat",
        ),
        summary_md=f"{CT_RESULTS}/constat/summary.md",
        findings=f"{CT_RESULTS}/constat/findings.json",
        figure=report(
            f"{CT_RESULTS}/constat/deltas.png",
            caption="../report/contamination/constat_deltas.rst",
            category="Contamination",
            subcategory="ConStat",
        ),
        figure_pdf=f"{CT_RESULTS}/constat/deltas.pdf",
        figure_csv=f"{CT_RESULTS}/constat/deltas.csv",
    log:
        log_path("contamination", "constat"),
    benchmark:
        bench_path("contamination", "constat")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(10),
    params:
        n_bootstrap=CT["constat"]["n_bootstrap"],
        seed=CT["seed"],
    script:
        "../scripts/contamination_constat.py"


rule contamination_aline:
    """Agreement on the line on the published predictions: ALine-S / ALine-D estimates of each model's
    new-set accuracy from unlabeled new predictions, against the truth and the naive estimate."""
    input:
        unpack(contamination_aline_inputs),
    output:
        models=expand(f"{CT_RESULTS}/aline/{{shift}}.csv", shift=contamination_aline_shifts()),
        summary=report(
            f"{CT_RESULTS}/aline/summary.csv",
            caption="../report/contamination/aline_summary.rst",
            category="Contamination",
            subcategory="Agreement on the line",
        ),
        summary_md=f"{CT_RESULTS}/aline/summary.md",
        figure=report(
            f"{CT_RESULTS}/aline/aline.png",
            caption="../report/contamination/aline_figure.rst",
            category="Contamination",
            subcategory="Agreement on the line",
        ),
        figure_pdf=f"{CT_RESULTS}/aline/aline.pdf",
        figure_csv=f"{CT_RESULTS}/aline/aline.csv",
    log:
        log_path("contamination", "aline"),
    benchmark:
        bench_path("contamination", "aline")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2048),
        runtime=attempt_scaled(10),
    params:
        shifts={s: CT["aline"]["shifts"][s] for s in contamination_aline_shifts()},
    script:
        "../scripts/contamination_aline.py"


rule contamination_anchors:
    """GSM1k, MMLU-CF, ObsScaling and MathArena recomputed from their published files, each with a
    figure; what is off in the files (findings) beside the numbers."""
    input:
        **contamination_anchor_inputs(),
    output:
        gsm1k=f"{CT_RESULTS}/anchors/gsm1k.csv",
        gsm1k_png=report(
            f"{CT_RESULTS}/anchors/gsm1k_gap.png",
            caption="../report/contamination/gsm1k.rst",
            category="Contamination",
            subcategory="Public anchors",
        ),
        gsm1k_pdf=f"{CT_RESULTS}/anchors/gsm1k_gap.pdf",
        gsm1k_csv=f"{CT_RESULTS}/anchors/gsm1k_gap.csv",
        mmlu_cf=f"{CT_RESULTS}/anchors/mmlu_cf.csv",
        mmlu_cf_png=report(
            f"{CT_RESULTS}/anchors/mmlu_cf_gaps.png",
            caption="../report/contamination/mmlu_cf.rst",
            category="Contamination",
            subcategory="Public anchors",
        ),
        mmlu_cf_pdf=f"{CT_RESULTS}/anchors/mmlu_cf_gaps.pdf",
        mmlu_cf_csv=f"{CT_RESULTS}/anchors/mmlu_cf_gaps.csv",
        mmlu_vs_cf=f"{CT_RESULTS}/anchors/mmlu_vs_mmlu_cf.csv",
        obsscaling=f"{CT_RESULTS}/anchors/obsscaling.csv",
        obsscaling_png=report(
            f"{CT_RESULTS}/anchors/obsscaling_lens.png",
            caption="../report/contamination/obsscaling.rst",
            category="Contamination",
            subcategory="Public anchors",
        ),
        obsscaling_pdf=f"{CT_RESULTS}/anchors/obsscaling_lens.pdf",
        obsscaling_csv=f"{CT_RESULTS}/anchors/obsscaling_lens.csv",
        matharena=f"{CT_RESULTS}/anchors/matharena.csv",
        matharena_png=report(
            f"{CT_RESULTS}/anchors/matharena_dates.png",
            caption="../report/contamination/matharena.rst",
            category="Contamination",
            subcategory="Public anchors",
        ),
        matharena_pdf=f"{CT_RESULTS}/anchors/matharena_dates.pdf",
        matharena_csv=f"{CT_RESULTS}/anchors/matharena_dates.csv",
        summary=report(
            f"{CT_RESULTS}/anchors/summary.json",
            caption="../report/contamination/anchors_summary.rst",
            category="Contamination",
            subcategory="Public anchors",
        ),
    log:
        log_path("contamination", "anchors"),
    benchmark:
        bench_path("contamination", "anchors")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(10),
    params:
        alpha=CT["alpha"],
        seed=CT["seed"],
        obsscaling=CT["obsscaling"],
    script:
        "../scripts/contamination_anchors.py"
