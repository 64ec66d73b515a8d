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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import yaml

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
        raise ValueError(
            f"bits ({bits}) exceed C = {C}: Theorem 3.1 covers descriptions of at most C bits; raise C"
        )
    if np.any(~np.isfinite(n)) or np.any(n < 1):
        raise ValueError(f"n (the test set size N) must be >= 1, got {n}")


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
    "add", "subtract", "multiply", "divide", "mod", "sin", "arcsin", "exp", "log", "power",
    "round", "clip", "sqrt", "abs", "sign", "max", "argmax", "dot", "matmul", "svd",
    "pseudo-inverse", "kronecker-product", "i", "Re", "Im",
)
"""The 25 Math Operations of Appendix B (``ceil(log2 25) = 5`` bits each in a legend)."""

RANDOM_SAMPLING_FUNCTIONS: tuple[str, ...] = (
    "N", "Laplace", "Uniform", "Bernoulli", "Beta", "Multinomial", "Poisson", "RandInt", "SetRNGSeed",
)
TENSOR_OPERATIONS: tuple[str, ...] = ("index", "concat", "split", "reshape", "copy")
DEEP_LEARNING_LAYERS: tuple[str, ...] = (
    "Conv", "FullyConnected", "ReLU", "Sigmoid", "Threshold", "SoftMax",
    "MaxPooling", "AvgPooling", "Downsample", "Dropout",
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
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
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
        return DescriptionItem(part, "characters (Option 1)", n, rubric.bits_per_character, n * rubric.bits_per_character)
    n = len(norm.split())
    return DescriptionItem(part, "words (Option 2)", n, rubric.bits_per_word, n * rubric.bits_per_word)


# ---------------------------------------------------------------------------
# Parsing and counting
# ---------------------------------------------------------------------------


class _Ctx:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, problem: str) -> DescriptionError:
        return DescriptionError(f"{self.path}: {key}: {problem}")

    def mapping(self, obj: Any, key: str) -> Mapping[str, Any]:
        if not isinstance(obj, Mapping):
            raise self.fail(key, f"expected a mapping, got {type(obj).__name__}")
        return obj

    def require(self, obj: Mapping[str, Any], name: str, key: str) -> Any:
        if name not in obj:
            raise self.fail(f"{key}.{name}" if key else name, "missing required key")
        return obj[name]

    def only(self, obj: Mapping[str, Any], allowed: Sequence[str], key: str) -> None:
        extra = [k for k in obj if k not in allowed]
        if extra:
            where = f"{key}.{extra[0]}" if key else str(extra[0])
            raise self.fail(where, f"unknown key (allowed: {', '.join(allowed)})")

    def number(self, obj: Any, key: str, *, minimum: float = 0.0, integer: bool = False) -> float:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)) or not math.isfinite(obj):
            raise self.fail(key, f"expected a number, got {obj!r}")
        if integer and int(obj) != obj:
            raise self.fail(key, f"expected an integer, got {obj!r}")
        if obj < minimum:
            raise self.fail(key, f"must be >= {minimum}, got {obj!r}")
        return float(obj)

    def name(self, obj: Any, key: str) -> str:
        if not isinstance(obj, (str, int, float)) or isinstance(obj, bool) or str(obj) == "":
            raise self.fail(key, f"expected a name, got {obj!r}")
        return str(obj)


def _english_rubric(ctx: _Ctx, raw: Any, key: str) -> EnglishRubric:
    m = ctx.mapping(raw, key)
    ctx.only(m, ("option", "bits_per_character", "bits_per_word"), key)
    option = m.get("option", "character")
    if option not in ("character", "word"):
        raise ctx.fail(f"{key}.option", f"must be 'character' (Option 1) or 'word' (Option 2), got {option!r}")
    kwargs: dict[str, Any] = {"option": option}
    for field in ("bits_per_character", "bits_per_word"):
        if field in m:
            kwargs[field] = ctx.number(m[field], f"{key}.{field}")
            if kwargs[field] <= 0:
                raise ctx.fail(f"{key}.{field}", "must be > 0")
    return EnglishRubric(**kwargs)


