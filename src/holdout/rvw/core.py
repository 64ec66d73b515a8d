"""Rip van Winkle's Razor (Arora & Zhang, 2021): the bound and the bit counting.

The implementation is split by the paper's seams: [`holdout.rvw.bound`][holdout.rvw.bound] (Theorem 3.1),
[`holdout.rvw.vocabulary`][holdout.rvw.vocabulary] (Appendix B), [`holdout.rvw.description`][holdout.rvw.description]
(Sec. 4; the JSON
schema of a description file is ``description.schema.json``), [`holdout.rvw.tables`][holdout.rvw.tables]
(Tables 1 and 2). This module re-exports their names (the old import location).

Two halves: [`rvw_bound`][holdout.rvw.core.rvw_bound], the upper bound on the population error of Theorem 3.1 (the fixed
point of ``T(p)`` in closed form), and [`description_length`][holdout.rvw.core.description_length], the bits of a
description a user
writes as a small YAML file (its format: [`holdout.rvw.description`][holdout.rvw.description]).
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
