# Stage: audit. `holdout audit` on every data.user_predictions entry (results/audit/user_<name>/),
# and the four lenses side by side for the workflow's own trained models
# (results/audit/own_models/). Helpers and audit_targets() are in audit_helpers.smk.


include: "audit_helpers.smk"


rule audit_user:
    """Every lens of the four papers on one user set: CSVs, figures, summary.json, report.html, summary.md."""
    input:
        unpack(audit_user_inputs),
    output:
        report=report(
            f"{AUDIT_RESULTS}/user_{{name}}/report.html",
            caption="../report/audit/report.rst",
            category="Audit",
            subcategory="{name}",
        ),
        summary=f"{AUDIT_RESULTS}/user_{{name}}/summary.json",
        glance=f"{AUDIT_RESULTS}/user_{{name}}/summary.md",
    log:
        log_path("audit", "user_{name}"),
    benchmark:
        bench_path("audit", "user_{name}")
    wildcard_constraints:
        name="|".join(re.escape(n) for n in data_user_entries()) or "NO_USER_SET",
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(10),
    params:
        options=lambda w: audit_user_options(w.name),
        eps=AUDIT["eps"],
        delta=AUDIT["delta"],
        alpha=AUDIT["alpha"],
        band_level=AUDIT["fit_band_level"],
        rvw_C=AUDIT["rvw_C"],
    script:
        "../scripts/audit_user.py"


rule audit_own_models:
    """Test accuracy, CIFAR-10.1 gap, similarity-bound gain, RvW bound of the best, adversarial p-value."""
    input:
        unpack(audit_own_models_inputs),
    output:
        table=report(
            f"{AUDIT_RESULTS}/own_models/table.csv",
            caption="../report/audit/own_models.rst",
            category="Audit",
            subcategory="Own models",
        ),
        table_md=f"{AUDIT_RESULTS}/own_models/table.md",
        models=f"{AUDIT_RESULTS}/own_models/models.csv",
    log:
        log_path("audit", "own_models"),
    benchmark:
        bench_path("audit", "own_models")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(10),
    params:
        eps=AUDIT["eps"],
        delta=AUDIT["delta"],
        alpha=AUDIT["alpha"],
        rvw_C=AUDIT["rvw_C"],
    script:
        "../scripts/audit_own_models.py"
