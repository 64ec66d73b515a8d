"""What a site is built from: a YAML SPEC, or a folder with one subfolder per benchmark.

A YAML SPEC (``config/site.yaml``)::

    title: Shipped benchmarks
    root: ../shared/data          # relative input paths start here (default: the SPEC's folder)
    options: {eps: 0.05}          # audit options every benchmark gets, by their long names
    aliases: {gpt-4-0613: GPT-4}  # or a CSV file (alias, model; beside the SPEC): one model, several names
    benchmarks:
      swebench_verified:
        title: SWE-bench Verified
        correctness: anchors/swebench/swebench_verified_resolved_matrix.csv
        options: {search_size: 134}

Each benchmark names exactly one input (an input kind of ``holdout audit``: ``correctness``,
``logs``, ``accuracies``, ``predictions``; or a published leaderboard file the site turns into one:
``livecodebench``, ``evalplus``, ``timm``) and ``options``, the audit's options by their long names
(``samples: 10``, ``rows: models``, ``item_dates: dates.csv``; ``true`` for a flag).

A folder SPEC holds one subfolder per benchmark, named after it: a ``correctness.csv`` (or
``.npy``) or else evaluation logs, optionally files named after an audit option (``item_dates.csv``,
``model_dates.csv``, ``families.csv``, ``labels.npy`` ...) and an ``options.yaml``.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["Benchmark", "SiteSpec", "SpecError", "load_spec", "AUDIT_KINDS", "SOURCE_KINDS"]

#: input kinds ``holdout audit`` reads itself, and published files the site turns into one of them
AUDIT_KINDS = ("correctness", "logs", "accuracies", "predictions")
SOURCE_KINDS = ("livecodebench", "evalplus", "timm")
#: audit options whose values are files (resolved against the root or the benchmark's folder)
PATH_OPTIONS = frozenset(
    {"labels", "new_predictions", "new_labels", "translations", "item_dates", "model_dates", "reference_models"}
    | {"reference_correctness", "families", "rvw_description", "clusters"}
)
#: options the site sets itself
SITE_OWNED = frozenset({"out", "force", "correctness", "logs", "accuracies", "adaptive", "help"})
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,79}$")
RESERVED = frozenset({"index", "inputs", "logs", "site", "models", "benchmarks", "audit_logs"})
TOP_KEYS = frozenset({"title", "root", "options", "aliases", "benchmarks"})


class SpecError(ValueError):
    """A bad SPEC: the message names the file and the key (one line)."""


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its ``name`` (folder and page name), ``title``, input ``kind`` (one of
    ``AUDIT_KINDS`` or ``SOURCE_KINDS``), ``inputs`` (files, or for a source its named files and
    settings) and the audit ``options`` (long name -> value, file values resolved)."""

    name: str
    title: str
    kind: str
    inputs: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SiteSpec:
    """A site: its ``title``, ``benchmarks`` in order, ``aliases`` (name on a benchmark -> model)
    and the ``source`` it was read from."""

    title: str
    benchmarks: tuple[Benchmark, ...]
    aliases: dict[str, str]
    source: str


def audit_option_names() -> frozenset[str]:
    """The long option names of ``holdout audit`` (underscored), read from its parser."""
    from holdout.audit.cli import build_parser

    names: set[str] = set()
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction) and "audit" in action.choices:
            for a in action.choices["audit"]._actions:
                names.update(s[2:].replace("-", "_") for s in a.option_strings if s.startswith("--"))
    return frozenset(names)


def _fail(where: str, key: str, what: str) -> SpecError:
    return SpecError(f"{where}: {key}: {what}")


