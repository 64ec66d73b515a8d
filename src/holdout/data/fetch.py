"""Fetching with checksums: copy from a mirror folder or download, verify, then rename into place.

[`fetch`][holdout.data.fetch.fetch] copies one file from a mirror folder or downloads it from its URL, to a temporary
name beside the destination, verifies its checksum (``md5:<hex>`` or ``sha256:<hex>``) and only
then renames it into place (`os.replace`), so a half-finished or corrupt file never appears
under the destination name.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import os
import shutil
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from holdout.data.errors import LOG, ChecksumError, DataError, FetchError
from holdout.data.names import check_relpath

__all__ = [
    "checksum_of",
    "fetch",
    "fetch_configured",
    "parse_checksum",
    "remove_stale_partials",
    "resolve_url",
    "source_of",
    "verify_checksum",
]

_CHUNK = 1 << 20
_ALGORITHMS = {"md5": 32, "sha256": 64}


# ---------------------------------------------------------------------------
# checksums and fetching
# ---------------------------------------------------------------------------


def parse_checksum(checksum: str) -> tuple[str, str]:
    """Split ``"sha256:<64 hex>"`` or ``"md5:<32 hex>"`` into ``(algorithm, hexdigest)``."""
    algo, sep, digest = str(checksum).partition(":")
    algo = algo.strip().lower()
    digest = digest.strip().lower()
    if not sep or algo not in _ALGORITHMS:
        raise DataError(f"checksum {checksum!r}: must look like 'sha256:<hex>' or 'md5:<hex>'")
    if len(digest) != _ALGORITHMS[algo] or any(c not in "0123456789abcdef" for c in digest):
        raise DataError(f"checksum {checksum!r}: {algo} needs {_ALGORITHMS[algo]} hex digits")
    return algo, digest


def checksum_of(path: str | Path, algorithm: str = "sha256") -> str:
    """Hex digest of a file (streamed, 1 MiB at a time)."""
    h = hashlib.new(algorithm)
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def verify_checksum(
    path: str | Path, checksum: str, *, name: str | None = None, remedy: str = "fetch it again"
) -> None:
    """Raise [`ChecksumError`][holdout.data.fetch.ChecksumError] unless ``path`` has ``checksum``.

    ``name`` is the file's name in the message (defaults to ``path``); ``remedy`` what to do.
    """
    algo, expected = parse_checksum(checksum)
    actual = checksum_of(path, algo)
    if actual != expected:
        raise ChecksumError(
            f"checksum mismatch for {name or path}: expected {algo}:{expected}, got {algo}:{actual}. "
            f"The file is corrupt, incomplete or a different version: {remedy}; "
            "if you trust this version (e.g. a documented rebuild), put its checksum in config "
            "(data.checksums) instead."
        )


def resolve_url(relpath: str, urls: Mapping[str, str]) -> str:
    """URL of the mirror-relative path ``relpath``: the longest matching prefix in ``urls``.

    ``urls`` maps a path prefix (``"CIFAR-10.1/"``) or a whole path to a URL prefix
    (or the whole URL); the rest of ``relpath`` is appended.
    """
    matches = [p for p in urls if relpath.startswith(p)]
    if not matches:
        raise DataError(f"no URL configured for {relpath} (add a prefix of it to data.urls)")
    prefix = max(matches, key=len)
    return urls[prefix] + relpath[len(prefix) :]


def source_of(relpath: str, mirror: str | Path | None, urls: Mapping[str, str]) -> str:
    """Where the mirror-relative file ``relpath`` comes from: ``mirror/relpath`` when a mirror
    folder is configured (a relative one is taken from the working directory), else its URL.
    ``relpath`` must be a safe relative path ([`check_relpath`][holdout.data.names.check_relpath]),
    in download mode too: it can neither leave the mirror nor rewrite the URL's host."""
    check_relpath(relpath, "data.checksums (mirror-relative path)")
    if mirror:
        return str(Path(mirror).expanduser().resolve() / relpath)
    return resolve_url(relpath, urls)


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://", "ftp://", "file://"))


