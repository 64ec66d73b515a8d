"""Which reader a file needs, found from its content (``--format`` overrides), and the runs of
files, folders (searched recursively) and globs."""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from holdout.logs.base import ANY, LogError, RunScores, Selection, first_line
from holdout.logs.eee import is_eee_row, read_eee
from holdout.logs.evalplus import read_evalplus
from holdout.logs.helm import read_helm
from holdout.logs.inspect_log import read_inspect
from holdout.logs.livecodebench import read_livecodebench
from holdout.logs.lmeval import is_lmeval_row, read_lmeval

__all__ = ["FORMATS", "detect_format", "find_logs", "read_runs"]

Reader = Callable[[Path, Selection], list[RunScores]]

#: format name -> reader
FORMATS: dict[str, Reader] = {
    "lm-eval": read_lmeval,
    "inspect": read_inspect,
    "helm": read_helm,
    "eee": read_eee,
    "evalplus": read_evalplus,
    "livecodebench": read_livecodebench,
}

#: files a folder search considers for each format given with --format
_PATTERNS = {
    "lm-eval": ("samples_*.jsonl",),
    "inspect": ("*.eval", "*.json"),
    "helm": ("per_instance_stats.json",),
    "eee": ("*.jsonl",),
    "evalplus": ("*eval_results.json",),
    "livecodebench": ("*_eval_all.json",),
}

#: files that hold no per-item scores, and where those are
_LMEVAL_RESULTS = "an lm-eval results file (aggregates): the per-item scores are in samples_*.jsonl"
_AGGREGATES = (
    (r'^\s*\{\s*"results"\s*:', _LMEVAL_RESULTS),
    (r'"lm_eval_version"|"n-samples"', _LMEVAL_RESULTS),
    (r'"adapter_spec"', "a HELM run_spec.json: give its folder or the per_instance_stats.json beside it"),
    (r'"evaluation_results"', "an Every Eval Ever aggregate: the per-item scores are in its _samples.jsonl"),
)
_SIDECARS = {"run_spec.json", "stats.json", "scenario.json", "scenario_state.json", "instances.json"}
_SIDECARS |= {"display_predictions.json", "display_requests.json"}


