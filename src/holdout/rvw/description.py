"""Description lengths for Rip van Winkle's Razor (Arora & Zhang, 2021, Sec. 4 and Appendix B).

[`description_length`][holdout.rvw.description.description_length] counts, in bits, a description that a user writes as
a small YAML
file, by the rubric of Section 4 (English, math expressions as computation graphs, networks as
chains of layers and blocks) with Rip van Winkle's vocabulary of Appendix B (the bound itself:
[`holdout.rvw.bound`][holdout.rvw.bound]).

The YAML format (see ``config/rvw/*.yaml`` for worked examples)::

    name: Batch normalization                # required
    english:                                 # optional: rubric of the English parts
      option: character                      #   character (Option 1) or word (Option 2)
      bits_per_character: 1.0                #   Option 1, paper: 1.0
      bits_per_word: 10                      #   Option 2, paper: ceil(log2 875) = 10
    parts:                                   # required, a non-empty list; each part is one of
      - english: "random crop 224 x 224 with horizontal flip"
      - math:                                # a formula as a computation graph (Sec. 4.2)
          name: BN
          symbols: [x, mu, sigma2, g, b]     # abstract symbols: no legend bits
          constants: {eps: 0.01}             # 8-bit floats in the legend
          operators:                         # vertex: [operator, argument, argument, ...]
            d: [subtract, x, mu]
          outputs: {y: d}                    # output vertex: the vertex it reads
          order_bits: every_edge             # or order_sensitive
          operator_legend: per_vertex        # or per_type
      - network:                             # a network as a chain (Sec. 4.3)
          chain:
            - {layer: Conv, args: [7, 64, 2]}
            - {block: Block, args: [k, 2], repeat: 3}
          edge_bits: 3                       # optional
          blocks_and_hyperparameters_bits: 39  # or hyperparameter_bits: <bits per value>
      - counted: {bits: 12, what: "a count made by hand, with its reason"}
"""

import graphlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml

from holdout.config import load_yaml_strict
from holdout.rvw.vocabulary import (
    CONSTANT_BITS,
    DEEP_LEARNING_LAYERS,
    MATH_OPERATIONS,
    ORDER_SENSITIVE_OPERATIONS,
    STE_DICTIONARY_WORDS,
    index_bits,
)

__all__ = [
    "DESCRIPTION_SCHEMA",
    "DescriptionError",
    "DescriptionItem",
    "DescriptionLength",
    "EnglishRubric",
    "description_length",
    "english_bits",
]

# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


class DescriptionError(ValueError):
    """A description file that cannot be counted; the message names the file and the key."""


@dataclass(frozen=True)
class DescriptionItem:
    """One line of an itemised count: ``count`` things at ``bits_each`` bits = ``bits``."""

    part: str
    what: str
    count: float
    bits_each: float
    bits: float


