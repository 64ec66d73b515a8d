"""Arora & Zhang (2021), *Rip van Winkle's Razor*: description lengths and the test-overfit bound.

The bound (Theorem 3.1, [`holdout.rvw.bound`][holdout.rvw.bound])
-------------------------------------------------
- [`rvw_bound`][holdout.rvw.rvw_bound]             the upper bound on the population error, the fixed point of T(p).
- [`rvw_fixed_point_map`][holdout.rvw.rvw_fixed_point_map]   the map T(p) itself.

Description lengths (Sec. 4, [`holdout.rvw.description`][holdout.rvw.description])
------------------------------------------------------------
- [`description_length`][holdout.rvw.description_length]    the bits of a description file (its JSON schema:
  ``description.schema.json``).
- [`english_bits`][holdout.rvw.english_bits]          the bits of English text under a rubric (Sec. 4.1).
- [`EnglishRubric`][holdout.rvw.EnglishRubric]        Option 1 (bits per character) or Option 2 (bits per word).
- [`DescriptionError`][holdout.rvw.DescriptionError]     a description that cannot be counted (names file and key).

Vocabulary (Appendix B, [`holdout.rvw.vocabulary`][holdout.rvw.vocabulary])
------------------------------------------------------
- [`index_bits`][holdout.rvw.index_bits]            ceil(log2 count), the bits of an index into ``count`` things.

Tables 1 and 2 ([`holdout.rvw.tables`][holdout.rvw.tables])
------------------------------------------
- [`rvw_table`][holdout.rvw.rvw_table]             the Theorem 3.1 bound for each described model.
"""

from holdout.rvw.bound import rvw_bound, rvw_fixed_point_map
from holdout.rvw.description import DescriptionError, EnglishRubric, description_length, english_bits
from holdout.rvw.tables import rvw_table
from holdout.rvw.vocabulary import index_bits

__all__ = [
    "DescriptionError",
    "EnglishRubric",
    "description_length",
    "english_bits",
    "index_bits",
    "rvw_bound",
    "rvw_fixed_point_map",
    "rvw_table",
]