def _math_items(ctx: _Ctx, raw: Any, key: str) -> list[DescriptionItem]:
    m = ctx.mapping(raw, key)
    ctx.only(m, ("name", "symbols", "constants", "operators", "outputs", "order_bits", "operator_legend"), key)
    label = f"math: {m.get('name', key)}"
    symbols_raw = m.get("symbols", [])
    if not isinstance(symbols_raw, list):
        raise ctx.fail(f"{key}.symbols", "expected a list of names")
    symbols = [ctx.name(s, f"{key}.symbols[{i}]") for i, s in enumerate(symbols_raw)]
    constants = ctx.mapping(m.get("constants", {}) or {}, f"{key}.constants")
    for c, v in constants.items():
        ctx.number(v, f"{key}.constants.{c}", minimum=-math.inf)
    operators = ctx.mapping(ctx.require(m, "operators", key), f"{key}.operators")
    if not operators:
        raise ctx.fail(f"{key}.operators", "a computation graph needs at least one operator")
    outputs = ctx.mapping(ctx.require(m, "outputs", key), f"{key}.outputs")
    if not outputs:
        raise ctx.fail(f"{key}.outputs", "a computation graph needs at least one output")
    order_mode = m.get("order_bits", "every_edge")
    if order_mode not in ("every_edge", "order_sensitive"):
        raise ctx.fail(f"{key}.order_bits", f"must be 'every_edge' or 'order_sensitive', got {order_mode!r}")
    legend_mode = m.get("operator_legend", "per_vertex")
    if legend_mode not in ("per_vertex", "per_type"):
        raise ctx.fail(f"{key}.operator_legend", f"must be 'per_vertex' or 'per_type', got {legend_mode!r}")

    names: dict[str, str] = {}
    for group, members in (("symbols", symbols), ("constants", [str(c) for c in constants]),
                           ("operators", [str(o) for o in operators]), ("outputs", [str(o) for o in outputs])):
        for name in members:
            if name in names:
                raise ctx.fail(f"{key}.{group}.{name}", f"vertex name already used in {names[name]}")
            names[name] = group

    readable = set(symbols) | {str(c) for c in constants} | {str(o) for o in operators}
    arg_edges = 0
    ordered_edges = 0
    op_types: list[str] = []
    deps: dict[str, list[str]] = {}
    for vertex, spec in operators.items():
        vkey = f"{key}.operators.{vertex}"
        if not isinstance(spec, list) or len(spec) < 2:
            raise ctx.fail(vkey, "expected [operator, argument, ...] with at least one argument")
        op = spec[0]
        if op not in MATH_OPERATIONS:
            raise ctx.fail(vkey, f"unknown operator {op!r}; Rip van Winkle's Math Operations (Appendix B) are: "
                           + ", ".join(MATH_OPERATIONS))
        args = [ctx.name(a, f"{vkey}[{i + 1}]") for i, a in enumerate(spec[1:])]
        for i, a in enumerate(args):
            if a not in readable:
                raise ctx.fail(f"{vkey}[{i + 1}]", f"argument {a!r} is not a symbol, constant or operator vertex")
        deps[str(vertex)] = [a for a in args if a in operators]
        op_types.append(op)
        arg_edges += len(args)
        if op in ORDER_SENSITIVE_OPERATIONS and len(args) >= 2:
            ordered_edges += len(args)
    for out, src in outputs.items():
        if ctx.name(src, f"{key}.outputs.{out}") not in readable:
            raise ctx.fail(f"{key}.outputs.{out}", f"reads {src!r}, which is not a vertex of the graph")
    # the graph must be acyclic (a computation graph)
    state: dict[str, int] = {}

    def visit(v: str, trail: list[str]) -> None:
        if state.get(v) == 2:
            return
        if state.get(v) == 1:
            raise ctx.fail(f"{key}.operators.{v}", "the computation graph has a cycle: " + " -> ".join(trail + [v]))
        state[v] = 1
        for d in deps[v]:
            visit(d, trail + [v])
        state[v] = 2

    for v in deps:
        visit(v, [])

    n_vertices = len(names)
    n_edges = arg_edges + len(outputs)
    ib = index_bits(n_vertices)
    order = n_edges if order_mode == "every_edge" else ordered_edges
    op_bits = index_bits(len(MATH_OPERATIONS))
    n_legend_ops = len(op_types) if legend_mode == "per_vertex" else len(set(op_types))
    items = [
        DescriptionItem(label, f"edges: {n_edges} x {ib}-bit vertex index ({n_vertices} vertices)", n_edges, ib, n_edges * ib),
        DescriptionItem(label, f"order bits ({order_mode})", order, 1, order),
        DescriptionItem(label, f"legend: constants as {CONSTANT_BITS}-bit floats", len(constants), CONSTANT_BITS,
                        len(constants) * CONSTANT_BITS),
        DescriptionItem(label, f"legend: operators of {len(MATH_OPERATIONS)} Math Operations ({legend_mode})",
                        n_legend_ops, op_bits, n_legend_ops * op_bits),
    ]
    return items