@dataclass(frozen=True)
class DescriptionLength:
    """An itemised description length. ``total`` is the exact sum; ``bits`` rounds it up."""

    name: str
    source: str
    items: tuple[DescriptionItem, ...]

    @property
    def total(self) -> float:
        return float(sum(item.bits for item in self.items))

    @property
    def bits(self) -> int:
        """Whole bits (``ceil(total)``): what enters `rvw_bound` as ``|f|_r``."""
        return math.ceil(self.total - 1e-9)

    def by_part(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for item in self.items:
            out[item.part] = out.get(item.part, 0.0) + item.bits
        return out

    def table(self) -> str:
        """A plain-text itemisation (one line per item, then the total)."""
        lines = [f"{self.name} ({self.source})"]
        for it in self.items:
            lines.append(f"  {it.part:<28} {it.what:<52} {it.count:>8g} x {it.bits_each:>6g} = {it.bits:>8g}")
        lines.append(f"  {'total':<28} {'':<52} {'':>8} {'':>8} {self.total:>10g}")
        return "\n".join(lines)


@dataclass(frozen=True)
class EnglishRubric:
    """How English is counted (Sec. 4.1).

    ``option="character"`` (Option 1, entropy rate): ``bits_per_character`` per
    character, paper 1.0. ``option="word"`` (Option 2, Simplified Technical
    English): ``bits_per_word`` per word, paper ``ceil(log2 875) = 10``.
    """

    option: Literal["character", "word"] = "character"
    bits_per_character: float = 1.0
    bits_per_word: float = float(index_bits(STE_DICTIONARY_WORDS))

    def __post_init__(self) -> None:
        if self.option not in ("character", "word"):
            raise ValueError(f"english option must be 'character' or 'word', got {self.option!r}")
        if not (self.bits_per_character > 0 and self.bits_per_word > 0):
            raise ValueError("bits_per_character and bits_per_word must be > 0")


def _normalise_text(text: str) -> str:
    return " ".join(text.split())


def english_bits(text: str, rubric: EnglishRubric = EnglishRubric(), part: str = "english") -> DescriptionItem:
    """Bits of an English text under ``rubric`` (Sec. 4.1).

    Characters: the text with every run of white space collapsed to one space and
    the ends stripped; every remaining character (letters, digits, spaces,
    punctuation) counts. Words: the white-space separated tokens (a number or a
    symbol such as ``224x224`` is one word).
    """
    norm = _normalise_text(text)
    if rubric.option == "character":
        n = len(norm)
        return DescriptionItem(
            part, "characters (Option 1)", n, rubric.bits_per_character, n * rubric.bits_per_character
        )
    n = len(norm.split())
    return DescriptionItem(part, "words (Option 2)", n, rubric.bits_per_word, n * rubric.bits_per_word)


# ---------------------------------------------------------------------------
# Parsing and counting
# ---------------------------------------------------------------------------


#: JSON schema of a description file (Arora & Zhang Sec. 4), shipped as ``description.schema.json``
#: beside this module; "x-problem" is the message of a violation at that node (``{value!r}`` is the
#: offending value; "x-at-parent": the message names the node's container), the rest follows the
#: validator. Its operator and layer lists are [`holdout.rvw.vocabulary`][holdout.rvw.vocabulary]'s (a test checks).
DESCRIPTION_SCHEMA: dict[str, Any] = json.loads(
    resources.files("holdout.rvw").joinpath("description.schema.json").read_text(encoding="utf-8")
)


class _Ctx:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, problem: str) -> DescriptionError:
        return DescriptionError(f"{self.path}: {key}: {problem}")


def _key(path: Sequence[Any]) -> str:
    """``parts[0].math.operators.d`` from a JSON path."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _schema_problem(err: Any) -> tuple[str, str]:
    """The key and the message of a `jsonschema` error, in this module's words."""
    path = list(err.absolute_path)
    if err.validator == "required":
        missing = next(k for k in err.validator_value if k not in err.instance)
        return _key([*path, missing]), "missing required key"
    if (
        err.validator == "additionalProperties"
        and isinstance(err.instance, Mapping)
        and "properties" in err.schema
        and "x-problem" not in err.schema
    ):
        extra = next(k for k in err.instance if k not in err.schema["properties"])
        return _key([*path, extra]), f"unknown key (allowed: {', '.join(err.schema['properties'])})"
    problem = err.schema.get("x-problem", err.message)
    if err.schema.get("x-at-parent"):  # named by its container (the operator of vertex d: operators.d)
        path = path[:-1]
    return _key(path) or "(top level)", problem.format(value=err.instance)


def _check_finite(obj: Any, path: list[Any], ctx: _Ctx) -> None:
    """No inf or NaN anywhere (YAML has .inf and .nan)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        raise ctx.fail(_key(path), f"expected a finite number, got {obj!r}")
    items = obj.items() if isinstance(obj, Mapping) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        _check_finite(v, [*path, k], ctx)


def _validate(doc: Any, ctx: _Ctx) -> None:
    """Structure by `DESCRIPTION_SCHEMA`; the first problem (jsonschema's best match) is raised."""
    import jsonschema

    if not isinstance(doc, Mapping):
        raise ctx.fail("(top level)", f"expected a mapping, got {type(doc).__name__}")
    err = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(DESCRIPTION_SCHEMA).iter_errors(doc))
    if err is not None:
        raise ctx.fail(*_schema_problem(err))
    _check_finite(doc, [], ctx)


