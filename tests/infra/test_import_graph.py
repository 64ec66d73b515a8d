"""The intra-package import graph of ``holdout``: no import circles; the audit depends on the
studies, never the reverse (docs/notes/code-layout.md, "Dependency rules").

The graph is read with :mod:`ast` (nothing is imported): an edge m -> t for every
``import holdout.t`` / ``from holdout.t import x`` in module m, at module level, inside a
function or under ``if TYPE_CHECKING:`` (an import for a type only still ties the two modules:
a shared type lives in a module of its own). ``from holdout.pkg import sub`` where ``sub`` is
a submodule is an edge to ``holdout.pkg.sub`` only (importing a submodule of one's own package
is no circle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import holdout

SRC = Path(holdout.__file__).parent
#: Packages that are studies (a paper or our own experiment); ``holdout.audit`` is built on them.
STUDIES = (
    "adversarial",
    "bounds",
    "cifar10_1",
    "imagenetv2",
    "retraining",
    "rvw",
    "search_analysis",
    "similarity",
    "training",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def import_graph() -> dict[str, set[str]]:
    """Module -> the ``holdout`` modules it imports."""
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.split(".")[0] == "holdout"]
            elif node.module and node.module.split(".")[0] == "holdout" and node.level == 0:
                subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [node.module, *subs]
            else:
                targets = []
            graph[name].update(t for t in targets if t != name and t in modules)
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (as a path that returns to its start), or None."""
    state: dict[str, int] = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The graph of the source tree, read once for the tests below (none of them changes it)."""
    return import_graph()


def test_graph_sees_the_packages(graph):
    assert "holdout.stats" in graph and "holdout.audit.engines.core" in graph
    assert "holdout.stats" in graph["holdout.cifar10_1.recht"]
    assert "holdout.bounds.study" in graph["holdout.audit.engines.core"]


def test_find_cycle_detects_a_circle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_imports_for_types_only():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from holdout.audit.run import AuditResult\n"
    tree = ast.parse(source)
    assert [node.module for node in _imports(tree) if node.module != "typing"] == ["holdout.audit.run"]


def test_no_import_circles(graph):
    assert _find_cycle(graph) is None


def test_no_study_imports_the_audit(graph):
    bad = [
        f"{m} -> {t}"
        for m, targets in graph.items()
        if m.split(".")[1:2] and m.split(".")[1] in STUDIES
        for t in targets
        if t == "holdout.audit" or t.startswith("holdout.audit.")
    ]
    assert not bad, bad


def test_stats_depends_on_no_study(graph):
    stats = [m for m in graph if m.startswith("holdout.stats")]
    bad = [f"{m} -> {t}" for m in stats for t in graph[m] if t.split(".")[1] in STUDIES]
    assert not bad, bad


def test_config_checks_import_no_study(graph):
    """holdout.config (run at every workflow start) and its per-study checkers import only their own
    modules, holdout.stats and holdout.data.names: never a study package, which loads pandas or scipy."""
    allowed = ("holdout.config", "holdout.stats", "holdout.data.names")
    config = [m for m in graph if m == "holdout.config" or m.startswith("holdout.config.")]
    assert "holdout.config.leaderboards" in config, config
    bad = [f"{m} -> {t}" for m in config for t in graph[m] if not t.startswith(allowed)]
    assert not bad, bad
