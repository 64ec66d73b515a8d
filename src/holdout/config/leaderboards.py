"""Checks of the ``leaderboards`` keys: timm sets with a checksum, split dates, and the keys that
name parts of an input file (against the file where it is already here; the jobs check the same keys
with the same messages)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from holdout.config._base import Config, ConfigError, as_list, as_mapping, check_known_sets, closest

#: the mirror-relative name of a timm results file (leaderboards.checksums keys)
_TIMM_RESULTS = "pytorch-image-models/results/results-{}.csv"


def check_leaderboards(config: Config, workdir: str | Path = ".") -> None:
    """Each timm set of ``leaderboards.pairs`` is a results file with a checksum (a misspelt one
    would silently leave the whole study out), the LiveCodeBench split dates are YYYY-MM-DD, and,
    with the study on, the keys that name parts of its files
    ([`check_leaderboard_files`][holdout.config.check_leaderboard_files])."""
    lb = as_mapping(config.get("leaderboards"))
    sums = as_mapping(lb.get("checksums"))
    known = sorted(k[len(_TIMM_RESULTS) - 6 : -4] for k in sums if k.startswith(_TIMM_RESULTS[:-6]))
    for name, pair in as_mapping(lb.get("pairs")).items():
        if as_mapping(pair).get("source") != "timm":
            continue
        for side in ("original", "new"):
            key = f"leaderboards.pairs.{name}.{side}"
            check_known_sets(key, [pair.get(side)], known, "a timm results set with a checksum")
    lcb = as_mapping(lb.get("livecodebench"))
    splits = [("split", lcb.get("split"))] + [
        (f"placebo_splits[{i}]", v) for i, v in enumerate(as_list(lcb.get("placebo_splits")))
    ]
    for key, value in splits:
        if value is not None and not _is_day(str(value)):
            raise ConfigError(f"leaderboards.livecodebench.{key}: {value!r} is not a date written YYYY-MM-DD")
    if lb.get("enabled", True):
        check_leaderboard_files(config, workdir)


#: the mirror-relative names of the testbed, EvalPlus and LiveCodeBench files
_TESTBED, _EVALPLUS = "imagenet-testbed/robustness_top1s.csv", "evalplus/results.json"
_LCB = "livecodebench/src/mocks/performances_generation.json"


def _leaderboard_file(config: Config, relpath: str, workdir: str | Path) -> Path | None:
    """The local copy of a leaderboard input: in ``data.mirror``, or fetched by an earlier run;
    None before it is downloaded (the job then checks the same keys)."""
    mirror = as_mapping(config.get("data")).get("mirror")
    places = [Path(workdir, Path(mirror).expanduser(), relpath)] if mirror else []
    places.append(Path(workdir, "resources/leaderboards/raw", relpath))
    return next((p for p in places if p.is_file()), None)


def _unreadable(path: Path, exc: BaseException) -> ConfigError:
    return ConfigError(
        f"{path}: unreadable ({type(exc).__name__}); restore it (leaderboards.checksums holds its checksum)"
    )


def _testbed_columns(path: Path) -> list[str]:
    """The testbed CSV's columns, from its header line only."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return [c for c in next(csv.reader(fh), []) if c != "model"]
    except (OSError, ValueError) as exc:
        raise _unreadable(path, exc) from None


