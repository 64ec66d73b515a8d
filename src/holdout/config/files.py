"""The config files themselves and the folders the workflow writes: strict YAML (a key given twice
is an error), keys the schema does not know, the schema's refusal as one line, writable outputs."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from holdout.config._base import Config, ConfigError, closest


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last silently)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
        if key in seen:
            raise yaml.MarkedYAMLError(
                problem=f"key {key!r} appears twice in one mapping (first on line {seen[key] + 1}); "
                "the last one would silently win",
                problem_mark=key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


class _FastStrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """`_StrictLoader` on libyaml's parser (4x faster: the workflow reads its config files
    at every start, each SLURM job included)."""


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_FastStrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml_strict(text: str) -> Any:
    """``yaml.safe_load`` that also refuses a key given twice in one mapping.

    Raises `yaml.MarkedYAMLError` (its message has the line and column) for both
    syntax errors and duplicate keys. Parsed with libyaml when PyYAML has it; a document it
    refuses is parsed again by the pure-Python parser, so that errors read the same everywhere.
    """
    try:
        return yaml.load(text, Loader=_FastStrictLoader)
    except yaml.YAMLError:
        return yaml.load(text, Loader=_StrictLoader)


def load_config_file(path: str | Path) -> Any:
    """Read a YAML (or JSON) config file strictly: a syntax error or a duplicate key raises
    [`ConfigError`][holdout.config.ConfigError] with the file, line and column."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc})") from exc
    try:
        return load_yaml_strict(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        what = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        raise ConfigError(f"{path}{where}: {what}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from exc


def check_config_files(paths: Iterable[str | Path]) -> None:
    """Each config file loads strictly (see [`load_config_file`][holdout.config.load_config_file]) to a mapping."""
    for path in paths:
        data = load_config_file(path)
        if data is not None and not isinstance(data, dict):
            raise ConfigError(f"{path}: a config file must be a mapping of keys, got {type(data).__name__}")


def _unknown_in(value: Any, schema: Mapping[str, Any], key: str) -> list[str]:
    """Problems (one line each) of ``value`` against the ``properties`` of ``schema`` where it
    forbids other keys, recursively (mappings, mappings of mappings, lists of mappings)."""
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [p for i, v in enumerate(value) for p in _unknown_in(v, schema["items"], f"{key}[{i}]")]
    if not isinstance(value, Mapping):
        return []
    props = schema.get("properties", {}) or {}
    extra = schema.get("additionalProperties", True)
    problems = []
    for name, sub in value.items():
        where = f"{key}.{name}" if key else str(name)
        if name in props:
            problems += _unknown_in(sub, props[name], where)
        elif extra is False:
            known = ", ".join(sorted(props)) if len(props) <= 12 else f"{len(props)} keys, see config/schema.yaml"
            problems.append(
                f"{where}: unknown config key{closest(name, props)} (known under {key or 'the top level'}: {known})"
            )
        elif isinstance(extra, Mapping):
            problems += _unknown_in(sub, extra, where)
    return problems


def check_unknown_keys(config: Config, schema: Mapping[str, Any] | str | Path) -> None:
    """Every key of ``config`` is one the schema knows (where the schema forbids others): a
    misspelt key is an error naming it and the closest known key (difflib), not silently ignored.

    Run before the schema validation, whose message for an unknown key names neither."""
    if not isinstance(schema, Mapping):
        schema = load_config_file(schema)
    problems = _unknown_in(config, schema, "")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ConfigError(problems[0] + more)


def schema_error(exc: BaseException) -> ConfigError:
    """The schema validation's refusal (Snakemake's ``WorkflowError`` around a jsonschema
    ``ValidationError``, printed with the whole schema) as one line naming the key:
    ``config key audit.rvw_C: 0.5 is less than the minimum of 1 (see config/schema.yaml)``."""
    import jsonschema

    err = exc if isinstance(exc, jsonschema.ValidationError) else exc.__context__  # raised in its `except`
    if not isinstance(err, jsonschema.ValidationError):
        err = next((a for a in getattr(exc, "args", ()) if isinstance(a, jsonschema.ValidationError)), None)
    if err is None:
        return ConfigError(f"config: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
    key = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in err.absolute_path).lstrip(".")
    return ConfigError(f"config key {key or 'the top level'}: {err.message[:300]} (see config/schema.yaml)")


def check_writable(folders: Iterable[str | Path]) -> None:
    """Every existing folder at or below ``folders`` accepts a new file.

    Tries to create (and removes) a temporary file in each, which also catches read-only
    mounts and access lists that `os.access` misses. Folders that do not exist are
    skipped (the workflow creates them).
    """
    for top in folders:
        top = Path(top)
        if not top.is_dir():
            continue
        for dirpath, _, _ in os.walk(top):
            try:
                fd, probe = tempfile.mkstemp(prefix=".holdout-write-check-", dir=dirpath)
            except OSError as exc:
                raise ConfigError(
                    f"{Path(dirpath).resolve()}: folder is not writable ({exc.strerror}); the workflow "
                    "writes its outputs there: make it writable (chmod u+w) or run in another directory"
                ) from exc
            os.close(fd)
            os.unlink(probe)
