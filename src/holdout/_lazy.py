"""Names of a package loaded from its submodules on first use (PEP 562).

A package whose ``__init__`` imported every submodule would load scipy, pandas or torch for a
caller that needs one light module (the workflow's rule files at parse time). Such a package
lists each public name's submodule and hands [`lazy_exports`][holdout._lazy.lazy_exports] its
``__getattr__`` and ``__dir__``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, submodule_of: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``name`` is imported from
    ``package.<submodule_of[name]>`` on first access and kept in the package's namespace.

    No name may equal one of the package's submodules: importing the submodule would set the
    package's attribute of that name to the module.
    """
    clash = sorted(set(submodule_of) & set(submodule_of.values()))
    if clash:
        raise ValueError(f"{package}: exported names equal to a submodule's name: {clash}")

    def __getattr__(name: str) -> object:
        module = submodule_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(submodule_of))

    return __getattr__, __dir__
