"""The audit's shape: readers -> evidence -> registry of lenses -> outputs; the subcommands and the old
spellings give the same files; --help fits a screen; a new lens is one module and one registry line."""

from __future__ import annotations

import ast
import re
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import holdout.audit as ha
from holdout.audit import registry
from holdout.audit.cli import main
from holdout.audit.evidence import LensResult
from holdout.cli import COMMANDS
from holdout.cli import main as holdout_main

REPO = Path(__file__).resolve().parents[2]
AUDIT = REPO / "src" / "holdout" / "audit"
PREDS, LABELS = REPO / "config/examples/user_predictions.csv", REPO / "config/examples/user_labels.npy"
#: the longest chain of imports between the audit's own modules: 6 measured (17 before the readers /
#: lenses / report layout), e.g. holdout.audit -> notebook -> correctness -> applicable -> engines.core ->
#: engines.bounds_eps
MAX_DEPTH = 6


def _module_name(path: Path) -> str:
    parts = ("holdout", "audit", *path.relative_to(AUDIT).with_suffix("").parts)
    return ".".join(p for p in parts if p != "__init__")


def import_graph() -> dict[str, set[str]]:
    """Module -> the audit modules it imports (``from holdout.audit.x import y`` counts x, or x.y when
    that is a module); imports under ``if TYPE_CHECKING:`` are no edges (not run)."""
    files = {_module_name(p): p for p in AUDIT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for stmt in node.body
            for n in ast.walk(stmt)
        }
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("holdout.audit"):
                deps |= {m for m in (node.module, *(f"{node.module}.{a.name}" for a in node.names)) if m in files}
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name in files}
        graph[name] = deps - {name, "holdout.audit"}
    return graph


def longest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest path of imports without a repeated module (depth-first from every module)."""
    best: list[str] = []

    def walk(path: list[str]) -> None:
        nonlocal best
        if len(path) > len(best):
            best = list(path)
        for dep in sorted(graph[path[-1]]):
            if dep not in path:
                walk([*path, dep])

    for start in sorted(graph):
        walk([start])
    return best


def test_longest_import_chain_is_measured_and_bounded():
    chain = longest_chain(import_graph())
    assert 2 <= len(chain) <= MAX_DEPTH, " -> ".join(chain)


def test_chain_measure_counts_a_toy_chain():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": set(), "d": {"a"}}
    assert longest_chain(graph) == ["d", "a", "b", "c"]


def test_no_lens_imports_a_lens_no_reader_imports_a_lens_report_no_lens():
    graph = import_graph()
    lenses = {m for m in graph if m.startswith("holdout.audit.lenses.") and not m.endswith("._common")}
    for m, deps in graph.items():
        if m.startswith(("holdout.audit.lenses.", "holdout.audit.readers")):
            assert not deps & lenses, f"{m} imports the lens(es) {sorted(deps & lenses)}"
        if m in ("holdout.audit.registry", "holdout.audit.evidence"):
            assert not deps & lenses, f"{m} imports a lens: lenses load by name"


def test_every_lens_module_is_registered_and_importable():
    names = {p.stem for p in (AUDIT / "lenses").glob("*.py") if not p.stem.startswith("_")}
    assert names == {s.name for s in registry.LENSES}
    for s in registry.LENSES:
        assert s.label in ("measured", "theorem", "heuristic")
        assert callable(__import__(s.module, fromlist=["lens"]).lens)


def test_no_audit_module_over_400_lines():
    long = {str(p.relative_to(AUDIT)): n for p in AUDIT.rglob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long


def test_a_toy_lens_is_one_module_and_one_registry_line(monkeypatch):
    """A lens that counts each model's wrong items: its module (made here) and one registry entry."""
    module = types.ModuleType("toy_lens")

    def lens(e, options):
        wrong = (e.matrix < 1).sum(axis=1)
        return LensResult(
            "toy", "measured", f"{int(wrong.sum())} wrong", pd.DataFrame({"model": e.model_ids, "wrong": wrong})
        )

    module.lens = lens
    monkeypatch.setitem(sys.modules, "toy_lens", module)
    toy = registry.LensSpec("toy", "toy_lens", frozenset({"correctness"}), "measured", "wrong items per model")
    monkeypatch.setattr(registry, "LENSES", (*registry.LENSES, toy))
    e = ha.read_predictions(PREDS, LABELS)
    result = ha.audit(e, lenses=["accuracy", "toy"])
    assert list(result.frames) == ["accuracy", "toy"]
    p = e.predictions
    np.testing.assert_array_equal(result["toy"]["wrong"], (p.predictions != p.labels).sum(axis=1))
    assert result.verdicts().iloc[1].tolist() == ["toy", "measured", f"{int((p.predictions != p.labels).sum())} wrong"]


def test_lenses_for_is_one_lookup_by_the_evidence():
    e = ha.read_predictions(PREDS, LABELS)
    assert {"predictions", "correctness", "answers", "keys", "binary"} <= e.provides
    assert e.answers is p_answers(e) and e.item_text is None and e.clusters is None and e.run_config is None
    names = [s.name for s in registry.lenses_for(e)]
    assert names[:2] == ["accuracy", "pairs"] and "new_set" not in names and "reference" not in names
    table = ha.Evidence(
        None, ("a", "b"), accuracies=pd.DataFrame({"model": ["a", "b"], "x": [0.5, 0.6], "y": [0.4, 0.5]})
    )
    assert [s.name for s in registry.lenses_for(table)] == ["new_set", "reference"]
    with pytest.raises(ValueError, match="unknown lens 'nope'"):
        registry.lenses_for(e, ["nope"])


