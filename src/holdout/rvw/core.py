"""Rip van Winkle's Razor (Arora & Zhang, 2021): the bound and the bit counting.

The implementation is split by the paper's seams: :mod:`holdout.rvw.bound` (Theorem 3.1),
:mod:`holdout.rvw.vocabulary` (Appendix B), :mod:`holdout.rvw.description` (Sec. 4; the JSON
schema of a description file is ``description.schema.json``), :mod:`holdout.rvw.tables`
(Tables 1 and 2). This module re-exports their names (the old import location).

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

from holdout.rvw.bound import rvw_bound, rvw_fixed_point_map
from holdout.rvw.description import (
    DESCRIPTION_SCHEMA,
    DescriptionError,
    DescriptionItem,
    DescriptionLength,
    EnglishRubric,
    description_length,
    english_bits,
)
from holdout.rvw.tables import TABLE_COLUMNS, rvw_table, rvw_table_markdown
from holdout.rvw.vocabulary import (
    CONSTANT_BITS,
    DEEP_LEARNING_LAYERS,
    LAYER_ALIASES,
    MATH_OPERATIONS,
    OPTIMIZERS,
    ORDER_SENSITIVE_OPERATIONS,
    RANDOM_SAMPLING_FUNCTIONS,
    STE_DICTIONARY_WORDS,
    TENSOR_OPERATIONS,
    index_bits,
)

__all__ = [
    "CONSTANT_BITS",
    "DEEP_LEARNING_LAYERS",
    "DESCRIPTION_SCHEMA",
    "LAYER_ALIASES",
    "MATH_OPERATIONS",
    "OPTIMIZERS",
    "ORDER_SENSITIVE_OPERATIONS",
    "RANDOM_SAMPLING_FUNCTIONS",
    "STE_DICTIONARY_WORDS",
    "TABLE_COLUMNS",
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
    "rvw_table",
    "rvw_table_markdown",
]