def _utf16(raw: bytes) -> bool:
    """UTF-16 text: a byte-order mark, or ASCII with a NUL at every other byte."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    head = raw[:64]
    return len(head) >= 8 and any(head[k::2].count(0) >= 0.9 * len(head[k::2]) for k in (0, 1))


def _head(path: Path, size: int = 1 << 16) -> str:
    first_line(path)  # unreadable, empty, Git LFS pointer: one line
    with open(path, "rb") as fh:
        raw = fh.read(size)
    if _utf16(raw):
        raise LogError(
            f"{path}: encoded as UTF-16, not UTF-8 as the harnesses write; convert it (iconv -f UTF-16 -t UTF-8)"
        )
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _jsonl_problem(path: Path, row: object, error: str | None) -> LogError | None:
    """Why the first line of a ``.jsonl`` file named as an lm-eval or EEE log is not one."""
    if error is not None:
        return LogError(f"{path}: line 1 is not JSON ({error}); is the file damaged? rerun that evaluation")
    if path.match("samples_*.jsonl") and isinstance(row, dict):
        keys = ", ".join(list(map(str, row))[:8])
        return LogError(f"{path}: line 1 is not an lm-eval samples row (no doc_id; its keys: {keys})")
    return None


def _json_format(head: str) -> str | None:
    text = head.lstrip()
    if text.startswith("["):
        if '"instance_id"' in text and '"stats"' in text:
            return "helm"
        if '"question_id"' in text and ('"graded_list"' in text or '"contest_date"' in text):
            return "livecodebench"
        return None
    if not text.startswith("{"):
        return None
    if '"version"' in text and '"status"' in text and '"eval"' in text:
        return "inspect"
    if '"eval"' in text and ('"hash"' in text or '"base_status"' in text):
        return "evalplus"
    return None


def detect_format(path: str | Path) -> str:
    """The format of one evaluation log, from its content (not its name); a LogError for a file of
    aggregates (naming where the per-item scores are) or of no known format."""
    path = Path(path)
    if path.is_dir():
        if (path / "per_instance_stats.json").is_file():
            return "helm"
        raise LogError(f"{path}: a folder; give the log files inside, or the folder to --logs")
    head = _head(path)
    if head.startswith("PK"):
        return "inspect"  # .eval: a zip archive
    if head.lstrip().startswith("{"):
        row, error = None, None
        try:
            row = json.loads(first_line(path))
        except ValueError as exc:
            error = " ".join(str(exc).split())[:120]
        if is_lmeval_row(row):
            return "lm-eval"
        if is_eee_row(row):
            return "eee"
        problem = _jsonl_problem(path, row, error) if path.suffix == ".jsonl" else None
        if problem is not None:
            raise problem
    found = _json_format(head)
    if found is not None:
        return found
    for pattern, hint in _AGGREGATES:
        if re.search(pattern, head):
            raise LogError(f"{path}: {hint}")
    raise LogError(f"{path}: not an evaluation log of a known format ({', '.join(FORMATS)}); name it with --format")


def _expand(pattern: str) -> list[Path]:
    p = Path(pattern)
    if p.exists():
        return [p]
    if any(c in pattern for c in "*?["):
        hits = sorted(Path(h) for h in glob.glob(pattern, recursive=True))
        if hits:
            return hits
        raise LogError(f"{pattern}: no file matches this pattern")
    raise LogError(f"{pattern}: no such file or folder")


def _candidates(folder: Path, fmt: str | None) -> list[Path]:
    patterns = _PATTERNS[fmt] if fmt else ("*.jsonl", "*.json", "*.eval")
    found = {f for pat in patterns for f in folder.rglob(pat) if f.is_file()}
    return sorted(f for f in found if f.name not in _SIDECARS)


#: names only per-item logs have (lm-eval samples, Inspect archives, HELM, EvalPlus, LiveCodeBench, EEE)
_LOG_NAMES = (
    "samples_*.jsonl",
    "*.eval",
    "per_instance_stats.json",
    "*eval_results.json",
    "*_eval_all.json",
    "*_samples.jsonl",
)


def _named_as_log(path: Path) -> bool:
    return any(path.match(pattern) for pattern in _LOG_NAMES)


def _check_log(path: Path, folder: Path, fmt: str | None) -> str:
    """The format of a file named as a per-item log in ``folder``: one that cannot be read as one is
    a LogError (never a run left out in silence)."""
    try:
        return _checked_format(path, fmt)
    except LogError as exc:
        raise LogError(
            f"{exc}; a per-item log in {folder}: rerun that evaluation (or repair the file), "
            "or give --logs the other runs"
        ) from None


_ARTICLE = {"lm-eval": "an", "inspect": "an", "eee": "an", "evalplus": "an"}


def _checked_format(path: Path, fmt: str | None) -> str:
    """``fmt`` or the detected format; ``fmt`` on a file whose content is another known format is
    a LogError saying which."""
    if fmt is None:
        return detect_format(path)
    try:
        found = detect_format(path)
    except LogError:
        return fmt  # --format reads what detection cannot name (a renamed file)
    if found != fmt:
        raise LogError(
            f"{path}: --format {fmt}, but this is {_ARTICLE.get(found, 'a')} {found} log; "
            f"give --format {found}, or leave --format out (the format is found from the content)"
        )
    return found


#: a compressed copy of a log (never read: decompress it)
_PACKED = ("*.jsonl.gz", "*.json.gz", "*.eval.gz")


class _Found:
    """Logs found so far, each file once, and what the search passed over."""

    def __init__(self) -> None:
        self.files: list[tuple[Path, str]] = []
        self.seen: set[Path] = set()
        self.twice: list[Path] = []
        self.skipped: list[tuple[Path, str]] = []

    def add(self, path: Path, kind: str) -> None:
        key = path.resolve()
        if key in self.seen:
            self.twice.append(path)
            return
        self.seen.add(key)
        self.files.append((path, kind))

    def notes(self) -> list[str]:
        out = []
        if self.skipped:
            shown = ", ".join(f"{s.parent.name}/{s.name}" for s, _ in self.skipped[:10])
            more = f" and {len(self.skipped) - 10} more" if len(self.skipped) > 10 else ""
            out.append(f"passed over {len(self.skipped)} file(s) without per-item scores ({shown}{more})")
        if self.twice:
            shown = ", ".join(map(str, self.twice[:3]))
            out.append(
                f"{len(self.twice)} log(s) given more than once (a path repeated, or inside a folder also "
                f"given), read once: {shown}"
            )
        return out


def _search(folder: Path, fmt: str | None, found: _Found) -> None:
    packed = sorted(f for pat in _PACKED for f in folder.rglob(pat))
    for f in _candidates(folder, fmt):
        if _named_as_log(f):  # a per-item log that cannot be read: refused, not a run left out
            found.add(f, _check_log(f, folder, fmt))
            continue
        try:
            found.add(f, _checked_format(f, fmt))
        except LogError as exc:
            found.skipped.append((f, str(exc)))
    if packed and found.files:
        shown = ", ".join(f"{p.parent.name}/{p.name}" for p in packed[:3])
        raise LogError(
            f"{folder}: {len(packed)} compressed log(s) among the others ({shown}): decompress them first "
            "(gunzip -k), or they would be left out"
        )


def find_logs(
    paths: Sequence[str | Path], fmt: str | None = None
) -> tuple[list[tuple[Path, str]], list[str], list[tuple[Path, str]]]:
    """(file, format) of every log in ``paths`` (files, folders searched recursively, globs; a file
    given twice, or inside a folder also given, is read once), notes on what the search passed
    over, and the files passed over with the reason. A named file that is not a log is a
    LogError; in a folder such files (results_*.json, run_spec.json, aggregates) are passed over
    and named, while a file named as a per-item log (``samples_*.jsonl`` ...) that cannot be read
    as one, or a compressed log among the others, is a LogError."""
    if fmt is not None and fmt not in FORMATS:
        raise LogError(f"--format {fmt}: unknown; choose from {', '.join(FORMATS)}")
    found = _Found()
    for given in paths:
        for p in _expand(str(given)):
            if not p.is_dir() or (p / "per_instance_stats.json").is_file():
                found.add(p, _checked_format(p, fmt))
            else:
                _search(p, fmt, found)
    return found.files, found.notes(), found.skipped


def _nothing_found(paths: Sequence[str | Path], fmt: str | None, skipped: list[tuple[Path, str]]) -> LogError:
    """Why no log was found, and what to do."""
    where = f"{', '.join(map(str, paths))}: no evaluation log found"
    packed = [f for given in paths if Path(given).is_dir() for f in Path(given).rglob("*.gz")]
    if packed:
        return LogError(f"{where} ({len(packed)} .gz file(s): decompress them first, e.g. gunzip -k)")
    aggregates = [p for p, why in skipped if why.endswith(_LMEVAL_RESULTS)]
    if aggregates:
        return LogError(
            f"{where}, only {len(aggregates)} lm-eval results file(s) (aggregates, e.g. {aggregates[0].name}) "
            "and no per-item samples_*.jsonl: rerun lm-eval with --log_samples to write them"
        )
    if fmt is not None:
        try:
            others = find_logs(paths, None)[0]
        except LogError:
            others = []
        if others:
            kinds = sorted({k for _, k in others})
            return LogError(
                f"{where} of format {fmt}, but {len(others)} {'/'.join(kinds)} log(s): give --format {kinds[0]}, "
                "or leave --format out"
            )
    return LogError(where)


def read_runs(
    paths: Sequence[str | Path], fmt: str | None = None, select: Selection = ANY
) -> tuple[list[RunScores], list[str]]:
    """Every run in ``paths`` (of ``select.task`` only, when given), and notes on the search."""
    files, notes, skipped = find_logs(paths, fmt)
    if not files:
        raise _nothing_found(paths, fmt, skipped)
    runs = [run for f, kind in files for run in FORMATS[kind](f, select)]
    if not runs:
        raise LogError(f"no run of task {select.task!r} among the {len(files)} logs found")
    return runs, notes
