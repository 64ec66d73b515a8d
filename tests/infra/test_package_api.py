"""The package's public API: the top-level docstring names every subpackage and module, and every
name a package exports (``__all__``) exists and is listed in that package's categorised docstring."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import holdout

PUBLIC = sorted(m.name for m in pkgutil.iter_modules(holdout.__path__) if not m.name.startswith("_"))
PACKAGES = sorted(m.name for m in pkgutil.iter_modules(holdout.__path__) if m.ispkg)


def test_top_level_docstring_names_every_subpackage_and_module():
    doc = holdout.__doc__ or ""
    missing = [name for name in PUBLIC if f"``holdout.{name}``" not in doc]
    assert not missing, f"holdout/__init__.py docstring does not name: {missing}"
    named = set(re.findall(r"``holdout\.([a-z0-9_]+)``", doc))
    assert not named - set(PUBLIC), f"the docstring names modules that do not exist: {named - set(PUBLIC)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_exist_and_are_documented(package: str):
    mod = importlib.import_module(f"holdout.{package}")
    names = list(getattr(mod, "__all__", []))
    assert 5 <= len(names) <= 15, f"holdout.{package} exports {len(names)} names (the API is 5-15 names)"
    assert len(set(names)) == len(names), f"holdout.{package}.__all__ repeats a name"
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"holdout.{package}.__all__ names what it does not define: {missing}"
    undocumented = [n for n in names if not re.search(rf"`{re.escape(n)}`", mod.__doc__ or "")]
    assert not undocumented, f"holdout.{package} docstring does not list: {undocumented}"
    assert re.search(r"\n-{3,}\n", mod.__doc__ or ""), f"holdout.{package} docstring has no sections"
