# Stage retraining: helpers (functions only; the rules are in retraining.smk).
# Uses data_raw_path(), data_file_available(), available_prediction_sets(), data_prediction_path()
# and DATA_CIFAR10_ARCHIVE of data_helpers.smk.
from snakemake.logging import logger as _rt_logger

from holdout.training.recipes import resolve_retraining as _resolve_retraining

RT = _resolve_retraining(config["retraining"])  # models: the recipes of retraining.scale
RT_RESULTS = "results/retraining"
RT_RESOURCES = "resources/retraining"
RT_C101 = "CIFAR-10.1/datasets/cifar10.1_{version}_{kind}.npy"


def rt_c101(version, kind):
    """Mirror-relative path of the CIFAR-10.1 images (kind='data') or labels of a version."""
    return RT_C101.format(version=version, kind=kind)


def rt_have_cifar10():
    """True when the CIFAR-10 archive can be had (checksum configured, in the mirror if one is set)."""
    return data_file_available(DATA_CIFAR10_ARCHIVE)


def rt_have_images(version):
    """True when the CIFAR-10.1 images and labels of ``version`` can be fetched and verified."""
    return data_file_available(rt_c101(version, "data")) and data_file_available(rt_c101(version, "labels"))


def rt_model_cfg(model):
    try:
        return RT["models"][model]
    except KeyError:
        raise WorkflowError(
            f"retraining.models has no entry for {model!r} (named in retraining.table2_models "
            "or retraining.sec55.model)"
        )


def rt_runs_table2():
    """(model, run) of Table 2: split1..splitK and the standard split, per model."""
    folds = range(1, int(RT["n_splits"]) + 1)
    if TRAINING_CAP.folds is not None:  # a dress rehearsal trains only these folds
        folds = [k for k in TRAINING_CAP.folds if k in folds]
    runs = [f"split{k}" for k in folds] + ["standard"]
    return [(m, r) for m in RT["table2_models"] for r in runs]


def rt_runs_sec55():
    return [f"half{seed}" for seed in RT["sec55"]["draws"]] + ["standard"]


def rt_predictions(model, run):
    return f"{RT_RESULTS}/runs/{model}/{run}/predictions.npz"


def rt_sec55_predictions():
    """Sec. 5.5 inputs, in rt_runs_sec55() order: the half<seed> runs on v4, the standard run on v4."""
    model = RT["sec55"]["model"]
    return [
        (rt_predictions(model, r) if r != "standard" else f"{RT_RESULTS}/runs/{model}/standard/predictions_v4.npz")
        for r in rt_runs_sec55()
    ]


def rt_train_inputs(wildcards):
    inputs = {
        "arrays": f"{RT_RESOURCES}/cifar10.npz",
        "splits": f"{RT_RESULTS}/cv_splits.csv",
    }
    if wildcards.run.startswith("half"):
        inputs["v4_images"] = data_raw_path(rt_c101("v4", "data"))
        inputs["v4_labels"] = data_raw_path(rt_c101("v4", "labels"))
    return inputs


def rt_figure1_inputs(wildcards):
    inputs = {"arrays": f"{RT_RESOURCES}/cifar10.npz"}
    version = RT["figure1"]["version"]
    if rt_have_images(version):
        inputs["new_images"] = data_raw_path(rt_c101(version, "data"))
        inputs["new_labels"] = data_raw_path(rt_c101(version, "labels"))
    return inputs


def _rt_report_skipped():
    """Say once, at start, which retraining parts the available data does not allow."""
    if not study_enabled("retraining"):
        return
    if not rt_have_cifar10():
        _rt_logger.warning(
            "retraining: the CIFAR-10 archive is not available: Table 2, Figure 1 and Sec. 5.5 " "are skipped"
        )
    parts = {"v4": ["Sec. 5.5 (training on half of CIFAR-10.1 v4)", "Figure 3"]}
    parts.setdefault(RT["figure1"]["version"], []).append("the new-test-set half of Figure 1")
    for version, what in parts.items():
        if not rt_have_images(version):
            path = rt_c101(version, "data")
            why = (
                "no checksum in data.checksums"
                if path not in DATA["checksums"]
                else f"not in the mirror {DATA.get('mirror')}"
            )
            _rt_logger.warning(
                f"retraining: the CIFAR-10.1 {version} images ({path}) are not available ({why}): "
                f"{', '.join(what)} skipped"
            )


_rt_report_skipped()


def retraining_targets():
    """Final outputs of the retraining stage that the available data allows (empty when disabled)."""
    if not study_enabled("retraining"):
        return []
    out = []
    if rt_have_cifar10():
        out += [
            f"{RT_RESULTS}/cv_splits.csv",
            f"{RT_RESULTS}/table2.csv",
            f"{RT_RESULTS}/table2.md",
        ]
        out += [f"{RT_RESULTS}/figure1.{ext}" for ext in ("png", "pdf", "csv")]
        if rt_have_images("v4"):
            out += [f"{RT_RESULTS}/sec55.csv", f"{RT_RESULTS}/sec55.md"]
    if rt_have_images("v4") and "cifar10_1_v4" in available_prediction_sets():
        out += [f"{RT_RESULTS}/figure3.{ext}" for ext in ("png", "pdf", "csv")]
    return out