def _options(raw: Any, where: str, key: str, base: Path, known: frozenset[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _fail(where, key, "expected a mapping of audit options by their long names (samples: 10)")
    out: dict[str, Any] = {}
    for name, value in raw.items():
        opt = str(name).replace("-", "_")
        if opt in SITE_OWNED:
            raise _fail(where, f"{key}.{name}", "set by holdout site itself; remove it")
        if opt not in known:
            raise _fail(where, f"{key}.{name}", "not an option of holdout audit (holdout audit --help lists them)")
        if value is None or isinstance(value, dict):
            raise _fail(where, f"{key}.{name}", "needs a value (a number, text, a list, or true for a flag)")
        if opt in PATH_OPTIONS and not str(value).startswith("column:"):
            value = _existing(base / str(value), where, f"{key}.{name}")
        out[opt] = value
    return out


def _existing(path: Path, where: str, key: str) -> str:
    if not path.exists():
        raise _fail(where, key, f"{path} does not exist")
    return str(path)


def _inputs(kind: str, raw: Any, where: str, key: str, base: Path) -> dict[str, Any]:
    """The input files of ``kind`` (paths checked); a source's settings kept as given."""
    if kind == "logs":
        paths = raw if isinstance(raw, list) else [raw]
        return {"paths": [_existing(base / str(p), where, key) for p in paths]}
    if kind in ("correctness", "accuracies", "predictions", "livecodebench"):
        if not isinstance(raw, str):
            raise _fail(where, key, "expected one file path")
        return {"path": _existing(base / raw, where, key)}
    need = {"evalplus": ("file", "base", "plus", "sizes"), "timm": ("original", "new", "sizes")}[kind]
    if not isinstance(raw, dict) or set(raw) != set(need):
        raise _fail(where, key, f"expected a mapping with exactly the keys {', '.join(need)}")
    out = dict(raw)
    for k in ("file", "original", "new"):
        if k in out:
            out[k] = _existing(base / str(out[k]), where, f"{key}.{k}")
    if not (isinstance(out["sizes"], list) and len(out["sizes"]) == 2):
        raise _fail(where, f"{key}.sizes", "expected the two test sets' sizes, [N_ORIG, N_NEW]")
    return out


def _benchmark(name: str, raw: Any, where: str, base: Path, common: dict, known: frozenset[str]) -> Benchmark:
    key = f"benchmarks.{name}"
    if not NAME.match(name) or name.lower() in RESERVED:
        raise _fail(where, key, "a benchmark name is letters, digits and _.+- (not index, inputs, models ...)")
    if not isinstance(raw, dict):
        raise _fail(where, key, "expected a mapping (title, one input, options)")
    kinds = [k for k in (*AUDIT_KINDS, *SOURCE_KINDS) if k in raw]
    other = set(raw) - {"title", "options", *kinds}
    if other:
        raise _fail(where, f"{key}.{sorted(other)[0]}", "unknown key (title, options, and one input kind)")
    if len(kinds) != 1:
        allowed = ", ".join((*AUDIT_KINDS, *SOURCE_KINDS))
        raise _fail(where, key, f"name exactly one input, one of: {allowed}")
    kind = kinds[0]
    inputs = _inputs(kind, raw[kind], where, f"{key}.{kind}", base)
    options = {**common, **_options(raw.get("options"), where, f"{key}.options", base, known)}
    return Benchmark(name, str(raw.get("title") or name), kind, inputs, options)


def _aliases(raw: Any, where: str, base: Path) -> dict[str, str]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    if isinstance(raw, str):
        import pandas as pd

        table = pd.read_csv(_existing(base / raw, where, "aliases"), dtype=str)
        if list(table.columns[:2]) != ["alias", "model"]:
            raise _fail(where, "aliases", f"{raw}: expected the columns alias, model")
        return dict(zip(table["alias"], table["model"], strict=True))
    raise _fail(where, "aliases", "expected a mapping (name on a benchmark: model) or a CSV file (alias, model)")


def _read_yaml(path: Path, what: str) -> Any:
    try:
        return yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise SpecError(f"{path}: not valid YAML{line}: {what}") from None


def _yaml_spec(path: Path, root: str | None) -> SiteSpec:
    where = str(path)
    data = _read_yaml(path, "write the SPEC as in config/site.yaml")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), dict) or not data["benchmarks"]:
        raise _fail(where, "benchmarks", "expected a mapping of benchmark names to their inputs")
    if extra := set(data) - TOP_KEYS:
        raise _fail(where, sorted(extra)[0], f"unknown key (allowed: {', '.join(sorted(TOP_KEYS))})")
    base = Path(root) if root is not None else Path(data["root"]) if data.get("root") else path.parent
    if not base.is_dir():
        raise _fail(where, "root", f"{base} is not a folder (give the data mirror, or --root)")
    known = audit_option_names()
    common = _options(data.get("options"), where, "options", base, known)
    marks = [_benchmark(str(n), raw, where, base, common, known) for n, raw in data["benchmarks"].items()]
    return SiteSpec(
        str(data.get("title") or path.stem), tuple(marks), _aliases(data.get("aliases"), where, path.parent), where
    )


def _folder_benchmark(folder: Path, known: frozenset[str]) -> Benchmark:
    where, name = str(folder), folder.name
    options: dict[str, Any] = {}
    if (folder / "options.yaml").is_file():
        raw = _read_yaml(folder / "options.yaml", "audit options by their long names (samples: 10)")
        options = _options(raw, str(folder / "options.yaml"), "options", folder, known)
    taken = {"options.yaml"}
    for f in sorted(folder.iterdir()):
        opt = f.stem.replace("-", "_")
        if f.is_file() and opt in PATH_OPTIONS and opt in known and opt not in options:
            options[opt] = str(f)
            taken.add(f.name)
    matrix = [f for f in folder.iterdir() if f.stem == "correctness" and f.suffix in (".csv", ".npy")]
    if matrix:
        return _benchmark_from(name, "correctness", {"path": str(matrix[0])}, options, where)
    logs = sorted(str(f) for f in folder.iterdir() if f.name not in taken and not f.name.startswith("."))
    if not logs:
        raise _fail(where, "correctness.csv", "no correctness.csv and no evaluation logs in this folder")
    return _benchmark_from(name, "logs", {"paths": logs}, options, where)


def _benchmark_from(name: str, kind: str, inputs: dict, options: dict, where: str) -> Benchmark:
    if not NAME.match(name) or name.lower() in RESERVED:
        raise _fail(where, "name", "a benchmark folder's name is letters, digits and _.+- (not index, inputs ...)")
    return Benchmark(name, name, kind, inputs, options)


def _folder_spec(folder: Path) -> SiteSpec:
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not subs:
        raise _fail(str(folder), "benchmarks", "no subfolder: give one folder per benchmark, named after it")
    known = audit_option_names()
    aliases = _aliases("aliases.csv", str(folder), folder) if (folder / "aliases.csv").is_file() else {}
    marks = tuple(_folder_benchmark(s, known) for s in subs)
    return SiteSpec(folder.name, marks, aliases, str(folder))


def load_spec(spec: str | Path, root: str | None = None) -> SiteSpec:
    """The [`SiteSpec`][holdout.site.spec.SiteSpec] of a YAML file or a folder; ``root`` overrides the
    YAML's ``root``. Raises [`SpecError`][holdout.site.spec.SpecError] naming the file and the key."""
    path = Path(spec)
    if path.is_dir():
        return _folder_spec(path)
    if not path.is_file():
        raise SpecError(f"{path}: no such file or folder (give a SPEC .yaml or a folder of benchmarks)")
    return _yaml_spec(path, root)
