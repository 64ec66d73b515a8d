# Stage retraining: Recht et al. (2018) Sec. 5.4-5.6 and Appendix B. Table 2 (cross-validation
# retraining), Sec. 5.5 (training on half of CIFAR-10.1 v4), Figures 1 and 3.
# Helpers and retraining_targets() are in retraining_helpers.smk.


include: "retraining_helpers.smk"


rule retraining_arrays:
    """The CIFAR-10 archive as one uncompressed NPZ of uint8 arrays (read once)."""
    input:
        archive=data_raw_path(DATA_CIFAR10_ARCHIVE),
    output:
        arrays=temp(f"{RT_RESOURCES}/cifar10.npz"),
    log:
        log_path("retraining", "arrays"),
    benchmark:
        bench_path("retraining", "arrays")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2048),
        runtime=attempt_scaled(10),
    script:
        "../scripts/retraining_arrays.py"


rule retraining_cv_splits:
    """Five class-balanced, seeded splits of the 50,000 training images (Sec. 5.6)."""
    input:
        arrays=f"{RT_RESOURCES}/cifar10.npz",
    output:
        splits=report(
            f"{RT_RESULTS}/cv_splits.csv",
            caption="../report/retraining/cv_splits.rst",
            category="Recht et al. 2018",
            subcategory="Table 2",
        ),
    log:
        log_path("retraining", "cv_splits"),
    benchmark:
        bench_path("retraining", "cv_splits")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        n_splits=RT["n_splits"],
        seed=RT["seed"],
    script:
        "../scripts/retraining_cv_splits.py"


rule retraining_train:
    """Train one model on one run's data (split<k>, standard or half<seed>) and predict its test set."""
    input:
        unpack(rt_train_inputs),
    output:
        checkpoint=f"{RT_RESULTS}/runs/{{model}}/{{run}}/checkpoint_01.pt",
        training_log=f"{RT_RESULTS}/runs/{{model}}/{{run}}/training_log.csv",
        predictions=f"{RT_RESULTS}/runs/{{model}}/{{run}}/predictions.npz",
    log:
        log_path("retraining", "train/{model}_{run}"),
    benchmark:
        bench_path("retraining", "train/{model}_{run}")
    wildcard_constraints:
        run=r"split\d+|standard|half\d+",
    conda:
        "../../envs/torch.yaml"
    threads: RT["threads"]
    resources:
        mem_mb=attempt_scaled(RT["mem_mb"]),
        runtime=attempt_scaled(RT["runtime_min"]),
        gpu=RT["gpus_per_job"],
    params:
        overrides=lambda w: rt_model_cfg(w.model).get("overrides", {}),
        train=lambda w: rt_model_cfg(w.model).get("train", {}),
        seed=RT["seed"],
        train_per_class=RT["train_per_class"],
        n_half=RT["sec55"]["n_half"],
        device=RT["device"],
        state_dir=lambda w: f"{RT_RESOURCES}/state/{w.model}/{w.run}",
        cap=config["training"]["cap"],
    script:
        "../scripts/retraining_train.py"


rule retraining_table2:
    """Table 2: accuracy per model and split with Clopper-Pearson intervals, beside the original-test accuracy."""
    input:
        predictions=[rt_predictions(m, r) for m, r in rt_runs_table2()],
    output:
        csv=report(
            f"{RT_RESULTS}/table2.csv",
            caption="../report/retraining/table2.rst",
            category="Recht et al. 2018",
            subcategory="Table 2",
        ),
        md=f"{RT_RESULTS}/table2.md",
    log:
        log_path("retraining", "table2"),
    benchmark:
        bench_path("retraining", "table2")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        runs=rt_runs_table2(),
        alpha=RT["alpha"],
        notes=RT["notes"],
    script:
        "../scripts/retraining_table2.py"


rule retraining_sec55:
    """Sec. 5.5: held-out-half accuracy with and without half of CIFAR-10.1 v4 in training."""
    input:
        predictions=rt_sec55_predictions(),
        v4_labels=data_raw_path(rt_c101("v4", "labels")),
    output:
        csv=report(
            f"{RT_RESULTS}/sec55.csv",
            caption="../report/retraining/sec55.rst",
            category="Recht et al. 2018",
            subcategory="Sec. 5.5",
        ),
        md=f"{RT_RESULTS}/sec55.md",
    log:
        log_path("retraining", "sec55"),
    benchmark:
        bench_path("retraining", "sec55")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        runs=rt_runs_sec55(),
        n_half=RT["sec55"]["n_half"],
        alpha=RT["alpha"],
        notes=RT["notes"],
    script:
        "../scripts/retraining_sec55.py"


rule retraining_predict_v4:
    """The standard-split model of Sec. 5.5 on all of CIFAR-10.1 v4 (the run without extra images)."""
    input:
        checkpoint=f"{RT_RESULTS}/runs/{{model}}/standard/checkpoint_01.pt",
        v4_images=data_raw_path(rt_c101("v4", "data")),
        v4_labels=data_raw_path(rt_c101("v4", "labels")),
    output:
        predictions=f"{RT_RESULTS}/runs/{{model}}/standard/predictions_v4.npz",
    log:
        log_path("retraining", "predict_v4/{model}"),
    benchmark:
        bench_path("retraining", "predict_v4/{model}")
    conda:
        "../../envs/torch.yaml"
    threads: RT["threads"]
    resources:
        mem_mb=attempt_scaled(RT["mem_mb"]),
        runtime=attempt_scaled(10),
    params:
        device=RT["device"],
        max_images=TRAINING_CAP.images,
    script:
        "../scripts/retraining_predict_v4.py"


rule retraining_figure1:
    """Figure 1: class-balanced random draws, new test set (when its images are present) beside the original."""
    input:
        unpack(rt_figure1_inputs),
    output:
        png=report(
            f"{RT_RESULTS}/figure1.png",
            caption="../report/retraining/figure1.rst",
            category="Recht et al. 2018",
            subcategory="Figure 1",
        ),
        pdf=f"{RT_RESULTS}/figure1.pdf",
        csv=f"{RT_RESULTS}/figure1.csv",
    log:
        log_path("retraining", "figure1"),
    benchmark:
        bench_path("retraining", "figure1")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        version=RT["figure1"]["version"],
        per_class=RT["figure1"]["per_class"],
        seed=RT["figure1"]["seed"],
    script:
        "../scripts/retraining_figure1.py"


rule retraining_figure3:
    """Figure 3: CIFAR-10.1 v4 images no published model classifies correctly, with the majority prediction."""
    input:
        images=data_raw_path(rt_c101("v4", "data")),
        predictions=data_prediction_path("cifar10_1_v4"),
    output:
        png=report(
            f"{RT_RESULTS}/figure3.png",
            caption="../report/retraining/figure3.rst",
            category="Recht et al. 2018",
            subcategory="Figure 3",
        ),
        pdf=f"{RT_RESULTS}/figure3.pdf",
        csv=f"{RT_RESULTS}/figure3.csv",
    log:
        log_path("retraining", "figure3"),
    benchmark:
        bench_path("retraining", "figure3")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(1024),
        runtime=attempt_scaled(5),
    params:
        columns=RT["figure3"]["columns"],
        max_images=RT["figure3"]["max_images"],
    script:
        "../scripts/retraining_figure3.py"
