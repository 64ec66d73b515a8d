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


def _head(path: Path, size: int = 1 << 16) -> str:
    first_line(path)  # unreadable, empty, Git LFS pointer: one line
    with open(path, "rb") as fh:
        return fh.read(size).decode("utf-8", errors="replace")


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
        try:
            row = json.loads(first_line(path))
        except ValueError:
            row = None
        if is_lmeval_row(row):
            return "lm-eval"
        if is_eee_row(row):
            return "eee"
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


def _check_readable(path: Path, folder: Path) -> None:
    try:
        first_line(path)
    except LogError as exc:
        raise LogError(
            f"{exc}; a per-item log in {folder}: rerun that evaluation, or give --logs the other runs"
        ) from None


def find_logs(paths: Sequence[str | Path], fmt: str | None = None) -> tuple[list[tuple[Path, str]], list[str]]:
    """(file, format) of every log in ``paths`` (files, folders searched recursively, globs), and
    notes on what a folder search passed over. A named file that is not a log is a LogError; in a
    folder such files (results_*.json, run_spec.json, aggregates) are passed over and counted."""
    if fmt is not None and fmt not in FORMATS:
        raise LogError(f"--format {fmt}: unknown; choose from {', '.join(FORMATS)}")
    out: list[tuple[Path, str]] = []
    skipped: list[Path] = []
    for given in paths:
        for p in _expand(str(given)):
            if not p.is_dir() or (p / "per_instance_stats.json").is_file():
                out.append((p, fmt or detect_format(p)))
                continue
            for f in _candidates(p, fmt):
                if _named_as_log(f):  # an empty or LFS-pointer per-item log: refused, not a run left out
                    _check_readable(f, p)
                try:
                    out.append((f, fmt or detect_format(f)))
                except LogError:
                    skipped.append(f)
    shown = ", ".join(f"{s.parent.name}/{s.name}" for s in skipped[:3])
    notes = [f"passed over {len(skipped)} file(s) without per-item scores ({shown})"]
    return out, notes if skipped else []


def read_runs(
    paths: Sequence[str | Path], fmt: str | None = None, select: Selection = ANY
) -> tuple[list[RunScores], list[str]]:
    """Every run in ``paths`` (of ``select.task`` only, when given), and notes on the search."""
    files, notes = find_logs(paths, fmt)
    if not files:
        packed = [f for given in paths if Path(given).is_dir() for f in Path(given).rglob("*.gz")]
        hint = f" ({len(packed)} .gz file(s): decompress them first, e.g. gunzip -k)" if packed else ""
        raise LogError(f"{', '.join(map(str, paths))}: no evaluation log found{hint}")
    runs = [run for f, kind in files for run in FORMATS[kind](f, select)]
    if not runs:
        raise LogError(f"no run of task {select.task!r} among the {len(files)} logs found")
    return runs, notes
