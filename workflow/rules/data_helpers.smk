# Stage data: helpers (functions only; the rules are in data.smk, which includes this file).
import re

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger as _data_logger

from holdout.data.core import source_of as _data_source_of

DATA = config["data"]
DATA_RAW = "resources/raw"
DATA_PRED = "resources/predictions"
DATA_CIFAR10_ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
DATA_C101_SPLITS = ("original", "v4", "v6")
DATA_C101_PRED_DIR = "CIFAR-10.1/model_predictions"
DATA_IMAGENET_PRED_DIR = "ImageNetV2/data/predictions"
DATA_IMAGENET_CLASS_INFO = "ImageNetV2/data/metadata/class_info.json"


def data_prediction_path(name):
    """Path of the predictions file of set ``name`` (e.g. cifar10_1_v4, user_mine)."""
    return f"{DATA_PRED}/{name}.npz"


def data_mirror():
    """The mirror folder (absolute; a relative config value is taken from the working directory) or None."""
    mirror = DATA.get("mirror")
    return None if not mirror else Path(mirror).expanduser().resolve()


def data_source(relpath):
    """Where a mirror-relative file comes from: the mirror copy, else its URL."""
    return _data_source_of(relpath, DATA.get("mirror"), DATA["urls"])


def data_raw_path(relpath):
    """Where the fetched, verified copy of a mirror-relative file lives (e.g. the CIFAR-10
    archive: data_raw_path(DATA_CIFAR10_ARCHIVE); the rule data_fetch_file makes it)."""
    return f"{DATA_RAW}/{relpath}"


def data_file_available(relpath):
    """True when a mirror-relative file can be fetched under the current config: it has a
    checksum and, with data.mirror set, the mirror holds it (e.g. the CIFAR-10.1 images,
    CIFAR-10.1/datasets/cifar10.1_v6_data.npy, are not in ../shared/data)."""
    if relpath not in DATA["checksums"]:
        return False
    mirror = data_mirror()
    return mirror is None or (mirror / relpath).is_file()


def data_checksum(relpath):
    """The configured checksum of a mirror-relative file (a file without one is never fetched)."""
    try:
        return DATA["checksums"][relpath]
    except KeyError:
        raise WorkflowError(
            f"data.checksums has no entry for {relpath}: add 'sha256:<hex>' (or 'md5:<hex>') "
            "of the file you trust to config"
        )


def data_c101_prediction_files(split):
    """Mirror-relative json files of the 30 published CIFAR-10 models on ``split``."""
    return [
        f"{DATA_C101_PRED_DIR}/{split}_predictions/{m}_predictions.json"
        for m in DATA["cifar10_1_models"]
    ]


def data_imagenet_prediction_files(dataset):
    return [f"{DATA_IMAGENET_PRED_DIR}/{dataset}/{m}.npy" for m in DATA["imagenet_models"]]


def data_raw_inputs(name):
    """Mirror-relative raw files that prediction set ``name`` is built from."""
    if name in ("cifar10_1_v4", "cifar10_1_v6"):
        version = name.rsplit("_", 1)[1]
        return [f"CIFAR-10.1/datasets/cifar10.1_{version}_labels.npy"] + data_c101_prediction_files(version)
    if name == "cifar10_original":
        return [DATA_CIFAR10_ARCHIVE] + data_c101_prediction_files("original")
    if name in DATA["imagenet_datasets"]:
        dataset = DATA["imagenet_datasets"][name]
        return [f"ImageNetV2/data/datasets/{dataset}.json", DATA_IMAGENET_CLASS_INFO] + data_imagenet_prediction_files(dataset)
    raise WorkflowError(f"unknown prediction set {name}")


def data_builtin_sets():
    return ["cifar10_1_v4", "cifar10_1_v6", "cifar10_original"] + list(DATA["imagenet_datasets"])


def data_missing_raw(name):
    """Raw files of set ``name`` that cannot be had under the current config."""
    mirror = data_mirror()
    missing = []
    for rel in data_raw_inputs(name):
        if rel not in DATA["checksums"]:
            missing.append(f"{rel} (no checksum in data.checksums)")
        elif mirror is not None and not (mirror / rel).is_file():
            missing.append(rel)
    return missing


def data_user_entries():
    return {u["name"]: u for u in DATA.get("user_predictions", [])}


def available_prediction_sets():
    """Names of the prediction sets whose inputs are available under the current config.

    Built-in sets: every raw file has a checksum and, with data.mirror set, is in the
    mirror (without a mirror everything is downloadable). User sets (user_<name>): both
    files exist. Other stages use this to skip sets whose raw files are missing offline.
    """
    names = {n for n in data_builtin_sets() if not data_missing_raw(n)}
    for name, entry in data_user_entries().items():
        if Path(entry["predictions"]).is_file() and Path(entry["labels"]).is_file():
            names.add(f"user_{name}")
    return names


def _data_report_missing():
    """One warning per unavailable set, at start, naming the missing file(s)."""
    needs = {
        "cifar10_original": "the original CIFAR-10 test labels: Recht et al. Table 1 original "
        "columns, Delta Rank, Table 4, Figure 2 and the linear fit are skipped",
    }
    for name in data_builtin_sets():
        missing = data_missing_raw(name)
        if missing:
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
            _data_logger.warning(
                f"data: {shown} not in the mirror {data_mirror()}: prediction set {name} is not built"
                + (f" ({needs[name]})" if name in needs else "")
                + "; everything that does not need it still runs."
            )
    for name, entry in data_user_entries().items():
        for key in ("predictions", "labels"):
            if not Path(entry[key]).is_file():
                _data_logger.warning(f"data: user_predictions {name}: {key} file {entry[key]} not found; user_{name} is not built")


_data_report_missing()

_DATA_BUNDLED = (f"{DATA_C101_PRED_DIR}/", f"{DATA_IMAGENET_PRED_DIR}/")
_DATA_SINGLE = sorted(p for p in DATA["checksums"] if not p.startswith(_DATA_BUNDLED))


def data_targets():
    """Final outputs of the data stage: every available prediction set (empty when disabled)."""
    if not study_enabled("data"):
        return []
    return [data_prediction_path(n) for n in sorted(available_prediction_sets())]