def _network_items(ctx: _Ctx, raw: Any, key: str) -> list[DescriptionItem]:
    m = ctx.mapping(raw, key)
    ctx.only(m, ("name", "chain", "edge_bits", "blocks_and_hyperparameters_bits", "hyperparameter_bits"), key)
    label = f"network: {m.get('name', key)}"
    chain = ctx.require(m, "chain", key)
    if not isinstance(chain, list) or not chain:
        raise ctx.fail(f"{key}.chain", "expected a non-empty list of {layer: ...} or {block: ...} nodes")
    n_layers = 0
    blocks: list[str] = []
    n_values = 0
    for i, node_raw in enumerate(chain):
        nkey = f"{key}.chain[{i}]"
        node = ctx.mapping(node_raw, nkey)
        ctx.only(node, ("layer", "block", "args", "repeat"), nkey)
        if ("layer" in node) == ("block" in node):
            raise ctx.fail(nkey, "each node needs exactly one of 'layer' (a primitive layer) or 'block' (a defined block)")
        if "layer" in node:
            layer = LAYER_ALIASES.get(str(node["layer"]), str(node["layer"]))
            if layer not in DEEP_LEARNING_LAYERS:
                raise ctx.fail(f"{nkey}.layer", f"unknown layer {node['layer']!r}; Rip van Winkle's Neural Net Layers "
                               "(Appendix B) are: " + ", ".join(DEEP_LEARNING_LAYERS))
            n_layers += 1
        else:
            blocks.append(ctx.name(node["block"], f"{nkey}.block"))
        args = node.get("args", [])
        if not isinstance(args, list):
            raise ctx.fail(f"{nkey}.args", "expected a list of hyperparameter values")
        n_values += len(args)
        if "repeat" in node:
            rep = ctx.number(node["repeat"], f"{nkey}.repeat", minimum=1, integer=True)
            n_values += 1 if rep > 1 else 0
    has_lump = "blocks_and_hyperparameters_bits" in m
    has_each = "hyperparameter_bits" in m
    if has_lump == has_each:
        raise ctx.fail(key, "give exactly one of 'blocks_and_hyperparameters_bits' (a total) or "
                       "'hyperparameter_bits' (bits per hyperparameter value)")
    n_nodes = len(chain)
    edge_bits = (ctx.number(m["edge_bits"], f"{key}.edge_bits", integer=True) if "edge_bits" in m
                 else float(index_bits(n_nodes + 1)))
    layer_bits = index_bits(len(DEEP_LEARNING_LAYERS))
    items = [DescriptionItem(label, f"primitive layer types ({len(DEEP_LEARNING_LAYERS)} Neural Net Layers)",
                             n_layers, layer_bits, n_layers * layer_bits)]
    if has_lump:
        lump = ctx.number(m["blocks_and_hyperparameters_bits"], f"{key}.blocks_and_hyperparameters_bits")
        items.append(DescriptionItem(label, f"blocks ({len(blocks)}) and hyperparameters (total as given)", 1, lump, lump))
    else:
        each = ctx.number(m["hyperparameter_bits"], f"{key}.hyperparameter_bits")
        block_type_bits = index_bits(len(DEEP_LEARNING_LAYERS) + len(set(blocks))) if blocks else 0
        items.append(DescriptionItem(label, "block types (layer vocabulary + defined blocks)", len(blocks),
                                     block_type_bits, len(blocks) * block_type_bits))
        items.append(DescriptionItem(label, "hyperparameter values (args, repeat counts)", n_values, each, n_values * each))
    items.append(DescriptionItem(label, "chain edges (input -> first node, node -> next)", n_nodes, edge_bits,
                                 n_nodes * edge_bits))
    return items