def _download(url: str, dest: Path, log: logging.Logger, timeout: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "holdout-fetch/0.1"})
    with urllib.request.urlopen(request, timeout=timeout) as resp, open(dest, "wb") as out:
        total = int(resp.headers.get("Content-Length") or 0)
        done = 0
        start = last = time.perf_counter()
        while chunk := resp.read(_CHUNK):
            out.write(chunk)
            done += len(chunk)
            now = time.perf_counter()
            if now - last >= 5.0:
                last = now
                pct = f" ({100 * done / total:.0f}% of {total / 1e6:.1f} MB)" if total else ""
                log.info(
                    "downloading %s: %.1f MB%s, %.1f MB/s", url, done / 1e6, pct, done / 1e6 / max(now - start, 1e-9)
                )
        if total and done != total:
            raise FetchError(f"download of {url} stopped after {done} of {total} bytes; run again")
    log.info("downloaded %s: %.1f MB in %.1f s", url, done / 1e6, time.perf_counter() - start)


def remove_stale_partials(dest: str | Path, log: logging.Logger | None = None) -> list[Path]:
    """Delete the ``.<name>.partial-<pid>`` files of ``dest`` left by fetches that were killed.

    Called at the start of every [`fetch`][holdout.data.fetch.fetch] of ``dest``; Snakemake runs at most one job per
    output, so a partial file of ``dest`` found then belongs to no running fetch. Returns the
    removed paths.
    """
    dest = Path(dest)
    removed = []
    for stale in dest.parent.glob(f".{glob.escape(dest.name)}.partial-*"):
        stale.unlink(missing_ok=True)
        (log or LOG).warning("removed %s, left by an interrupted fetch of %s", stale, dest.name)
        removed.append(stale)
    return removed


def fetch(
    source: str | Path,
    dest: str | Path,
    checksum: str,
    *,
    log: logging.Logger | None = None,
    timeout: float = 60.0,
) -> Path:
    """Copy (mirror path) or download (URL) ``source`` to ``dest`` and verify ``checksum``.

    The data go to a temporary name beside ``dest`` and are renamed with `os.replace`
    only after the checksum matched; on any failure the temporary file is removed, so
    ``dest`` either does not exist or is complete and verified.
    """
    log = log or LOG
    dest = Path(dest)
    parse_checksum(checksum)  # fail early on a malformed config value
    src = str(source)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    remove_stale_partials(dest, log)
    try:
        if _is_url(src):
            try:
                _download(src, tmp, log, timeout)
            except OSError as exc:
                raise FetchError(
                    f"could not download {src} to {dest}: {exc}. Check the network, or set "
                    "data.mirror to a folder holding a copy (e.g. --configfile config/offline.yaml)"
                ) from exc
        else:
            path = Path(src)
            if not path.is_file():
                raise FetchError(
                    f"{path} not found in the mirror: add the file there, or unset data.mirror to "
                    "download it from its URL"
                )
            shutil.copyfile(path, tmp)
            log.info("copied %s (%.1f MB) from the mirror", path, path.stat().st_size / 1e6)
        remedy = (
            "nothing was written; download it again"
            if _is_url(src)
            else "nothing was written; replace the mirror's copy with the published file"
        )
        verify_checksum(tmp, checksum, name=f"{dest.name} (from {src})", remedy=remedy)
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    log.info("verified %s (%s)", dest, checksum)
    return dest


def fetch_configured(
    relpath: str,
    mirror: str | Path | None,
    urls: Mapping[str, str],
    dest: str | Path,
    checksum: str,
    section: str,
    *,
    log: logging.Logger | None = None,
) -> Path:
    """One mirror-relative file of a study's inputs: from ``mirror`` (``data.mirror``) or its pinned
    URL (the study's ``<section>.urls``), verified against ``checksum`` ([`fetch`][holdout.data.fetch.fetch])."""
    log = log or LOG
    log.info("source: %s", f"mirror {mirror}" if mirror else f"download from {section}.urls")
    return fetch(source_of(relpath, mirror, urls), dest, checksum, log=log)
