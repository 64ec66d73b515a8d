"""Arora & Zhang (2021), *Rip van Winkle's Razor*: description lengths and the test-overfit bound.

The bound (Theorem 3.1, :mod:`holdout.rvw.bound`)
-------------------------------------------------
- :func:`rvw_bound`             the upper bound on the population error, the fixed point of T(p).
- :func:`rvw_fixed_point_map`   the map T(p) itself.

Description lengths (Sec. 4, :mod:`holdout.rvw.description`)
------------------------------------------------------------
- :func:`description_length`    the bits of a description file (its JSON schema:
  ``description.schema.json``).
- :func:`english_bits`          the bits of English text under a rubric (Sec. 4.1).
- :class:`EnglishRubric`        Option 1 (bits per character) or Option 2 (bits per word).
- :class:`DescriptionError`     a description that cannot be counted (names file and key).

Vocabulary (Appendix B, :mod:`holdout.rvw.vocabulary`)
------------------------------------------------------
- :func:`index_bits`            ceil(log2 count), the bits of an index into ``count`` things.

Tables 1 and 2 (:mod:`holdout.rvw.tables`)
------------------------------------------
- :func:`rvw_table`             the Theorem 3.1 bound for each described model.
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
