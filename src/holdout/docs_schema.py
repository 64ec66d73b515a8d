"""The configuration reference of the documentation site, generated from ``config/schema.yaml``.

The JSON schema is the one source of every config key's type, default and description
(``workflow/rules/common.smk`` validates against it and fills in its defaults). This module walks
it and writes one Markdown table per top-level section, so the page ``configuration.md`` of the
MkDocs site is never kept by hand (``docs/hooks/schema_page.py`` calls
[`schema_markdown`][holdout.docs_schema.schema_markdown] at
build time).

Key paths are dotted; ``[]`` marks the items of a list and ``<name>`` a key of a mapping whose
keys you choose (e.g. ``audit.user.<name>.new_set``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_BOUNDS = (
    ("minimum", ">="),
    ("exclusiveMinimum", ">"),
    ("maximum", "<="),
    ("exclusiveMaximum", "<"),
    ("minItems", "items >="),
)


@dataclass(frozen=True)
class SchemaKey:
    """One config key: dotted path, type (with its constraints), default and description.

    ``default`` is ``None`` when the schema gives no default; ``has_default`` tells that apart
    from a default of ``null``.
    """

    path: str
    type: str
    default: Any
    has_default: bool
    description: str


def type_text(node: Mapping[str, Any]) -> str:
    """Readable type of one schema node: ``type`` (or the ``oneOf`` alternatives), enum, bounds, pattern."""
    if "oneOf" in node or "anyOf" in node:
        alts = node.get("oneOf") or node.get("anyOf")
        text = " or ".join(dict.fromkeys(type_text(a) for a in alts))
    else:
        kind = node.get("type", "any")
        text = " or ".join(kind) if isinstance(kind, list) else str(kind)
        if kind == "array" and isinstance(node.get("items"), Mapping) and "type" in node["items"]:
            text = f"array of {type_text(node['items'])}"
    if "enum" in node:
        text += ": one of " + ", ".join(json.dumps(v) for v in node["enum"])
    limits = [f"{sign} {node[key]}" for key, sign in _BOUNDS if key in node]
    if limits:
        text += " (" + ", ".join(limits) + ")"
    if "pattern" in node:
        text += f" matching {node['pattern']}"
    return text


def iter_keys(schema: Mapping[str, Any], prefix: str = "") -> Iterator[SchemaKey]:
    """Every key of ``schema`` depth-first in file order: properties, list items, mapping values."""
    for name, node in (schema.get("properties") or {}).items():
        if not isinstance(node, Mapping):
            continue
        path = f"{prefix}.{name}" if prefix else name
        yield SchemaKey(
            path=path,
            type=type_text(node),
            default=node.get("default"),
            has_default="default" in node,
            description=" ".join(str(node.get("description", "")).split()),
        )
        yield from _children(node, path)


def _children(node: Mapping[str, Any], path: str) -> Iterator[SchemaKey]:
    """Keys nested below ``node``: its properties, its list items' and its free mapping values' keys."""
    yield from iter_keys(node, path)
    items = node.get("items")
    if isinstance(items, Mapping):
        yield from iter_keys(items, f"{path}[]")
    values = node.get("additionalProperties")
    if isinstance(values, Mapping):
        yield from iter_keys(values, f"{path}.<name>")
    for alt in node.get("oneOf") or node.get("anyOf") or []:
        if isinstance(alt, Mapping):
            yield from _children(alt, path)


def missing_descriptions(schema: Mapping[str, Any]) -> list[str]:
    """Paths of the keys that have no description (the schema promises one for every key)."""
    return [key.path for key in iter_keys(schema) if not key.description]


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: no pipes, HTML tags, emphasis markers or link brackets."""
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "&#124;"), ("*", "&#42;")):
        text = text.replace(char, entity)
    return text.replace("[", "&#91;").replace("]", "&#93;").replace("_", "&#95;")


def _code(value: str) -> str:
    """A code span that survives a table cell (pipes escaped as an entity, backticks avoided)."""
    return "<code>" + _cell(value).replace("`", "&#96;") + "</code>"


def default_text(key: SchemaKey) -> str:
    """The default as compact JSON in a code span; empty when the schema gives none."""
    if not key.has_default:
        return ""
    return _code(json.dumps(key.default, ensure_ascii=False))


def section_markdown(name: str, node: Mapping[str, Any]) -> str:
    """One top-level section: heading, its description, a table of key, type, default, description.

    Key paths may break across lines only after a dot (``<wbr>``), so a long path stays readable.
    """
    rows = [
        f"| {_code(k.path).replace('.', '.<wbr>')} | {_cell(k.type)} | {default_text(k)} | {_cell(k.description)} |"
        for k in _children(node, name)
    ]
    desc = " ".join(str(node.get("description", "")).split())
    head = [f"## {name}", "", _cell(desc), ""] if desc else [f"## {name}", ""]
    table = ["| key | type | default | description |", "|---|---|---|---|", *rows] if rows else []
    return "\n".join(head + table) + "\n"


def schema_markdown(schema: Mapping[str, Any], source: str = "config/schema.yaml") -> str:
    """The whole configuration page: an introduction naming ``source``, then one section per top-level key."""
    intro = [
        "# Configuration",
        "",
        f"Every config key of the workflow, generated from `{source}` when the site is built (the schema "
        "is the one source of types, defaults and descriptions; the workflow validates every config "
        "file against it at start-up and fills in these defaults). `config/config.yaml` is the default "
        "run, `config/offline.yaml` the same run from the data mirror, `config/paper.yaml` the papers' "
        "scale. Key paths are dotted; `[]` marks the items of a list and `<name>` a key you choose.",
        "",
        "Sections: " + ", ".join(f"[{name}](#{name})" for name in schema.get("properties", {})) + ".",
        "",
    ]
    sections = [section_markdown(name, node) for name, node in (schema.get("properties") or {}).items()]
    return "\n".join(intro) + "\n" + "\n".join(sections)


def load_schema(path: str | Path) -> dict[str, Any]:
    """Read a YAML schema file; a file that is not a mapping is an error naming it."""
    schema = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(schema, dict):
        raise ValueError(f"{path}: a JSON schema must be a mapping, got {type(schema).__name__}")
    return schema
