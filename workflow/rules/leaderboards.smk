# Stage: leaderboards. The four lenses on public leaderboards without per-item predictions:
# accuracy tables (timm's ImageNet models, the robustness testbed, EvalPlus) with the linear and
# probit fits and effective robustness, and LiveCodeBench's correctness matrix (similarity,
# testable models, contamination by date). Helpers and leaderboards_targets() are in
# leaderboards_helpers.smk; the library is holdout.leaderboards.


include: "leaderboards_helpers.smk"


rule leaderboards_fetch:
    """One leaderboard file from data.mirror or its pinned URL (leaderboards.urls), verified."""
    output:
        f"{LB_RAW}/{{relpath}}",
    log:
        log_path("leaderboards", "fetch/{relpath}"),
    benchmark:
        bench_path("leaderboards", "fetch/{relpath}")
    wildcard_constraints:
        relpath="|".join(re.escape(p) for p in LB_FILES) or "NO_FILE",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(512),
        runtime=attempt_scaled(10),
    params:
        checksum=lambda w: leaderboards_checksum(w.relpath),
    script:
        "../scripts/leaderboards_fetch.py"


rule leaderboards_fits:
    """Every accuracy table (one job: a fraction of a second each): Clopper-Pearson from the sizes,
    gaps, linear and probit fits, effective robustness; all fits in one table beside the imagenetv2
    study's 67-model fit."""
    input:
        unpack(leaderboards_fits_inputs),
    output:
        models=report(
            expand(f"{LB_RESULTS}/fits/{{name}}/models.csv", name=LB_PAIRS),
            caption="../report/leaderboards/models.rst",
            category="Leaderboards",
            subcategory="Accuracy tables",
        ),
        summaries=expand(f"{LB_RESULTS}/fits/{{name}}/summary.json", name=LB_PAIRS),
        fit=report(
            expand(f"{LB_RESULTS}/fits/{{name}}/fit.png", name=LB_PAIRS),
            caption="../report/leaderboards/fit.rst",
            category="Leaderboards",
            subcategory="Accuracy tables",
        ),
        fit_pdf=expand(f"{LB_RESULTS}/fits/{{name}}/fit.pdf", name=LB_PAIRS),
        fit_csv=expand(f"{LB_RESULTS}/fits/{{name}}/fit.csv", name=LB_PAIRS),
        lines=expand(f"{LB_RESULTS}/fits/{{name}}/fit_lines.csv", name=LB_PAIRS),
        er=report(
            expand(f"{LB_RESULTS}/fits/{{name}}/effective_robustness.png", name=LB_PAIRS),
            caption="../report/leaderboards/effective_robustness.rst",
            category="Leaderboards",
            subcategory="Accuracy tables",
        ),
        er_pdf=expand(f"{LB_RESULTS}/fits/{{name}}/effective_robustness.pdf", name=LB_PAIRS),
        er_csv=expand(f"{LB_RESULTS}/fits/{{name}}/effective_robustness.csv", name=LB_PAIRS),
        table=report(
            f"{LB_RESULTS}/fits.csv",
            caption="../report/leaderboards/fits.rst",
            category="Leaderboards",
            subcategory="Fits",
        ),
        table_md=f"{LB_RESULTS}/fits.md",
    log:
        log_path("leaderboards", "fits"),
    benchmark:
        bench_path("leaderboards", "fits")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(10),
    params:
        pairs=LB["pairs"],
        alpha=LB["alpha"],
        band_level=LB["band_level"],
    script:
        "../scripts/leaderboards_fits.py"


rule leaderboards_livecodebench:
    """LiveCodeBench: accuracy, similarity of the models, testable models under each bound, contamination."""
    input:
        leaderboards_raw(LB_LCB),
    output:
        accuracies=report(
            f"{LB_RESULTS}/livecodebench/accuracies.csv",
            caption="../report/leaderboards/livecodebench_accuracies.rst",
            category="Leaderboards",
            subcategory="LiveCodeBench",
        ),
        lenses=f"{LB_RESULTS}/livecodebench/lenses.json",
        covering=f"{LB_RESULTS}/livecodebench/covering_numbers.csv",
        similarity=report(
            f"{LB_RESULTS}/livecodebench/similarity_pairs.png",
            caption="../report/leaderboards/livecodebench_similarity.rst",
            category="Leaderboards",
            subcategory="LiveCodeBench",
        ),
        similarity_pdf=f"{LB_RESULTS}/livecodebench/similarity_pairs.pdf",
        similarity_csv=f"{LB_RESULTS}/livecodebench/similarity_pairs.csv",
        contamination=report(
            f"{LB_RESULTS}/livecodebench/contamination.png",
            caption="../report/leaderboards/livecodebench_contamination.rst",
            category="Leaderboards",
            subcategory="LiveCodeBench",
        ),
        contamination_pdf=f"{LB_RESULTS}/livecodebench/contamination.pdf",
        contamination_csv=f"{LB_RESULTS}/livecodebench/contamination.csv",
        contamination_line=f"{LB_RESULTS}/livecodebench/contamination_line.csv",
        contamination_json=f"{LB_RESULTS}/livecodebench/contamination.json",
        checks=f"{LB_RESULTS}/livecodebench/contamination_checks.csv",
        ranks=report(
            f"{LB_RESULTS}/livecodebench/rank_intervals.png",
            caption="../report/leaderboards/livecodebench_ranks.rst",
            category="Leaderboards",
            subcategory="LiveCodeBench",
        ),
        ranks_pdf=f"{LB_RESULTS}/livecodebench/rank_intervals.pdf",
        ranks_csv=f"{LB_RESULTS}/livecodebench/ranks.csv",
        pair_differences=report(
            f"{LB_RESULTS}/livecodebench/pair_differences.png",
            caption="../report/leaderboards/livecodebench_pairs.rst",
            category="Leaderboards",
            subcategory="LiveCodeBench",
        ),
        pair_differences_pdf=f"{LB_RESULTS}/livecodebench/pair_differences.pdf",
        pairs_csv=f"{LB_RESULTS}/livecodebench/pairs.csv",
        pairs_json=f"{LB_RESULTS}/livecodebench/pairs.json",
    log:
        log_path("leaderboards", "livecodebench"),
    benchmark:
        bench_path("leaderboards", "livecodebench")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        samples=LB["livecodebench"]["samples"],
        split=LB["livecodebench"]["split"],
        line_models=LB["livecodebench"]["line_models"],
        placebo_splits=LB["livecodebench"]["placebo_splits"],
        families=LB["livecodebench"]["families"],
        alpha=LB["alpha"],
        band_level=LB["band_level"],
        eps=LB["eps"],
        delta=LB["delta"],
    script:
        "../scripts/leaderboards_livecodebench.py"