def _evalplus_rates(path: Path) -> dict[str, list[float]]:
    """Every model's pass@1 (percent) in EvalPlus's ``results.json``, by key (humaneval, mbpp+, ...)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _unreadable(path, exc) from None
    out: dict[str, list[float]] = {}
    for row in data.values() if isinstance(data, Mapping) else []:
        for key, value in as_mapping(as_mapping(row).get("pass@1")).items():
            if isinstance(value, (int, float)):
                out.setdefault(key, []).append(float(value))
    return out


def _check_evalplus_size(key: str, n: Any, rates: list[float], set_name: str, path: str | Path) -> None:
    """Most pass@1 values of a set of n problems are k/n in percent, to one decimal: a size that half
    of them do not fit is not the set's (the fits would leave those models out as another version's)."""
    if not isinstance(n, int) or n < 1 or not rates:
        return
    fit = sum(abs(round(v * n / 100) / n * 100 - v) <= 0.05 + 1e-9 for v in rates)
    if 2 * fit < len(rates):
        raise ConfigError(
            f"{key}: {n} problems, but only {fit} of the {len(rates)} pass@1 values of {set_name!r} in {path} are "
            f"k/{n} (to one decimal): give that set's number of problems"
        )


def check_leaderboard_files(config: Config, workdir: str | Path = ".") -> None:
    """The keys of ``leaderboards`` that name parts of an input file, against the file where it is
    already here ([`check_leaderboard_pair`][holdout.config.check_leaderboard_pair],
    [`check_livecodebench_keys`][holdout.config.check_livecodebench_keys]); a file still to be
    downloaded is checked by its job, with the same messages."""
    lb = as_mapping(config.get("leaderboards"))
    for name, pair in as_mapping(lb.get("pairs")).items():
        relpath = {"testbed": _TESTBED, "evalplus": _EVALPLUS}.get(as_mapping(pair).get("source"))
        path = None if relpath is None else _leaderboard_file(config, relpath, workdir)
        if path is not None:
            check_leaderboard_pair(name, pair, path)
    path = _leaderboard_file(config, _LCB, workdir)
    if path is not None:
        check_livecodebench_keys(as_mapping(lb.get("livecodebench")), path)


def check_leaderboard_pair(name: str, pair: Mapping[str, Any], path: str | Path) -> None:
    """``leaderboards.pairs.<name>``'s original and new set are columns of the testbed CSV (its
    header line only) or pass@1 keys of EvalPlus's ``results.json``, there with sizes the values
    fit; timm pairs need no file."""
    source = pair.get("source")
    if source not in ("testbed", "evalplus"):
        return
    rates = _evalplus_rates(Path(path)) if source == "evalplus" else {}
    known = sorted(rates) if source == "evalplus" else _testbed_columns(Path(path))
    for side in ("original", "new"):
        value = pair.get(side)
        if value not in known:
            what = "column" if source == "testbed" else "pass@1 key"
            listed = ", ".join(known) if len(known) <= 12 else f"{len(known)} columns"
            raise ConfigError(
                f"leaderboards.pairs.{name}.{side}: {value!r} is not a {what} of {path}{closest(value, known)} "
                f"({listed})"
            )
        _check_evalplus_size(
            f"leaderboards.pairs.{name}.n_{side}", pair.get(f"n_{side}"), rates.get(value, []), value, path
        )


def check_livecodebench_keys(lcb: Mapping[str, Any], path: str | Path) -> None:
    """``leaderboards.livecodebench``'s ``split`` and each placebo split leave items on both sides
    (a placebo: within the split's side), ``line_models`` and ``families`` name models of the file."""
    import json

    import numpy as np

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        days = np.unique(
            np.array([p["date"] for p in data["performances"]], dtype="datetime64[ms]").astype("datetime64[D]")
        )
        models = [str(m["model_repr"]) for m in data["models"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _unreadable(Path(path), exc) from None
    if not days.size or lcb.get("split") is None:
        return
    split = np.datetime64(str(lcb["split"]), "D")
    span = f"the {days.size} contest days of {path} run from {days[0]} to {days[-1]}"
    if not days[0] < split <= days[-1]:
        empty = "before" if split <= days[0] else "on or after"
        raise ConfigError(
            f"leaderboards.livecodebench.split: {split} leaves no item {empty} it ({span}): "
            f"choose a day after {days[0]} and not after {days[-1]}"
        )
    for i, text in enumerate(as_list(lcb.get("placebo_splits"))):
        day = np.datetime64(str(text), "D")
        where = "before" if day < split else "on or after"
        side = days[days < split] if day < split else days[days >= split]
        if not side[0] < day <= side[-1]:
            raise ConfigError(
                f"leaderboards.livecodebench.placebo_splits[{i}]: {day} leaves no item on one side within its "
                f"period (the items {where} the split {split} run from {side[0]} to {side[-1]})"
            )
    named = [("line_models", m) for m in as_list(lcb.get("line_models"))]
    named += [(f"families.{f}", m) for f, ms in as_mapping(lcb.get("families")).items() for m in as_list(ms)]
    for key, model in named:
        if model not in models:
            raise ConfigError(
                f"leaderboards.livecodebench.{key}: {model!r} is not a model of {path}{closest(model, models)}"
            )


def _is_day(text: str) -> bool:
    import datetime
    import re

    try:
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", text)) and bool(datetime.date.fromisoformat(text))
    except ValueError:
        return False
