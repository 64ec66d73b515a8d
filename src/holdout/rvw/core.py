"""Rip van Winkle's Razor (Arora & Zhang, 2021): the bound and the bit counting.

Two halves:

* :func:`rvw_bound`: the upper bound on the population error of Theorem 3.1,
  the fixed point of ``T(p)`` in closed form.
* :func:`description_length`: the length, in bits, of a description that a user
  writes as a small YAML file, counted by the rubric of Section 4 (English,
  math expressions as computation graphs, networks as chains of layers and
  blocks) with Rip van Winkle's vocabulary of Appendix B.

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

from __future__ import annotations

import graphlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import yaml

from holdout.config import load_yaml_strict
from holdout.tables import markdown_table

__all__ = [
    "DEEP_LEARNING_LAYERS",
    "MATH_OPERATIONS",
    "OPTIMIZERS",
    "ORDER_SENSITIVE_OPERATIONS",
    "RANDOM_SAMPLING_FUNCTIONS",
    "STE_DICTIONARY_WORDS",
    "TENSOR_OPERATIONS",
    "DescriptionError",
    "DescriptionItem",
    "DescriptionLength",
    "EnglishRubric",
    "description_length",
    "english_bits",
    "index_bits",
    "rvw_bound",
    "rvw_fixed_point_map",
]

# ---------------------------------------------------------------------------
# Theorem 3.1
# ---------------------------------------------------------------------------


def _rvw_a(bits: npt.ArrayLike, n: npt.ArrayLike, C: float, delta: float) -> np.ndarray:
    """``a = 2 ln2 (|f|_r + log2(C/delta)) / N``, the factor under the square root of T(p)."""
    return 2.0 * math.log(2.0) * (np.asarray(bits, dtype=float) + math.log2(C / delta)) / np.asarray(n, dtype=float)


def _check_bound_args(test_error: np.ndarray, bits: np.ndarray, n: np.ndarray, C: float, delta: float) -> None:
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    if not C >= 1:
        raise ValueError(f"C (the largest description length, in bits) must be >= 1, got {C}")
    if np.any(~np.isfinite(test_error)) or np.any((test_error < 0) | (test_error > 1)):
        raise ValueError(f"test_error must lie in [0, 1], got {test_error}")
    if np.any(~np.isfinite(bits)) or np.any(bits < 0):
        raise ValueError(f"bits must be finite and >= 0, got {bits}")
    if np.any(bits > C):
        raise ValueError(f"bits ({bits}) exceed C = {C}: Theorem 3.1 covers descriptions of at most C bits; raise C")
    if np.any(~np.isfinite(n)) or np.any(n < 1) or np.any(n != np.floor(n)):
        raise ValueError(f"n (the test set size N) must be >= 1 and a whole number, got {n}")


def rvw_fixed_point_map(
    p: npt.ArrayLike,
    test_error: npt.ArrayLike,
    bits: npt.ArrayLike,
    n: npt.ArrayLike,
    C: float = 5000,
    delta: float = 0.05,
) -> np.ndarray | float:
    """The map ``T(p) = p_hat + sqrt(2 ln2 p(1-p) (|f|_r + log2(C/delta)) / N)`` of Theorem 3.1."""
    p = np.asarray(p, dtype=float)
    out = np.asarray(test_error, dtype=float) + np.sqrt(_rvw_a(bits, n, C, delta) * p * (1.0 - p))
    return float(out) if out.ndim == 0 else out


def rvw_bound(
    test_error: npt.ArrayLike,
    bits: npt.ArrayLike,
    n: npt.ArrayLike,
    C: float = 5000,
    delta: float = 0.05,
) -> np.ndarray | float:
    """Upper bound on the population error by Rip van Winkle's Razor (Theorem 3.1).

    With probability at least ``1 - delta`` over the test set ``S ~ D^N``, every
    classifier ``f`` with a description of ``|f|_r <= C`` bits satisfies
    ``L_D(f) <= p*``, where ``p*`` is the fixed point ``p* = T(p*)`` of

        T(p) = p_hat + sqrt( 2 ln2 * p (1 - p) * (|f|_r + log2(C / delta)) / N ),

    ``p_hat = L_S(f)`` the test error, ``|f|_r`` = ``bits``, ``N`` = ``n``.

    How it is solved (exactly, no iteration). Write
    ``a = 2 ln2 (|f|_r + log2(C/delta)) / N``. Squaring ``p - p_hat = sqrt(a p (1-p))``
    gives the quadratic ``(1 + a) p^2 - (2 p_hat + a) p + p_hat^2 = 0`` whose
    discriminant is ``a (a + 4 p_hat (1 - p_hat)) >= 0``. Its two roots satisfy
    ``p1 <= p_hat <= p2``; only ``p2`` solves the unsquared equation
    (``T(p) - p_hat >= 0`` forces ``p >= p_hat``), and ``T(p) <= p`` for every
    ``p >= p2``, so ``p2`` is the smallest ``p`` with ``T(p) <= p`` (the proof of
    Theorem 3.1). We return

        p* = p2 = (2 p_hat + a + sqrt(a (a + 4 p_hat (1 - p_hat)))) / (2 (1 + a)),

    written with the discriminant in that form so that nothing cancels. ``p* <= 1``
    always (``T(1) = p_hat <= 1``). Inputs broadcast (numpy); a scalar in gives a float.

    Scope: the proof's Chernoff step (Claims A.1-A.2) uses ``KL(p - eps || p) >=
    eps^2 / (2 p (1 - p))``, shown for ``p <= 1/2``; the guarantee is thus for population
    errors up to 1/2 (every case of interest). Outside it the formula is still evaluated.

    Defaults are the paper's ``C = 5000`` and ``delta = 0.05`` (Sec. 3.3). Example:
    ``rvw_bound(0.0449, 426, 50_000)`` = 0.07388 (Table 1, ResNet-152: 7.39%).
    """
    p_hat = np.asarray(test_error, dtype=float)
    k = np.asarray(bits, dtype=float)
    nn = np.asarray(n, dtype=float)
    _check_bound_args(p_hat, k, nn, C, delta)
    a = _rvw_a(k, nn, C, delta)
    p_star = (2.0 * p_hat + a + np.sqrt(a * (a + 4.0 * p_hat * (1.0 - p_hat)))) / (2.0 * (1.0 + a))
    p_star = np.minimum(p_star, 1.0)  # guards the last ulp; mathematically p* <= 1
    return float(p_star) if p_star.ndim == 0 else p_star


# ---------------------------------------------------------------------------
# Rip van Winkle's vocabulary (Appendix B)
# ---------------------------------------------------------------------------

MATH_OPERATIONS: tuple[str, ...] = (
    "add",
    "subtract",
    "multiply",
    "divide",
    "mod",
    "sin",
    "arcsin",
    "exp",
    "log",
    "power",
    "round",
    "clip",
    "sqrt",
    "abs",
    "sign",
    "max",
    "argmax",
    "dot",
    "matmul",
    "svd",
    "pseudo-inverse",
    "kronecker-product",
    "i",
    "Re",
    "Im",
)
"""The 25 Math Operations of Appendix B (``ceil(log2 25) = 5`` bits each in a legend)."""

RANDOM_SAMPLING_FUNCTIONS: tuple[str, ...] = (
    "N",
    "Laplace",
    "Uniform",
    "Bernoulli",
    "Beta",
    "Multinomial",
    "Poisson",
    "RandInt",
    "SetRNGSeed",
)
TENSOR_OPERATIONS: tuple[str, ...] = ("index", "concat", "split", "reshape", "copy")
DEEP_LEARNING_LAYERS: tuple[str, ...] = (
    "Conv",
    "FullyConnected",
    "ReLU",
    "Sigmoid",
    "Threshold",
    "SoftMax",
    "MaxPooling",
    "AvgPooling",
    "Downsample",
    "Dropout",
)
"""The 10 Neural Net Layers of Appendix B (``ceil(log2 10) = 4`` bits per layer type)."""
OPTIMIZERS: tuple[str, ...] = ("SGD", "GradientDescent", "AdaGrad", "AdaDelta", "RMSProp")

LAYER_ALIASES: Mapping[str, str] = {"MaxPool": "MaxPooling", "AvgPool": "AvgPooling", "FC": "FullyConnected"}

ORDER_SENSITIVE_OPERATIONS: frozenset[str] = frozenset(
    {"subtract", "divide", "mod", "power", "clip", "dot", "matmul", "kronecker-product"}
)
"""Operators whose arguments' order matters (used by ``order_bits: order_sensitive``)."""