def _counted_items(ctx: _Ctx, raw: Any, key: str) -> list[DescriptionItem]:
    m = ctx.mapping(raw, key)
    ctx.only(m, ("bits", "what"), key)
    bits = ctx.number(ctx.require(m, "bits", key), f"{key}.bits")
    what = ctx.require(m, "what", key)
    if not isinstance(what, str) or not what.strip():
        raise ctx.fail(f"{key}.what", "say what was counted (a non-empty string)")
    return [DescriptionItem("counted", what.strip(), 1, bits, bits)]


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
        raw = yaml.load(p.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # safe either way
    except FileNotFoundError:
        raise DescriptionError(f"{p}: description file not found") from None
    except yaml.YAMLError as exc:
        raise DescriptionError(f"{p}: not valid YAML: {exc}") from None
    doc = ctx.mapping(raw, "(top level)")
    ctx.only(doc, ("name", "english", "parts"), "")
    name = ctx.name(ctx.require(doc, "name", ""), "name")
    rubric = english if english is not None else (
        _english_rubric(ctx, doc["english"], "english") if "english" in doc else EnglishRubric())
    parts = ctx.require(doc, "parts", "")
    if not isinstance(parts, list) or not parts:
        raise ctx.fail("parts", "expected a non-empty list of parts (english, math, network, counted)")
    items: list[DescriptionItem] = []
    kinds = ("english", "math", "network", "counted")
    for i, part_raw in enumerate(parts):
        key = f"parts[{i}]"
        part = ctx.mapping(part_raw, key)
        if len(part) != 1 or next(iter(part)) not in kinds:
            raise ctx.fail(key, f"each part is a mapping with exactly one key among {', '.join(kinds)}; got "
                           f"{', '.join(map(str, part)) or 'nothing'}")
        kind, body = next(iter(part.items()))
        if kind == "english":
            if not isinstance(body, str) or not body.strip():
                raise ctx.fail(f"{key}.english", "expected a non-empty string")
            items.append(english_bits(body, rubric, part=f"english: {key}"))
        elif kind == "math":
            items.extend(_math_items(ctx, body, f"{key}.math"))
        elif kind == "network":
            items.extend(_network_items(ctx, body, f"{key}.network"))
        else:
            items.extend(_counted_items(ctx, body, f"{key}.counted"))
    return DescriptionLength(name=name, source=str(p), items=tuple(items))


# ---------------------------------------------------------------------------
# Tables 1 and 2
# ---------------------------------------------------------------------------

TABLE_COLUMNS: tuple[str, ...] = (
    "name", "setting", "test_error", "n", "bits", "bits_source", "C", "delta",
    "bound", "paper_bits", "paper_bound", "bound_minus_paper",
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
        out.append({
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
        })
    return out


_MARKDOWN_COLUMNS = {
    "name": "Model", "setting": "Setting", "test_error": "Test error", "n": "N", "bits": "Desc. length (bits)",
    "bound": "Our bound", "bound4": "Our bound (4 d.p.)", "paper_bits": "Paper: length",
    "paper_bound": "Paper: bound", "same": "Same to 2 d.p.",
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
    shown = pd.DataFrame([{
        "name": r["name"], "setting": r["setting"], "test_error": _pct(r["test_error"]), "n": r["n"],
        "bits": _num(r["bits"]), "bound": _pct(r["bound"]), "bound4": _pct(r["bound"], 4),
        "paper_bits": _num(r["paper_bits"]), "paper_bound": _pct(r["paper_bound"]),
        "same": "" if r["paper_bound"] is None else ("yes" if _pct(r["bound"]) == _pct(r["paper_bound"]) else "no"),
    } for r in table], columns=list(_MARKDOWN_COLUMNS))
    align = {c: "r" for c in list(_MARKDOWN_COLUMNS)[2:-1]} | {"same": "c"}
    text = "\n".join(lines) + ("\n" if lines else "") + markdown_table(shown, _MARKDOWN_COLUMNS, align)
    if any(r["paper_bound"] is not None and _pct(r["bound"]) != _pct(r["paper_bound"]) for r in table):
        text += ("\nRows marked 'no': the paper's printed bound and ours differ in the last printed "
                 "digit; the 4-decimal column shows where the exact fixed point lies.\n")
    return text