def _english_rubric(raw: Mapping[str, Any]) -> EnglishRubric:
    return EnglishRubric(**{k: (v if k == "option" else float(v)) for k, v in raw.items()})


def _math_graph(ctx: _Ctx, m: Mapping[str, Any], key: str) -> dict[str, list[str]]:
    """Checks the schema cannot express: vertex names unique, every argument and output reads a vertex,
    no cycle (``graphlib.TopologicalSorter``). Returns operator vertex -> operator arguments."""
    symbols = [str(s) for s in m.get("symbols", [])]
    constants = [str(c) for c in (m.get("constants") or {})]
    operators, outputs = m["operators"], m["outputs"]
    names: dict[str, str] = {}
    for group, members in (
        ("symbols", symbols),
        ("constants", constants),
        ("operators", [str(o) for o in operators]),
        ("outputs", [str(o) for o in outputs]),
    ):
        for name in members:
            if name in names:
                raise ctx.fail(f"{key}.{group}.{name}", f"vertex name already used in {names[name]}")
            names[name] = group
    readable = {*symbols, *constants, *(str(o) for o in operators)}
    deps: dict[str, list[str]] = {}
    for vertex, spec in operators.items():
        for i, a in enumerate(str(a) for a in spec[1:]):
            if a not in readable:
                raise ctx.fail(
                    f"{key}.operators.{vertex}[{i + 1}]", f"argument {a!r} is not a symbol, constant or operator vertex"
                )
        deps[str(vertex)] = [str(a) for a in spec[1:] if str(a) in operators]
    for out, src in outputs.items():
        if str(src) not in readable:
            raise ctx.fail(f"{key}.outputs.{out}", f"reads {src!r}, which is not a vertex of the graph")
    try:
        tuple(graphlib.TopologicalSorter(deps).static_order())
    except graphlib.CycleError as err:
        cycle = [str(v) for v in err.args[1]]
        raise ctx.fail(
            f"{key}.operators.{cycle[0]}", "the computation graph has a cycle: " + " -> ".join(cycle)
        ) from err
    return deps


def _math_items(ctx: _Ctx, m: Mapping[str, Any], key: str) -> list[DescriptionItem]:
    label = f"math: {m.get('name', key)}"
    _math_graph(ctx, m, key)
    operators, outputs = m["operators"], m["outputs"]
    constants = m.get("constants") or {}
    order_mode = m.get("order_bits", "every_edge")
    legend_mode = m.get("operator_legend", "per_vertex")
    op_types = [spec[0] for spec in operators.values()]
    arg_edges = sum(len(spec) - 1 for spec in operators.values())
    ordered_edges = sum(
        len(spec) - 1 for spec in operators.values() if spec[0] in ORDER_SENSITIVE_OPERATIONS and len(spec) > 2
    )
    n_vertices = len(m.get("symbols", [])) + len(constants) + len(operators) + len(outputs)
    n_edges = arg_edges + len(outputs)
    ib = index_bits(n_vertices)
    order = n_edges if order_mode == "every_edge" else ordered_edges
    op_bits = index_bits(len(MATH_OPERATIONS))
    n_legend_ops = len(op_types) if legend_mode == "per_vertex" else len(set(op_types))
    return [
        DescriptionItem(
            label, f"edges: {n_edges} x {ib}-bit vertex index ({n_vertices} vertices)", n_edges, ib, n_edges * ib
        ),
        DescriptionItem(label, f"order bits ({order_mode})", order, 1, order),
        DescriptionItem(
            label,
            f"legend: constants as {CONSTANT_BITS}-bit floats",
            len(constants),
            CONSTANT_BITS,
            len(constants) * CONSTANT_BITS,
        ),
        DescriptionItem(
            label,
            f"legend: operators of {len(MATH_OPERATIONS)} Math Operations ({legend_mode})",
            n_legend_ops,
            op_bits,
            n_legend_ops * op_bits,
        ),
    ]