STE_DICTIONARY_WORDS = 875
"""Approved general words of Simplified Technical English (ASD-STE100, 2005), Sec. 4.1 Option 2."""

CONSTANT_BITS = 8
"""A numeric constant in a legend: an 8-bit floating point number (Sec. 4.2)."""


def index_bits(count: int) -> int:
    """``ceil(log2 count)``: bits of an index into ``count`` things (at least 1 when count >= 2, 0 for 1)."""
    if isinstance(count, bool) or not float(count).is_integer() or count < 1:
        raise ValueError(f"count must be a whole number >= 1, got {count!r}")
    count = int(count)
    return math.ceil(math.log2(count)) if count > 1 else 0


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
        """Whole bits (``ceil(total)``): what enters :func:`rvw_bound` as ``|f|_r``."""
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


_NAME: dict[str, Any] = {"type": ["string", "number"], "minLength": 1, "x-problem": "expected a name, got {value!r}"}
_BITS: dict[str, Any] = {"type": "number", "minimum": 0, "x-problem": "must be a number >= 0, got {value!r}"}
_TEXT: dict[str, Any] = {"type": "string", "pattern": r"\S", "x-problem": "expected a non-empty string"}


def _closed(properties: dict[str, Any], required: Sequence[str] = (), **more: Any) -> dict[str, Any]:
    """An object schema with exactly these keys allowed."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
        **more,
    }


#: JSON schema of a description file (Arora & Zhang Sec. 4); "x-problem" is the message of a
#: violation at that node (``{value!r}`` is the offending value; "x-at-parent": the message names
#: the node's container), the rest follows the validator.
DESCRIPTION_SCHEMA: dict[str, Any] = _closed(
    {
        "name": _NAME,
        "english": _closed(
            {
                "option": {
                    "enum": ["character", "word"],
                    "x-problem": "must be 'character' (Option 1) or 'word' (Option 2), got {value!r}",
                },
                "bits_per_character": {"type": "number", "exclusiveMinimum": 0, "x-problem": "must be a number > 0"},
                "bits_per_word": {"type": "number", "exclusiveMinimum": 0, "x-problem": "must be a number > 0"},
            }
        ),
        "parts": {
            "type": "array",
            "minItems": 1,
            "x-problem": "expected a non-empty list of parts (english, math, network, counted)",
            "items": _closed(
                {
                    "english": _TEXT,
                    "math": _closed(
                        {
                            "name": _NAME,
                            "symbols": {"type": "array", "items": _NAME, "x-problem": "expected a list of names"},
                            "constants": {
                                "type": ["object", "null"],
                                "additionalProperties": {"type": "number", "x-problem": "expected a number"},
                            },
                            "operators": {
                                "type": "object",
                                "minProperties": 1,
                                "x-problem": "a computation graph needs at least one operator",
                                "additionalProperties": {
                                    "type": "array",
                                    "minItems": 2,
                                    "x-problem": "expected [operator, argument, ...] with at least one argument",
                                    "prefixItems": [
                                        {
                                            "enum": list(MATH_OPERATIONS),
                                            "x-at-parent": True,
                                            "x-problem": "unknown operator {value!r}; Rip van Winkle's Math "
                                            "Operations (Appendix B) are: " + ", ".join(MATH_OPERATIONS),
                                        }
                                    ],
                                    "items": _NAME,
                                },
                            },
                            "outputs": {
                                "type": "object",
                                "minProperties": 1,
                                "additionalProperties": _NAME,
                                "x-problem": "a computation graph needs at least one output",
                            },
                            "order_bits": {
                                "enum": ["every_edge", "order_sensitive"],
                                "x-problem": "must be 'every_edge' or 'order_sensitive', got {value!r}",
                            },
                            "operator_legend": {
                                "enum": ["per_vertex", "per_type"],
                                "x-problem": "must be 'per_vertex' or 'per_type', got {value!r}",
                            },
                        },
                        required=["operators", "outputs"],
                    ),
                    "network": _closed(
                        {
                            "name": _NAME,
                            "chain": {
                                "type": "array",
                                "minItems": 1,
                                "x-problem": "expected a non-empty list of {layer: ...} or {block: ...} nodes",
                                "items": _closed(
                                    {
                                        "layer": {
                                            "enum": [*DEEP_LEARNING_LAYERS, *LAYER_ALIASES],
                                            "x-problem": "unknown layer {value!r}; Rip van Winkle's Neural Net Layers "
                                            "(Appendix B) are: " + ", ".join(DEEP_LEARNING_LAYERS),
                                        },
                                        "block": _NAME,
                                        "args": {
                                            "type": "array",
                                            "x-problem": "expected a list of hyperparameter values",
                                        },
                                        "repeat": {
                                            "type": "integer",
                                            "minimum": 1,
                                            "x-problem": "must be an integer >= 1, got {value!r}",
                                        },
                                    },
                                    oneOf=[{"required": ["layer"]}, {"required": ["block"]}],
                                    **{
                                        "x-problem": "each node needs exactly one of 'layer' (a primitive layer) or "
                                        "'block' (a defined block)"
                                    },
                                ),
                            },
                            "edge_bits": {
                                "type": "integer",
                                "minimum": 0,
                                "x-problem": "must be an integer >= 0, got {value!r}",
                            },
                            "blocks_and_hyperparameters_bits": _BITS,
                            "hyperparameter_bits": _BITS,
                        },
                        required=["chain"],
                        oneOf=[
                            {"required": ["blocks_and_hyperparameters_bits"]},
                            {"required": ["hyperparameter_bits"]},
                        ],
                        **{
                            "x-problem": "give exactly one of 'blocks_and_hyperparameters_bits' (a total) or "
                            "'hyperparameter_bits' (bits per hyperparameter value)"
                        },
                    ),
                    "counted": _closed(
                        {"bits": _BITS, "what": {**_TEXT, "x-problem": "say what was counted (a non-empty string)"}},
                        required=["bits", "what"],
                    ),
                },
                minProperties=1,
                maxProperties=1,
                **{"x-problem": "each part is a mapping with exactly one key among english, math, network, counted"},
            ),
        },
    },
    required=["name", "parts"],
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
    """The key and the message of a :mod:`jsonschema` error, in this module's words."""
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
    """Structure by :data:`DESCRIPTION_SCHEMA`; the first problem (jsonschema's best match) is raised."""
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
    :class:`DescriptionError` naming the file and the key for any malformed entry
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


