"""Which prediction sets the data stage can build under a config, and why the others are skipped.

A built-in set (CIFAR-10.1 v4 / v6, the original CIFAR-10 test set, the ImageNet testbed sets)
is available when every raw file it is built from has a checksum in ``data.checksums`` and,
with ``data.mirror`` set, the mirror holds it (without a mirror everything is downloaded). A
user set ``user_<name>`` (``data.user_predictions``) is available when both of its files exist.
The workflow (``workflow/rules/data_helpers.smk``) asks these functions once at start-up; other
stages skip what needs a set that is not available, and [`skipped_warning`][holdout.data.availability.skipped_warning]
says so in one
warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holdout.data.names import check_name

__all__ = [
    "CIFAR10_ARCHIVE",
    "Availability",
    "MirrorError",
    "availability",
    "builtin_sets",
    "c101_prediction_files",
    "check_mirror",
    "file_available",
    "imagenet_prediction_files",
    "raw_inputs",
    "skipped_warning",
]

#: mirror-relative paths of the raw files (as in the source repositories and ../shared/data)
CIFAR10_ARCHIVE = "cifar-10/cifar-10-python.tar.gz"
C101_PRED_DIR = "CIFAR-10.1/model_predictions"
IMAGENET_PRED_DIR = "ImageNetV2/data/predictions"
IMAGENET_CLASS_INFO = "ImageNetV2/data/metadata/class_info.json"
C101_SETS = ("cifar10_1_v4", "cifar10_1_v6", "cifar10_original")

#: what each built-in set is needed for, named in the warning when it is skipped
NEEDED_FOR = {
    "cifar10_original": "the original CIFAR-10 test labels: Recht et al. Table 1 original "
    "columns, Delta Rank, Table 4, Figure 2 and the linear fit are skipped",
}


class MirrorError(FileNotFoundError):
    """``data.mirror`` names a folder that does not exist."""


def check_mirror(mirror: str | Path | None) -> Path | None:
    """The mirror folder, absolute (a relative one is taken from the working directory), or None.

    Raises [`MirrorError`][holdout.data.availability.MirrorError] ``data.mirror: folder <path> does not exist`` when it
    is set but
    missing, so a wrong path fails at start-up with one line instead of many missing files.
    """
    if not mirror:
        return None
    path = Path(mirror).expanduser().resolve()
    if not path.is_dir():
        raise MirrorError(f"data.mirror: folder {path} does not exist")
    return path


def c101_prediction_files(split: str, models: Mapping[str, str]) -> list[str]:
    """Mirror-relative JSON files of the published CIFAR-10 models on ``split`` (original, v4, v6)."""
    return [
        f"{C101_PRED_DIR}/{split}_predictions/{check_name(m, 'data.cifar10_1_models')}_predictions.json" for m in models
    ]


def imagenet_prediction_files(dataset: str, models: Mapping[str, Any] | list[str]) -> list[str]:
    """Mirror-relative top-5 NPY files of the ImageNet testbed models on ``dataset``."""
    wildcard = dataset.startswith("{") and dataset.endswith("}")  # a Snakemake pattern, filled in later
    folder = dataset if wildcard else check_name(dataset, "data.imagenet_datasets (dataset folder)")
    return [f"{IMAGENET_PRED_DIR}/{folder}/{check_name(m, 'data.imagenet_models')}.npy" for m in models]


def builtin_sets(data: Mapping[str, Any]) -> list[str]:
    """Names of the built-in prediction sets of the ``data`` config section."""
    return [*C101_SETS, *(check_name(k, "data.imagenet_datasets") for k in data["imagenet_datasets"])]


def raw_inputs(name: str, data: Mapping[str, Any]) -> list[str]:
    """Mirror-relative raw files that built-in prediction set ``name`` is built from."""
    if name in ("cifar10_1_v4", "cifar10_1_v6"):
        version = name.rsplit("_", 1)[1]
        return [
            f"CIFAR-10.1/datasets/cifar10.1_{version}_labels.npy",
            *c101_prediction_files(version, data["cifar10_1_models"]),
        ]
    if name == "cifar10_original":
        return [CIFAR10_ARCHIVE, *c101_prediction_files("original", data["cifar10_1_models"])]
    if name in data["imagenet_datasets"]:
        dataset = data["imagenet_datasets"][name]
        return [
            f"ImageNetV2/data/datasets/{check_name(dataset, f'data.imagenet_datasets.{name}')}.json",
            IMAGENET_CLASS_INFO,
            *imagenet_prediction_files(dataset, data["imagenet_models"]),
        ]
    raise ValueError(f"unknown prediction set {name!r} (built-in: {', '.join(builtin_sets(data))})")


@dataclass(frozen=True)
class Availability:
    """The prediction sets that can be built, and for each one that cannot, what is missing."""

    mirror: Path | None
    available: frozenset[str]
    #: set name -> the missing raw files (mirror-relative, or "<file> (no checksum ...)")
    missing: dict[str, list[str]] = field(default_factory=dict)
    #: user set name -> the user files that do not exist ("predictions file x.csv")
    missing_user: dict[str, list[str]] = field(default_factory=dict)


def file_available(relpath: str, data: Mapping[str, Any], mirror: Path | None) -> bool:
    """True when the mirror-relative file can be fetched under the config: it has a checksum in
    ``data.checksums`` and, with a mirror (``mirror``, from [`check_mirror`][holdout.data.availability.check_mirror]),
    the mirror holds it."""
    return relpath in data["checksums"] and (mirror is None or (mirror / relpath).is_file())


def _missing_raw(name: str, data: Mapping[str, Any], mirror: Path | None) -> list[str]:
    missing = []
    for rel in raw_inputs(name, data):
        if rel not in data["checksums"]:
            missing.append(f"{rel} (no checksum in data.checksums)")
        elif mirror is not None and not (mirror / rel).is_file():
            missing.append(rel)
    return missing


def availability(data: Mapping[str, Any]) -> Availability:
    """What the data stage can build under the ``data`` config section (see the module docstring).

    Raises [`MirrorError`][holdout.data.availability.MirrorError] when ``data.mirror`` is set to a folder that does not
    exist.
    """
    mirror = check_mirror(data.get("mirror"))
    missing = {n: m for n in builtin_sets(data) if (m := _missing_raw(n, data, mirror))}
    available = {n for n in builtin_sets(data) if n not in missing}
    missing_user = {}
    for entry in data.get("user_predictions", []) or []:
        absent = [f"{key} file {entry[key]}" for key in ("predictions", "labels") if not Path(entry[key]).is_file()]
        if absent:
            missing_user[entry["name"]] = absent
        else:
            available.add(f"user_{entry['name']}")
    return Availability(mirror, frozenset(available), missing, missing_user)


def skipped_warning(av: Availability) -> str | None:
    """One warning listing every prediction set that is not built and why, or None when all are."""
    lines = []
    for name, files in av.missing.items():
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        where = f"not in the mirror {av.mirror}" if av.mirror is not None else "not downloadable"
        needed = f" ({NEEDED_FOR[name]})" if name in NEEDED_FOR else ""
        lines.append(f"  - {name}: {shown} {where}{needed}")
    for name, absent in av.missing_user.items():
        lines.append(f"  - user_{name}: data.user_predictions {name}: {' and '.join(absent)} not found")
    if not lines:
        return None
    return (
        "data: these prediction sets are not built, and what needs them is skipped; "
        "everything else still runs:\n" + "\n".join(lines)
    )