def p_answers(e):
    return e.predictions.predictions


def test_evidence_lenses_equal_the_command_line_audit():
    """The accuracy and pairs lenses on the evidence give the frames the predictions audit computes."""
    opts = ha.AuditOptions(lenses=("accuracy", "pairs"))
    e = ha.read_predictions(PREDS, LABELS)
    cli = ha.run_audit(e.predictions, opts, source=str(PREDS))
    new = ha.audit(e, lenses=["accuracy", "pairs"])
    pd.testing.assert_frame_equal(new["accuracy"], cli.accuracy)
    pd.testing.assert_frame_equal(new["pairs"], cli.pairs.pairs)


def test_holdout_dispatcher_lists_commands_and_runs_each(capsys):
    assert holdout_main(["--help"]) == 0
    text = capsys.readouterr().out
    assert all(f"  {name}" in text for name in COMMANDS)
    assert holdout_main(["nope"]) == 2 and "unknown command 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        holdout_main(["plan", "--help"])
    assert exc.value.code == 0 and "--configfile" in capsys.readouterr().out


def test_audit_help_lists_each_subcommand_with_an_example_in_under_40_lines(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--help"])
    text = capsys.readouterr().out
    assert exc.value.code == 0 and len(text.splitlines()) < 40
    for name in ("predictions", "matrix", "accuracies", "logs"):
        assert f"holdout audit {name} " in text
        with pytest.raises(SystemExit):
            main([name, "--help"])
        sub = capsys.readouterr().out
        assert sub.startswith(f"usage: holdout audit {name} ") and "--out" in sub and "--alpha" in sub


def _examples() -> list[list[str]]:
    """Every `holdout audit <subcommand>` example of --help whose inputs the repository ships."""
    text = ha.cli.parse.__globals__["overview"]()
    return [line.split()[2:] for line in text.splitlines() if line.strip().startswith("holdout audit ")]


def _files(folder: Path) -> dict[str, bytes]:
    masked = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[^\"<]*|D:\d{14}[^)]*")
    return {
        str(p.relative_to(folder)): masked.sub(b"<time>", p.read_bytes().replace(str(folder).encode(), b"<out>"))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _matrix(tmp_path: Path) -> Path:
    preds, labels = pd.read_csv(PREDS), np.load(LABELS)
    m = (preds.to_numpy().T == labels[None, :]).astype(int)
    path = tmp_path / "matrix.csv"
    pd.DataFrame(m, index=pd.Index(preds.columns, name="model")).to_csv(path)
    table = tmp_path / "table.csv"
    pd.DataFrame({"model": preds.columns, "a": 100 * m[:, :150].mean(1), "b": 100 * m[:, 150:].mean(1)}).to_csv(
        table, index=False
    )
    return path


ACC = ["--lenses", "accuracy"]


@pytest.mark.parametrize(
    ("new", "old", "rc"),
    [
        (["predictions", "{P}", "--labels", "{Y}", *ACC], ["{P}", "--labels", "{Y}", *ACC], 0),
        (["matrix", "{M}", *ACC], ["{M}", "--correctness", *ACC], 0),
        (
            ["accuracies", "{T}", "--columns", "a", "b", "--sizes", "150", "150"],
            ["--accuracies", "{T}", "--columns", "a", "b", "--sizes", "150", "150"],
            0,
        ),
        pytest.param(["logs", "{L}", *ACC], ["--logs", "{L}", *ACC], 0, marks=pytest.mark.slow),
        (["predictions", "{P}"], ["{P}"], 2),
        (
            ["accuracies", "{T}", "--columns", "a", "b", "--sizes", "150", "150", "--lenses", "accuracy"],
            ["--accuracies", "{T}", "--columns", "a", "b", "--sizes", "150", "150", "--lenses", "accuracy"],
            2,
        ),
    ],
    ids=["predictions", "matrix", "accuracies", "logs", "no-labels", "refused-option"],
)
def test_subcommand_and_old_spelling_write_the_same_files(tmp_path, capsys, shared_data, new, old, rc):
    """Byte for byte (times masked): the files written, stdout and stderr, the exit code."""
    matrix = _matrix(tmp_path)
    names = {"{P}": str(PREDS), "{Y}": str(LABELS), "{M}": str(matrix), "{T}": str(tmp_path / "table.csv")}
    names["{L}"] = str(shared_data / "evallogs" / "inspect_starsim" / "logs")  # six Inspect runs
    outputs = []
    for argv, out in ((new, tmp_path / "new"), (old, tmp_path / "old")):
        code = main([*(names.get(a, a) for a in argv), "--out", str(out)])
        captured = capsys.readouterr()
        text = re.sub(r"in \d+\.\d s", "in <t> s", (captured.out + captured.err).replace(str(out), "<out>"))
        outputs.append((code, text, _files(out) if out.exists() else {}))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == rc, outputs[0][1]
    assert rc == 2 or "report.html" in outputs[0][2]


def test_architecture_drawing_names_every_audit_module():
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"## The audit: readers -> evidence.*?```text\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md: no drawing of the audit's pipeline"
    named = set(re.findall(r"[\w]+\.py", block.group(1)))
    modules = {p.name for p in AUDIT.rglob("*.py")} - {"__init__.py", "_common.py"}
    missing = sorted(m for m in modules if m not in named)
    assert not missing, f"the audit's drawing in docs/architecture.md does not name {missing}"