# ---------------------------------------------------------------------------
# Tables 1 and 2
# ---------------------------------------------------------------------------

TABLE_COLUMNS: tuple[str, ...] = (
    "name",
    "setting",
    "test_error",
    "n",
    "bits",
    "bits_source",
    "C",
    "delta",
    "bound",
    "paper_bits",
    "paper_bound",
    "bound_minus_paper",
)
"""Columns of :func:`rvw_table` (errors and bounds as fractions, bits in bits)."""


def rvw_table(
    rows: Sequence[Mapping[str, Any]],
    *,
    C: float = 5000,
    delta: float = 0.05,
    english: EnglishRubric = EnglishRubric(),
) -> list[dict[str, Any]]:
    """Arora & Zhang Tables 1-2: the Theorem 3.1 bound for each row.

    Each row has ``name``, ``test_error`` (fraction), ``n``, and either ``bits`` or
    ``description`` (a YAML file counted with :func:`description_length` under
    ``english``, rounded up to whole bits); optional ``setting``, ``paper_bits``,
    ``paper_bound`` are carried along for comparison. Returns one dict per row with
    the keys of :data:`TABLE_COLUMNS` (missing paper values are ``None``).
    """
    out = []
    for i, row in enumerate(rows):
        where = f"row {i} ({row.get('name', '?')})"
        for key in ("name", "test_error", "n"):
            if key not in row:
                raise ValueError(f"{where}: missing key {key!r}")
        if ("bits" in row) == ("description" in row):
            raise ValueError(f"{where}: give exactly one of 'bits' or 'description'")
        if "bits" in row:
            bits, source = float(row["bits"]), "given"
        else:
            bits, source = float(description_length(row["description"], english).bits), str(row["description"])
        try:
            bound = rvw_bound(float(row["test_error"]), bits, int(row["n"]), C=C, delta=delta)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        paper_bound = row.get("paper_bound")
        out.append(
            {
                "name": str(row["name"]),
                "setting": str(row.get("setting", "")),
                "test_error": float(row["test_error"]),
                "n": int(row["n"]),
                "bits": int(bits) if bits.is_integer() else bits,
                "bits_source": source,
                "C": float(C),
                "delta": float(delta),
                "bound": bound,
                "paper_bits": row.get("paper_bits"),
                "paper_bound": paper_bound,
                "bound_minus_paper": None if paper_bound is None else bound - float(paper_bound),
            }
        )
    return out


