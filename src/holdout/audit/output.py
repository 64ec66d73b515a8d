"""Atomic, owned output folders: one run's files appear together, or not at all.

A run writes into a fresh folder beside the target (``.<name>.partial-XXXX``), lists what it wrote
in a manifest (``.holdout-manifest.json``) and only then moves the folder into
place; the previous result (a folder whose every file is in its own manifest) is removed only after
the new one is complete. A target that holds files of someone else (no manifest, or files the
manifest does not list) or any input of the run is refused (the first unless ``force``: then it is
moved aside, never deleted), so that an audit never overwrites a user's data nor leaves a previous
run's files beside a new report.
"""

from __future__ import annotations

import glob
import itertools
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from holdout.audit.errors import AuditError
from holdout.audit.report import verdicts
from holdout.leaderboards.dates import Contamination
from holdout.leaderboards.outputs import write_contamination

__all__ = [
    "MANIFEST",
    "atomic_folder",
    "check_out_outside",
    "check_owned_out",
    "contamination_entry",
    "foreign_files",
    "manifest_files",
]

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
    if top == Path(top.anchor) or top == Path.cwd().resolve() or top in Path.cwd().resolve().parents:
        raise AuditError(f"{option} {out}: is the working folder or one above it; give a new folder for the report")
    for item in inputs:
        p = Path(item).resolve()
        if p == top or top in p.parents:
            raise AuditError(
                f"{option} {out}: holds the input {item}; the report would replace it: give an empty or new folder"
            )
    if not out.is_dir() or force:
        return out
    foreign = foreign_files(out)
    if foreign:
        shown = ", ".join(foreign[:3]) + (" ..." if len(foreign) > 3 else "")
        raise AuditError(
            f"{option} {out}: holds {len(foreign)} file(s) that no audit wrote ({shown}); give an empty or "
            "new folder, or pass --force to replace the folder"
        )
    return out


def check_out_outside(out: str | Path, folders: Iterable[str | Path], option: str = "--out") -> None:
    """Refuse an output folder inside (or equal to) an input folder or a glob's folder (``--logs``):
    the report would mix with the inputs, the next read would meet it, and ``--force`` would move
    the inputs aside."""
    top = Path(out).resolve()
    for item in folders:
        root = _input_root(item)
        if root.is_dir() and (root == top or root in top.parents):
            raise AuditError(
                f"{option} {out}: is inside the input folder {item} (or is it); the report would mix with the "
                "inputs (and --force would move them aside): give a folder outside it"
            )


def _input_root(item: str | Path) -> Path:
    """The folder or file an input names, resolved: for a glob (``logs/*/samples_*.jsonl``), the
    folder above its first wildcard."""
    text = str(item)
    if not glob.has_magic(text):
        return Path(text).resolve()
    parts = Path(text).parts
    fixed = [x for x in itertools.takewhile(lambda x: not glob.has_magic(x), parts)]
    return Path(*fixed).resolve() if fixed else Path.cwd().resolve()


def foreign_files(folder: str | Path) -> list[str]:
    """Files under ``folder`` that its manifest does not list (all of them without a manifest)."""
    folder = Path(folder)
    return sorted(_present(folder) - (manifest_files(folder) or set())) if folder.is_dir() else []


def _write_manifest(folder: Path) -> None:
    files = sorted(_present(folder))
    (folder / MANIFEST).write_text(json.dumps({"writer": "holdout audit", "files": files}, indent=1) + "\n")


@contextmanager
def atomic_folder(
    out: str | Path,
    on_fail: Callable[[str], None] | None = None,
    on_kept: Callable[[str], None] | None = None,
) -> Iterator[Path]:
    """A fresh folder beside ``out`` to write into; on success it replaces ``out`` (with a manifest of
    its files; a symlink ``out`` is followed, its target replaced and the link kept), on any error
    or interrupt it is removed and ``out`` is left as it was. ``on_fail``
    gets one sentence saying what was left. A previous ``out`` holding files no audit wrote is not
    deleted but moved aside to ``<out>.replaced-<time>``, which ``on_kept`` is told."""
    out = Path(out)
    if out.is_symlink():  # follow it: the report replaces the link's target, the link stays
        out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
        umask = os.umask(0o022)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide the report from the user's group
    except OSError as exc:
        raise AuditError(f"--out {out}: cannot create or write its folder ({exc.strerror})") from None
    try:
        yield tmp
        _write_manifest(tmp)
        kept = _swap(tmp, out)
        if kept is not None and on_kept is not None:
            on_kept(f"{out}: its previous contents (files no audit wrote) were moved to {kept}")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if on_fail is not None:
            had = out.is_dir() and any(out.iterdir())
            on_fail(f"{out}: {'left unchanged (the previous complete result)' if had else 'nothing written'}")
        raise


def _swap(tmp: Path, out: Path) -> Path | None:
    """Move ``tmp`` to ``out``. A previous audit's ``out`` is renamed aside first and removed after;
    one holding other files is renamed to ``<out>.replaced-<time>`` and kept (returned)."""
    if not out.exists():
        os.replace(tmp, out)
        return None
    keep = bool(foreign_files(out))
    if keep:
        aside = out.parent / f"{out.name}.replaced-{time.strftime('%Y%m%d-%H%M%S')}"
        aside = Path(tempfile.mkdtemp(prefix=aside.name + "-", dir=out.parent)) if aside.exists() else aside
        holder = aside if not aside.exists() else aside / out.name
    else:
        holder = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent)) / out.name
    os.replace(out, holder)
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(holder, out)  # put the previous result back
        raise
    if keep:
        return holder
    shutil.rmtree(holder.parent, ignore_errors=True)
    return None


def contamination_entry(c: Contamination, source: str, out: Path) -> dict[str, object]:
    """``contamination.{png,pdf,csv,json}`` and ``contamination_line.csv`` in ``out``; returns the
    ``contamination`` entry of ``summary.json`` with its verdict."""
    entry = write_contamination(c, out / "contamination.png", f"{Path(source).name}: split {c.split}")
    entry |= {"dates": "; ".join(c.notes)} if c.notes else {}  # the format read, UTC offsets converted
    return entry | {"verdict": verdicts.contamination_verdict(entry)}
