"""The audit's bad-input error and the checks every layer shares (no other audit module imported)."""

from __future__ import annotations

__all__ = ["MAX_SEARCH_SIZE", "AuditError", "check_open_unit"]

#: largest --search-size G (ceil(log2 G) <= 997 bits; beyond, G is not a float)
MAX_SEARCH_SIZE = 10**300


class AuditError(ValueError):
    """Bad audit input; the message is one line naming the file (or option) and the problem."""


def check_open_unit(name: str, value: float) -> float:
    """``value`` as a float when it lies in the open interval (0, 1), else
    [`AuditError`][holdout.audit.errors.AuditError]."""
    v = float(value)
    if not 0.0 < v < 1.0:
        raise AuditError(f"{name} must lie in (0, 1), got {value}")
    return v