_MARKDOWN_COLUMNS = {
    "name": "Model",
    "setting": "Setting",
    "test_error": "Test error",
    "n": "N",
    "bits": "Desc. length (bits)",
    "bound": "Our bound",
    "bound4": "Our bound (4 d.p.)",
    "paper_bits": "Paper: length",
    "paper_bound": "Paper: bound",
    "same": "Same to 2 d.p.",
}


def _pct(x: float | None, digits: int = 2) -> str:
    return "" if x is None else f"{100 * float(x):.{digits}f} %"


def _num(x: float | None) -> str:
    return "" if x is None else f"{float(x):g}"


def rvw_table_markdown(table: Sequence[Mapping[str, Any]], title: str = "") -> str:
    """The rows of :func:`rvw_table` as a Markdown table, percentages to two decimals as in the paper."""
    lines = [f"### {title}", ""] if title else []
    if table:
        c, d = table[0]["C"], table[0]["delta"]
        lines += [f"C = {c:g}, delta = {d:g}; bound = fixed point of T(p), Theorem 3.1.", ""]
    shown = pd.DataFrame(
        [
            {
                "name": r["name"],
                "setting": r["setting"],
                "test_error": _pct(r["test_error"]),
                "n": r["n"],
                "bits": _num(r["bits"]),
                "bound": _pct(r["bound"]),
                "bound4": _pct(r["bound"], 4),
                "paper_bits": _num(r["paper_bits"]),
                "paper_bound": _pct(r["paper_bound"]),
                "same": ""
                if r["paper_bound"] is None
                else ("yes" if _pct(r["bound"]) == _pct(r["paper_bound"]) else "no"),
            }
            for r in table
        ],
        columns=list(_MARKDOWN_COLUMNS),
    )
    align = {c: "r" for c in list(_MARKDOWN_COLUMNS)[2:-1]} | {"same": "c"}
    text = "\n".join(lines) + ("\n" if lines else "") + markdown_table(shown, _MARKDOWN_COLUMNS, align)
    if any(r["paper_bound"] is not None and _pct(r["bound"]) != _pct(r["paper_bound"]) for r in table):
        text += (
            "\nRows marked 'no': the paper's printed bound and ours differ in the last printed "
            "digit; the 4-decimal column shows where the exact fixed point lies.\n"
        )
    return text
