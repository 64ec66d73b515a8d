"""One source of defaults: config/schema.yaml holds every default; config/config.yaml sets only
what the schema has no default for and the CPU-scale overrides, each with its reason in a comment
(docs/notes/code-layout.md, "Defaults: one source")."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from small_configs import read_yaml
from snakemake.utils import validate

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "config" / "config.yaml"
SCHEMA = REPO / "config" / "schema.yaml"
_ABSENT = object()

#: The CPU-scale overrides of config.yaml: key -> (CPU value, schema default). Each differs from
#: the schema default on purpose and says why in a comment on its line.
CPU_OVERRIDES = {
    ("search_analysis", "min_accuracy"): (0.25, 0.5),
    ("retraining", "train_per_class"): (200, None),
    ("retraining", "notes"): (None, []),  # the CPU-scale note under Table 2 (value checked below)
}
#: Content whose schema default is "none" (an empty list): set in config.yaml, with a comment.
CONTENT = {("data", "imagenet_models")}  # the 67 ImageNet testbed models


def schema_default(schema: dict, path: tuple[str, ...]) -> object:
    """The schema's ``default`` at ``path`` (through properties / additionalProperties), or _ABSENT."""
    node = schema
    for key in path:
        props = node.get("properties", {})
        if key in props:
            node = props[key]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return _ABSENT
    return node.get("default", _ABSENT)


def leaves(node: yaml.Node, path: tuple[str, ...] = ()):
    """(path, key node, value node) of every non-mapping value of a composed YAML mapping."""
    for key, value in node.value:
        here = (*path, key.value)
        if isinstance(value, yaml.MappingNode) and value.value:
            yield from leaves(value, here)
        else:
            yield here, key, value


def has_reason(lines: list[str], key: yaml.Node) -> bool:
    """A comment on the key's line, or a comment line right above it."""
    line = lines[key.start_mark.line]
    above = lines[key.start_mark.line - 1].strip() if key.start_mark.line else ""
    return "#" in line[key.start_mark.column :] or above.startswith("#")


@pytest.fixture(scope="module")
def schema() -> dict:
    return read_yaml(SCHEMA)


def test_config_sets_no_schema_default_and_says_why_it_differs(schema: dict):
    text = CONFIG.read_text()
    lines = text.splitlines()
    repeated, silent, set_with_default = [], [], []
    for path, key, value in leaves(yaml.compose(text)):
        default = schema_default(schema, path)
        if default is _ABSENT:
            continue  # content the schema has no default for (sources, checksums, model lists, recipes)
        set_with_default.append(path)
        if yaml.safe_load(yaml.serialize(value)) == default:
            repeated.append(".".join(path))
        elif not has_reason(lines, key):
            silent.append(".".join(path))
    assert not repeated, f"config.yaml repeats schema defaults (remove them): {repeated}"
    assert not silent, f"config.yaml overrides without a reason in a comment: {silent}"
    assert sorted(set_with_default) == sorted([*CPU_OVERRIDES, *CONTENT]), "the documented overrides changed"


def test_cpu_overrides_are_what_runs(schema: dict):
    """Schema defaults filled into config.yaml: the effective values are the CPU overrides; the
    schema keeps the paper / generic value (the four keys that disagreed before issue 22)."""
    effective = copy.deepcopy(read_yaml(CONFIG))
    validate(effective, str(SCHEMA), set_default=True)
    for path, (cpu, default) in CPU_OVERRIDES.items():
        value = effective
        for key in path:
            value = value[key]
        assert schema_default(schema, path) == default
        if cpu is not None:
            assert value == cpu, path
    assert effective["retraining"]["notes"] and "CPU-sized" in effective["retraining"]["notes"][0]
    # no longer an override: 26 is the schema default (the adversarial test at eps = 1 needs it)
    assert effective["seeds"]["window"] == 26 == schema_default(schema, ("seeds", "window"))


def test_has_reason_detects_a_missing_comment():
    text = "a:\n  b: 1   # why\n  c: 2\n  # why d\n  d: 3\n"
    found = {p[-1]: has_reason(text.splitlines(), k) for p, k, _ in leaves(yaml.compose(text))}
    assert found == {"b": True, "c": False, "d": True}
