"""holdout site: the SPEC (YAML or folder) and its one-line errors, the out folder's safety, the
counts read from the audit's files, and (slow) a site of benchmarks made up here, in the documented
folder layout, whose ranks.csv are the files `holdout audit` writes for the same inputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from holdout.audit.cli import main as audit_main
from holdout.cli import main as holdout_main
from holdout.commands.site import main
from holdout.site import adjacent_resolved, load_spec
from holdout.site.build import SiteError, check_out

REPO = Path(__file__).resolve().parents[2]


def _matrix(path: Path, models: list[str], n: int, seed: int, rate: int | None = None) -> None:
    """A K x n correctness matrix (model name first, one column per item); pass rates over ``rate``."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.35, 0.8, len(models))
    if rate:
        values = rng.binomial(rate, skill[:, None], size=(len(models), n)) / rate
    else:
        values = (rng.random((len(models), n)) < skill[:, None]).astype(int)
    frame = pd.DataFrame(values, index=pd.Index(models, name="model"), columns=[f"item{i}" for i in range(n)])
    frame.to_csv(path)


def _one_line(argv: list[str], capsys) -> str:
    assert holdout_main(["site", *argv]) == 2  # through the holdout command's dispatcher
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "text, key",
    [
        ("benchmarks: {a: {correctness: m.csv, options: {no_such_option: 1}}}", "benchmarks.a.options.no_such_option"),
        ("benchmarks: {a: {correctness: m.csv, logs: m.csv}}", "benchmarks.a: name exactly one input"),
        ("benchmarks: {a: {correctness: missing.csv}}", "benchmarks.a.correctness"),
        ("benchmarks: {index: {correctness: m.csv}}", "benchmarks.index"),
        ("benchmarks: {a: {correctness: m.csv, colour: red}}", "benchmarks.a.colour"),
        ("benchmark: {a: {correctness: m.csv}}", "benchmarks"),
        ("benchmarks: {a: {correctness: m.csv, options: {out: x}}}", "benchmarks.a.options.out"),
        ("benchmarks: {a: {evalplus: {file: m.csv}}}", "benchmarks.a.evalplus: expected a mapping"),
        ("benchmarks: {a: [1, 2", "not valid YAML"),
    ],
)
def test_bad_spec_one_line_naming_file_and_key(tmp_path, capsys, text, key):
    (tmp_path / "m.csv").write_text("model,i1\na,1\n")
    (tmp_path / "s.yaml").write_text(text + "\n")
    err = _one_line([str(tmp_path / "s.yaml"), "--out", str(tmp_path / "site")], capsys)
    assert err.startswith(f"holdout site: error: {tmp_path / 's.yaml'}") and key in err, err
    assert not (tmp_path / "site").exists()


def test_folder_spec_reads_files_by_option_name(tmp_path):
    b = tmp_path / "bench_a"
    b.mkdir()
    _matrix(b / "correctness.csv", ["m1", "m2"], 5, 0)
    (b / "item_dates.csv").write_text("item,date\n")
    (b / "options.yaml").write_text("samples: 10\nrows: models\n")
    (tmp_path / "bench_b").mkdir()
    (tmp_path / "bench_b" / "run.json").write_text("{}")
    spec = load_spec(tmp_path)
    a, logs = spec.benchmarks
    assert (a.name, a.kind, a.inputs["path"]) == ("bench_a", "correctness", str(b / "correctness.csv"))
    assert a.options == {"samples": 10, "rows": "models", "item_dates": str(b / "item_dates.csv")}
    assert (logs.kind, logs.inputs["paths"]) == ("logs", [str(tmp_path / "bench_b" / "run.json")])


def test_out_refused_unless_new_empty_or_a_site(tmp_path):
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    with pytest.raises(SiteError, match="not a holdout site"):
        check_out(tmp_path / "theirs")
    (tmp_path / "empty").mkdir()
    check_out(tmp_path / "empty")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "site.json").write_text(json.dumps({"generator": "holdout site"}))
    check_out(tmp_path / "old")


