"""The layout of ``holdout.adversarial``: the shared core (the statistics, the translation attacks
and the translations file) and one subpackage per study (synthetic, imagenet, cifar10), whose
public names load from their submodules on first use."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from types import ModuleType

import pytest

import holdout.adversarial

STUDIES = ("synthetic", "imagenet", "cifar10")
CORE = ("stats", "translation", "translation_set", "translations_file", "per_image")


def test_core_modules_and_one_subpackage_per_study():
    found = {m.name: m.ispkg for m in pkgutil.iter_modules(holdout.adversarial.__path__)}
    assert found == {**dict.fromkeys(CORE, False), **dict.fromkeys(STUDIES, True)}


@pytest.mark.parametrize("study", STUDIES)
def test_every_exported_name_is_its_submodules_object(study):
    """Each name of ``__all__`` is the object its submodule defines, never a submodule: a name equal
    to a submodule's would become that module once the submodule is imported."""
    package = importlib.import_module(f"holdout.adversarial.{study}")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name != "kernel_numba":  # needs the optional numba
            importlib.import_module(f"{package.__name__}.{info.name}")
    assert len(set(package.__all__)) == len(package.__all__)
    for name in package.__all__:
        value = getattr(package, name)
        assert not isinstance(value, ModuleType), f"{package.__name__}.{name} is a module"
        home = importlib.import_module(f"{package.__name__}.{package._SUBMODULE_OF[name]}")
        assert getattr(home, name) is value, name
    assert set(package.__all__) <= set(dir(package))


def test_light_modules_stay_light():
    """The modules the workflow's rule files import at parse time load no scipy or pandas."""
    code = (
        "import sys\n"
        "import holdout.adversarial.synthetic.grid, holdout.adversarial.cifar10.window\n"
        "import holdout.adversarial.imagenet, holdout.adversarial.cifar10\n"
        "print(sorted(m for m in ('scipy', 'pandas', 'torch', 'matplotlib') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert proc.stdout.strip() == "[]", proc.stdout


def test_lazy_exports_refuse_a_name_equal_to_a_submodule():
    from holdout._lazy import lazy_exports

    with pytest.raises(ValueError, match="attack"):
        lazy_exports("holdout.adversarial.synthetic", {"attack": "attack"})


def test_the_studies_and_the_audit_share_one_per_image_test():
    """The ImageNet and CIFAR-10 studies and the audit's adversarial lens run the tests of the core
    ``per_image`` module, not copies of their own."""
    from holdout.adversarial import per_image
    from holdout.adversarial.cifar10 import attack, tables
    from holdout.adversarial.imagenet import study
    from holdout.audit.engines import adversarial_lens

    assert study.figure5_table is tables.figure5_table is per_image.figure5_table
    assert study.attack_range is tables.attack_range is adversarial_lens.attack_range is per_image.attack_range
    assert study.result_frame is attack.result_frame is per_image.result_frame
