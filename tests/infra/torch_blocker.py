"""Make ``import torch`` (and torchvision) fail, as in a venv without the ``[train]`` extra.

:data:`BLOCK_TORCH` is Python source: prepend it to a ``python -c`` program, or write it as
``sitecustomize.py`` into a folder put first on PYTHONPATH (:func:`blocking_pythonpath`) so that
every Python process started under it (Snakemake and its ``script:`` jobs) is blocked too.
"""

from __future__ import annotations

import os
from pathlib import Path

BLOCK_TORCH = """
import importlib.abc, sys
class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "torchvision"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: venv without the train extra)")
        return None
sys.meta_path.insert(0, _NoTorch())
"""


def blocking_pythonpath(folder: Path, src: Path) -> str:
    """A PYTHONPATH whose first folder has a ``sitecustomize.py`` blocking torch, then ``src``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(BLOCK_TORCH)
    return os.pathsep.join([str(folder), str(src)])
