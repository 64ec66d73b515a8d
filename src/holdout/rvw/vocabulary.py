"""Rip van Winkle's vocabulary (Arora & Zhang 2021, Appendix B) and the bits of an index into it."""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = [
    "CONSTANT_BITS",
    "DEEP_LEARNING_LAYERS",
    "LAYER_ALIASES",
    "MATH_OPERATIONS",
    "OPTIMIZERS",
    "ORDER_SENSITIVE_OPERATIONS",
    "RANDOM_SAMPLING_FUNCTIONS",
    "STE_DICTIONARY_WORDS",
    "TENSOR_OPERATIONS",
    "index_bits",
]

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
