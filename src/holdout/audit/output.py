"""Atomic, owned output folders: one run's files appear together, or not at all.

A run writes into a fresh folder beside the target (``.<name>.partial-XXXX``), lists what it wrote
in a manifest (``.holdout-manifest.json``) and only then moves the folder into
place; the previous result (a folder whose every file is in its own manifest) is removed only after
the new one is complete. A target that holds files of someone else (no manifest, or files the
manifest does not list) or any input of the run is refused (the first unless ``force``), so that an
audit never overwrites a user's data nor leaves a previous run's files beside a new report.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from holdout.audit.core import AuditError

__all__ = ["MANIFEST", "atomic_folder", "check_owned_out", "manifest_files"]

#: the file listing every file one run wrote, relative to its folder
MANIFEST = ".holdout-manifest.json"


def manifest_files(folder: str | Path) -> set[str] | None:
    """The files the manifest of ``folder`` lists (relative POSIX paths); None without a readable one."""
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(f) for f in data["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _present(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()} - {MANIFEST}


def check_owned_out(
    out: str | Path, inputs: Iterable[str | Path] = (), *, force: bool = False, option: str = "--out"
) -> Path:
    """Refuse an output folder that holds an input of the run, or (unless ``force``) files that no
    previous run listed in its manifest; refuse a file in its place. Returns ``out`` as a Path."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise AuditError(f"{option} {out}: is a file, not a folder (give a folder name)")
    top = out.resolve()
    for item in inputs:
        p = Path(item).resolve()
        if p == top or top in p.parents:
            raise AuditError(
                f"{option} {out}: holds the input {item}; the report would replace it: give an empty or new folder"
            )
    if not out.is_dir() or force:
        return out
    foreign = sorted(_present(out) - (manifest_files(out) or set()))
    if foreign:
        shown = ", ".join(foreign[:3]) + (" ..." if len(foreign) > 3 else "")
        raise AuditError(
            f"{option} {out}: holds {len(foreign)} file(s) that no audit wrote ({shown}); give an empty or "
            "new folder, or pass --force to replace the folder"
        )
    return out


def _write_manifest(folder: Path) -> None:
    files = sorted(_present(folder))
    (folder / MANIFEST).write_text(json.dumps({"writer": "holdout audit", "files": files}, indent=1) + "\n")


@contextmanager
def atomic_folder(out: str | Path, on_fail: Callable[[str], None] | None = None) -> Iterator[Path]:
    """A fresh folder beside ``out`` to write into; on success it replaces ``out`` (with a manifest of
    its files), on any error or interrupt it is removed and ``out`` is left as it was. ``on_fail``
    gets one sentence saying what was left."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    except OSError as exc:
        raise AuditError(f"--out {out}: cannot create or write its folder ({exc.strerror})") from None
    try:
        yield tmp
        _write_manifest(tmp)
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if on_fail is not None:
            had = out.is_dir() and any(out.iterdir())
            on_fail(f"{out}: {'left unchanged (the previous complete result)' if had else 'nothing written'}")
        raise


def _swap(tmp: Path, out: Path) -> None:
    """Move ``tmp`` to ``out``; an existing ``out`` is renamed aside first and removed after."""
    if not out.exists():
        os.replace(tmp, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.replace(out, old / out.name)
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(old / out.name, out)  # put the previous result back
        raise
    shutil.rmtree(old, ignore_errors=True)