def test_adjacent_resolved_against_a_direct_count():
    """Adjacent models in rank order, significant after Holm: counted by hand on a made-up table."""
    ranks = pd.DataFrame({"model": ["a", "b", "c", "d"]})
    pairs = pd.DataFrame(
        {
            "model_a": ["a", "a", "a", "b", "b", "c"],
            "model_b": ["b", "c", "d", "c", "d", "d"],
            "p_holm": [0.2, 0.01, 0.001, 0.049, 0.0001, 0.05],
        }
    )
    # a-b 0.2 (no), b-c 0.049 (yes), c-d 0.05 (no: not below alpha)
    assert adjacent_resolved(ranks, pairs, 0.05) == (1, 3)
    # pairs listed the other way round are found too
    flipped = pairs.rename(columns={"model_a": "model_b", "model_b": "model_a"})
    assert adjacent_resolved(ranks, flipped, 0.05) == (1, 3)


@pytest.fixture(scope="module")
def unseen(tmp_path_factory, shared_data) -> tuple[Path, Path]:
    """Benchmarks never seen before, in the documented folder layout, built into a site: two matrices
    made up here and a folder of HELM logs (with the options file beside them)."""
    root = tmp_path_factory.mktemp("unseen")
    spec = root / "spec"
    shared = [f"model-{i}" for i in range(8)]
    (spec / "quiz_2031").mkdir(parents=True)
    _matrix(spec / "quiz_2031" / "correctness.csv", shared + ["only-quiz"], 240, 1)
    (spec / "code_gen").mkdir()
    _matrix(spec / "code_gen" / "correctness.csv", [*shared[:5], "M5 alias"], 150, 2, rate=5)
    (spec / "code_gen" / "options.yaml").write_text("samples: 5\neps: 0.1\n")
    (spec / "aliases.csv").write_text("alias,model\nM5 alias,model-5\n")
    shutil.copytree(shared_data / "evallogs" / "helm_safety_bbq" / "runs", spec / "helm_logs" / "runs")
    (spec / "helm_logs" / "options.yaml").write_text("eps: 0.1\n")
    assert main([str(spec), "--out", str(root / "site")]) == 0
    return spec, root / "site"


@pytest.mark.slow  # three small audits and the pages: about 15 s
def test_unseen_benchmarks_build(unseen):
    spec, site = unseen
    meta = json.loads((site / "site.json").read_text())
    assert [b["name"] for b in meta["benchmarks"]] == ["code_gen", "helm_logs", "quiz_2031"]
    assert [b["k"] for b in meta["benchmarks"]] == [6, 9, 9]
    assert [b["kind"] for b in meta["benchmarks"]] == ["correctness", "logs", "correctness"]
    for page in ["index.html", "bench-code_gen.html", "bench-quiz_2031.html", "model-model-5.html"]:
        assert (site / page).is_file() and (site / page).stat().st_size < 2_000_000
    models = pd.read_csv(site / "models.csv")
    assert set(models["model"]) == {f"model-{i}" for i in range(6)}  # 'M5 alias' is model-5 on code_gen
    assert not list(site.parent.glob(".site.*"))  # nothing left beside --out


@pytest.mark.slow
@pytest.mark.parametrize("name, extra", [("quiz_2031", []), ("code_gen", ["--samples", "5", "--eps", "0.1"])])
def test_ranks_are_what_holdout_audit_writes(unseen, tmp_path, name, extra):
    spec, site = unseen
    out = tmp_path / "audit"
    assert audit_main(["audit", str(spec / name / "correctness.csv"), "--correctness", *extra, "--out", str(out)]) == 0
    assert (site / name / "ranks.csv").read_bytes() == (out / "ranks.csv").read_bytes()
    assert (site / name / "pairs.csv").read_bytes() == (out / "pairs.csv").read_bytes()


@pytest.mark.slow
def test_rebuild_replaces_a_site_and_a_failed_audit_leaves_it(unseen, tmp_path, capsys):
    spec, site = unseen
    before = (site / "site.json").read_text()
    bad = tmp_path / "bad"
    (bad / "broken").mkdir(parents=True)
    (bad / "broken" / "correctness.csv").write_text("model,i1,i2\na,1,7\nb,0,1\n")
    err = _one_line([str(bad), "--out", str(site)], capsys)
    assert "benchmark broken: holdout audit: error:" in err, err
    assert (site / "site.json").read_text() == before  # the old site untouched
