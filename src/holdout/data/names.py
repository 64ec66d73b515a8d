"""One safe-name rule for every name that becomes part of a path (or a URL).

Set names, model names, dataset keys and study names from config files end up in paths such as
``resources/predictions/<set>.npz`` or ``ImageNetV2/data/predictions/<dataset>/<model>.npy``
(appended to a URL in download mode). [`check_name`][holdout.data.names.check_name] refuses
anything that could leave its folder (``/``, ``\\``, ``..``, a leading dot, control characters);
[`check_relpath`][holdout.data.names.check_relpath] does the same for each part of a
mirror-relative path. The schema (``config/schema.yaml``) holds the same patterns, so a bad name
stops the workflow at start-up; the library checks again where it builds the path.
"""

from __future__ import annotations

import re

from holdout.data.errors import DataError

__all__ = ["NAME_PATTERN", "RELPATH_PATTERN", "UnsafeNameError", "check_name", "check_relpath"]

#: a name that is one file or folder name: a letter or digit, then letters, digits, ``_``, ``.``, ``-``
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
#: a relative path of such parts (``+`` allowed, no part starting with a dot), joined by ``/``
RELPATH_PATTERN = r"^[A-Za-z0-9_+-][A-Za-z0-9_.+-]*(/[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)*$"

_NAME = re.compile(NAME_PATTERN)
_RELPATH = re.compile(RELPATH_PATTERN)


class UnsafeNameError(DataError):
    """A name (or relative path) from a config or input file could leave its folder."""


def check_name(name: object, key: str) -> str:
    """``name`` when it matches ``NAME_PATTERN``; otherwise
    [`UnsafeNameError`][holdout.data.names.UnsafeNameError] naming the config ``key``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UnsafeNameError(
            f"{key}: {name!r} is not a safe name (it becomes a file name): use letters, digits, '_', '.' "
            "and '-', starting with a letter or digit, at most 128 characters"
        )
    return name


def check_relpath(relpath: object, key: str) -> str:
    """``relpath`` when it is a relative path of safe parts
    (``RELPATH_PATTERN``: no ``..``, no absolute path);
    otherwise [`UnsafeNameError`][holdout.data.names.UnsafeNameError] naming ``key``."""
    if not isinstance(relpath, str) or not _RELPATH.fullmatch(relpath):
        raise UnsafeNameError(
            f"{key}: {relpath!r} is not a safe relative path: parts of letters, digits, '_', '.', '+' and '-' "
            "joined by '/', none starting with a dot (no '..', no leading '/')"
        )
    return relpath