def _network_items(m: Mapping[str, Any], key: str) -> list[DescriptionItem]:
    label = f"network: {m.get('name', key)}"
    chain = m["chain"]
    n_layers = sum(1 for node in chain if "layer" in node)
    blocks = [str(node["block"]) for node in chain if "block" in node]
    n_values = sum(len(node.get("args", [])) + (1 if node.get("repeat", 1) > 1 else 0) for node in chain)
    n_nodes = len(chain)
    edge_bits = float(m["edge_bits"]) if "edge_bits" in m else float(index_bits(n_nodes + 1))
    layer_bits = index_bits(len(DEEP_LEARNING_LAYERS))
    items = [
        DescriptionItem(
            label,
            f"primitive layer types ({len(DEEP_LEARNING_LAYERS)} Neural Net Layers)",
            n_layers,
            layer_bits,
            n_layers * layer_bits,
        )
    ]
    if "blocks_and_hyperparameters_bits" in m:
        lump = float(m["blocks_and_hyperparameters_bits"])
        items.append(
            DescriptionItem(label, f"blocks ({len(blocks)}) and hyperparameters (total as given)", 1, lump, lump)
        )
    else:
        each = float(m["hyperparameter_bits"])
        block_type_bits = index_bits(len(DEEP_LEARNING_LAYERS) + len(set(blocks))) if blocks else 0
        items.append(
            DescriptionItem(
                label,
                "block types (layer vocabulary + defined blocks)",
                len(blocks),
                block_type_bits,
                len(blocks) * block_type_bits,
            )
        )
        items.append(
            DescriptionItem(label, "hyperparameter values (args, repeat counts)", n_values, each, n_values * each)
        )
    items.append(
        DescriptionItem(
            label, "chain edges (input -> first node, node -> next)", n_nodes, edge_bits, n_nodes * edge_bits
        )
    )
    return items


def description_length(path: str | Path, english: EnglishRubric | None = None) -> DescriptionLength:
    """Count the bits of the description in the YAML file ``path`` (Arora & Zhang, Sec. 4).

    ``english`` overrides the file's own ``english:`` rubric (so one description
    can be counted under Option 1 and Option 2, as Tables 1 and 2 do). Raises
    [`DescriptionError`][holdout.rvw.description.DescriptionError] naming the file and the key for any malformed entry
    (unknown key, operator or layer; missing key; a reference to no vertex; a cycle).
    """
    p = Path(path)
    ctx = _Ctx(p)
    try:
        raw = load_yaml_strict(p.read_text())  # safe_load that refuses duplicate keys
    except FileNotFoundError:
        raise DescriptionError(f"{p}: description file not found") from None
    except yaml.YAMLError as exc:
        raise DescriptionError(f"{p}: not valid YAML: {exc}") from None
    _validate(raw, ctx)
    name = str(raw["name"])
    rubric = english if english is not None else _english_rubric(raw.get("english", {}))
    items: list[DescriptionItem] = []
    for i, part in enumerate(raw["parts"]):
        (kind, body), key = next(iter(part.items())), f"parts[{i}].{next(iter(part))}"
        if kind == "english":
            items.append(english_bits(body, rubric, part=f"english: parts[{i}]"))
        elif kind == "math":
            items.extend(_math_items(ctx, body, key))
        elif kind == "network":
            items.extend(_network_items(body, key))
        else:
            items.append(DescriptionItem("counted", body["what"].strip(), 1, float(body["bits"]), float(body["bits"])))
    return DescriptionLength(name=name, source=str(p), items=tuple(items))
