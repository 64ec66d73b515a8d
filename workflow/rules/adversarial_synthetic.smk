# Stage: adversarial_synthetic. Rules, then the list of final outputs that "rule all" asks for.
#
# Synthetic experiment of Werpachowski et al. (2019), Sec. 4 and Appendix A:
#   adversarial_synthetic_train     (per case: data + 100 runs, numba kernel or numpy fallback)
#   adversarial_synthetic_evaluate  (per case: attack at every eps, pairwise and N-model tests)
#   adversarial_synthetic_figures   (Figure 4, Figure 7 rows 1-3 and last row, Figure 8, summary)

# Helpers, constants and adversarial_synthetic_targets() are in adversarial_synthetic_helpers.smk.


include: "adversarial_synthetic_helpers.smk"


rule adversarial_synthetic_train:
    output:
        models=f"{ADV_SYN_DIR}/{{case}}/models.npz",
        test_set=f"{ADV_SYN_DIR}/{{case}}/test_set.npz",
        training=f"{ADV_SYN_DIR}/{{case}}/training.csv",
    log:
        log_path("adversarial_synthetic", "train_{case}"),
    benchmark:
        bench_path("adversarial_synthetic", "train_{case}")
    wildcard_constraints:
        case="independent|dependent",
    conda:
        "../../envs/analysis.yaml"
    threads: lambda wildcards: int(adversarial_synthetic_cfg()["train_threads"])
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        cfg=lambda wildcards: adversarial_synthetic_params(ADV_SYN_TRAIN_KEYS),
    script:
        "../scripts/adversarial_synthetic_train.py"


rule adversarial_synthetic_evaluate:
    input:
        models=f"{ADV_SYN_DIR}/{{case}}/models.npz",
        test_set=f"{ADV_SYN_DIR}/{{case}}/test_set.npz",
    output:
        per_run=f"{ADV_SYN_DIR}/{{case}}/per_run.csv",
        n_model=f"{ADV_SYN_DIR}/{{case}}/n_model.csv",
    log:
        log_path("adversarial_synthetic", "evaluate_{case}"),
    benchmark:
        bench_path("adversarial_synthetic", "evaluate_{case}")
    wildcard_constraints:
        case="independent|dependent",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(15),
    params:
        cfg=lambda wildcards: adversarial_synthetic_params(ADV_SYN_EVAL_KEYS),
    script:
        "../scripts/adversarial_synthetic_evaluate.py"


rule adversarial_synthetic_figures:
    input:
        per_run=expand(f"{ADV_SYN_DIR}/{{case}}/per_run.csv", case=ADV_SYN_CASES),
        n_model=expand(f"{ADV_SYN_DIR}/{{case}}/n_model.csv", case=ADV_SYN_CASES),
        training=expand(f"{ADV_SYN_DIR}/{{case}}/training.csv", case=ADV_SYN_CASES),
    output:
        figure4=report(
            f"{ADV_SYN_DIR}/figure4.png",
            caption="../report/adversarial_synthetic/figure4.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
        figure4_csv=f"{ADV_SYN_DIR}/figure4.csv",
        figure7_pvalues=report(
            f"{ADV_SYN_DIR}/figure7_pvalues.png",
            caption="../report/adversarial_synthetic/figure7_pvalues.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
        risks=report(
            f"{ADV_SYN_DIR}/figure7_risks.png",
            caption="../report/adversarial_synthetic/figure7_risks.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
        risks_csv=f"{ADV_SYN_DIR}/figure7_risks.csv",
        densities=report(
            f"{ADV_SYN_DIR}/figure7_densities.png",
            caption="../report/adversarial_synthetic/figure7_densities.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
        densities_csv=f"{ADV_SYN_DIR}/figure7_densities.csv",
        histograms=report(
            f"{ADV_SYN_DIR}/figure7_histograms.png",
            caption="../report/adversarial_synthetic/figure7_histograms.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
        histograms_csv=f"{ADV_SYN_DIR}/figure7_histograms.csv",
        figure8=report(
            f"{ADV_SYN_DIR}/figure8.png",
            caption="../report/adversarial_synthetic/figure8.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
        figure8_csv=f"{ADV_SYN_DIR}/figure8.csv",
        summary=report(
            f"{ADV_SYN_DIR}/summary.csv",
            caption="../report/adversarial_synthetic/summary.rst",
            category="Werpachowski et al. 2019",
            subcategory="Synthetic experiment",
        ),
    log:
        log_path("adversarial_synthetic", "figures"),
    benchmark:
        bench_path("adversarial_synthetic", "figures")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        cfg=lambda wildcards: adversarial_synthetic_cfg(),
    script:
        "../scripts/adversarial_synthetic_figures.py"
