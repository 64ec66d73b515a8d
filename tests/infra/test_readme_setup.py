"""The README's set-up line installs what the documented main job's speed assumes.

The README's times of the main job were measured with the compiled kernel of the synthetic
adversarial study (numba) and with torch; a user who copies the README's set-up line must get
both. `.ci/run` (which measured them) must install at least the README's extras, so the two
cannot drift apart. Both lines are read literally from the files.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
# what the README's timings of the main job assume: torch for training, numba for the synthetic kernel
SPEED_ASSUMES = {"torch", "torchvision", "numba"}
# what the test suite imports beyond the runtime dependencies, and pytest-xdist for the README's `-n 2`
TESTS_NEED = {"pytest", "pytest-timeout", "pytest-xdist", "torch", "torchvision", "numba"}
PIP_EXTRAS = re.compile(r"pip install (?:-q )?-e '\.\[([a-z0-9_,-]+)\]'")


def readme_setup_block(readme: str) -> str:
    """The first ```bash block under the README's `## Set-up` heading."""
    section = re.search(r"^## Set-up\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md: no '## Set-up' section"
    block = re.search(r"^```bash\n(.*?)^```", section.group(1), re.S | re.M)
    assert block, "README.md: the Set-up section has no ```bash block"
    return block.group(1)


def extras_of(command: str, where: str) -> list[str]:
    """The extras of the one `pip install -e '.[a,b]'` in ``command``."""
    found = PIP_EXTRAS.findall(command)
    assert len(found) == 1, f"{where}: expected one `pip install -e '.[...]'`, found {found}"
    return found[0].split(",")


def requirements(extras: list[str]) -> set[str]:
    """Distribution names installed by `pip install -e '.[extras]'` (runtime dependencies + extras)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    optional = project["optional-dependencies"]
    unknown = [e for e in extras if e not in optional]
    assert not unknown, f"extras {unknown} are not in pyproject.toml's optional-dependencies"
    reqs = list(project["dependencies"]) + [r for e in extras for r in optional[e]]
    return {Requirement(r).name.lower() for r in reqs}


def test_readme_setup_installs_what_the_timings_assume():
    block = readme_setup_block((REPO / "README.md").read_text(encoding="utf-8"))
    assert block.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e "), block
    installed = requirements(extras_of(block, "README.md Set-up"))
    missing = (SPEED_ASSUMES | TESTS_NEED) - installed
    assert not missing, f"README.md's set-up line does not install {sorted(missing)} (pyproject.toml extras)"


def test_ci_installs_at_least_the_readme_extras():
    readme = extras_of(readme_setup_block((REPO / "README.md").read_text(encoding="utf-8")), "README.md")
    ci = extras_of((REPO / ".ci" / "run").read_text(encoding="utf-8"), ".ci/run")
    assert set(readme) <= set(ci), f".ci/run installs {ci}, the README {readme}: the README's numbers come from CI"


def test_fast_extra_is_an_alias_inside_train():
    """`.[fast]` keeps working for old commands, and everything it installs comes with `train`."""
    assert requirements(["fast"]) <= requirements(["train"])


def test_extras_parser_reads_the_pip_line():
    assert extras_of("x && pip install -e '.[train,test]'", "sample") == ["train", "test"]
    assert "numba" in requirements(["train"])
    assert "numba" not in requirements([])
