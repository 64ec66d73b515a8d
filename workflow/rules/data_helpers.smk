# Stage data: helpers (functions only; the rules are in data.smk, which includes this file).
# What can be built is decided once, at start-up, by holdout.data.availability (unit-tested
# there); this file only names paths and hands the config to it.
import re

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger as _data_logger

from holdout.data import availability as _data_av
from holdout.data.names import check_name as _data_check_name
from holdout.data.names import check_relpath as _data_check_relpath

DATA = config["data"]
DATA_RAW = "resources/raw"
DATA_PRED = "resources/predictions"
DATA_CIFAR10_ARCHIVE = _data_av.CIFAR10_ARCHIVE
DATA_C101_SPLITS = ("original", "v4", "v6")
DATA_C101_PRED_DIR = _data_av.C101_PRED_DIR
DATA_IMAGENET_PRED_DIR = _data_av.IMAGENET_PRED_DIR
DATA_IMAGENET_CLASS_INFO = _data_av.IMAGENET_CLASS_INFO

try:
    DATA_AVAILABILITY = _data_av.availability(DATA)
except _data_av.MirrorError as err:
    raise WorkflowError(str(err)) from None
if (_data_skipped := _data_av.skipped_warning(DATA_AVAILABILITY)) is not None:
    _data_logger.warning(_data_skipped)


def data_prediction_path(name):
    """Path of the predictions file of set ``name`` (e.g. cifar10_1_v4, user_mine); a name that
    could leave the folder stops the workflow (holdout.data.names)."""
    return f"{DATA_PRED}/{_data_check_name(name, 'prediction set name')}.npz"


def data_raw_path(relpath):
    """Where the fetched, verified copy of a mirror-relative file lives (e.g. the CIFAR-10
    archive: data_raw_path(DATA_CIFAR10_ARCHIVE); the rule data_fetch_file makes it)."""
    return f"{DATA_RAW}/{_data_check_relpath(relpath, 'data.checksums')}"


def data_file_available(relpath):
    """True when a mirror-relative file can be fetched under the current config (it has a
    checksum and, with data.mirror set, the mirror holds it; e.g. the CIFAR-10.1 images are not
    in ../shared/data)."""
    return _data_av.file_available(relpath, DATA, DATA_AVAILABILITY.mirror)


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
    return _data_av.c101_prediction_files(split, DATA["cifar10_1_models"])


def data_imagenet_prediction_files(dataset):
    """Mirror-relative top-5 files of the ImageNet testbed models on ``dataset``."""
    return _data_av.imagenet_prediction_files(dataset, DATA["imagenet_models"])


def data_user_entries():
    """The data.user_predictions entries, by name."""
    return {u["name"]: u for u in DATA.get("user_predictions", [])}


def available_prediction_sets():
    """Names of the prediction sets whose inputs are available under the current config
    (holdout.data.availability); other stages skip sets that are not."""
    return set(DATA_AVAILABILITY.available)


_DATA_BUNDLED = (f"{DATA_C101_PRED_DIR}/", f"{DATA_IMAGENET_PRED_DIR}/")
_DATA_SINGLE = sorted(p for p in DATA["checksums"] if not p.startswith(_DATA_BUNDLED))


def data_targets():
    """Final outputs of the data stage: every available prediction set (empty when disabled)."""
    if not study_enabled("data"):
        return []
    return [data_prediction_path(n) for n in sorted(available_prediction_sets())]
