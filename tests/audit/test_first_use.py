"""What a first-time evaluation user tripped on in the audit, each through the command line or the
Python API as they ran it: one model, one item, the same number rounded two ways, a tie ranked by
file order, image-classification words and an irrelevant dates note on a log audit, the Python
``audit()`` short of the command line's options, and a bounds section that says nothing usable at
the default eps."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from logfiles import lmeval_run, row

from holdout.audit import audit
from holdout.audit.cli import main
from holdout.leaderboards import CorrectnessMatrix

REPO = Path(__file__).resolve().parents[2]


def _matrix_csv(path: Path, values: np.ndarray, names: list[str]) -> Path:
    items = [f"i{j}" for j in range(values.shape[1])]
    pd.DataFrame(values, index=pd.Index(names, name="model"), columns=items).to_csv(path)
    return path


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rc = main(["audit", *argv])
    out, err = capsys.readouterr()
    runtime = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    return rc, out, err + "".join(f"RuntimeWarning: {m}\n" for m in runtime)


@pytest.fixture
def tie_csv(tmp_path: Path) -> Path:
    """Three models on 23 items; zeta and alpha both 16 / 23 = 69.57%, zeta first in the file."""
    x = np.zeros((3, 23), dtype=int)
    x[0, :16] = 1
    x[1, 7:23] = 1
    x[2, :10] = 1
    return _matrix_csv(tmp_path / "tie.csv", x, ["zeta", "alpha", "c"])


# ---------------------------------------------------------------- one model, one item


def test_one_model_gets_an_accuracy_report(tmp_path: Path, capsys) -> None:
    """docs/audit.md promises a report for any K: with --lenses accuracy a single model is audited."""
    x = np.random.default_rng(0).integers(0, 2, (1, 50))
    csv = _matrix_csv(tmp_path / "one.csv", x, ["solo"])
    rc, out, err = _run([str(csv), "--correctness", "--lenses", "accuracy", "--out", str(tmp_path / "a")], capsys)
    assert rc == 0, err
    acc = pd.read_csv(tmp_path / "a" / "accuracy.csv")
    assert list(acc["model"]) == ["solo"] and acc["correct"].iloc[0] == x.sum()
    assert (tmp_path / "a" / "report.html").exists()


def test_one_model_with_every_lens_skips_those_that_need_two(tmp_path: Path, capsys) -> None:
    """The default lenses on one model: accuracy runs, each lens that needs >= 2 models says so in
    one line and is skipped (no error)."""
    x = np.random.default_rng(1).integers(0, 2, (1, 40))
    csv = _matrix_csv(tmp_path / "one.csv", x, ["solo"])
    rc, out, err = _run([str(csv), "--correctness", "--out", str(tmp_path / "a")], capsys)
    assert rc == 0, err
    assert "[accuracy]" in out
    skipped = [line for line in (out + err).splitlines() if "at least 2 models" in line]
    assert skipped and all("skipped" in line for line in skipped)
    notes = json.loads((tmp_path / "a" / "summary.json").read_text())["notes"]
    assert any("at least 2 models" in n for n in notes)


def test_one_model_in_the_python_api() -> None:
    x = np.random.default_rng(2).integers(0, 2, (1, 30)).astype(float)
    result = audit(CorrectnessMatrix(("solo",), x), lenses=["accuracy"])
    assert list(result.accuracy["model"]) == ["solo"]


def test_one_item_warns_and_formats_eps(tmp_path: Path, capsys) -> None:
    """One item: a clear warning, eps as a plain number (not "1e+02 points"), no numpy RuntimeWarning."""
    csv = _matrix_csv(tmp_path / "one_item.csv", np.array([[1], [0], [1]]), ["a", "b", "c"])
    rc, out, err = _run([str(csv), "--correctness", "--rows", "models", "--out", str(tmp_path / "a")], capsys)
    assert rc == 0, err
    assert "RuntimeWarning" not in err
    assert "e+0" not in out
    assert re.search(r"warning: .*only 1 item", out + err, re.IGNORECASE)
    notes = json.loads((tmp_path / "a" / "summary.json").read_text())["notes"]
    assert any("only 1 item" in n for n in notes)


# ---------------------------------------------------------------- one number, one rounding; ties


def test_accuracy_rounded_alike_in_verdict_and_table(tie_csv: Path, tmp_path: Path, capsys) -> None:
    """16 / 23 = 69.5652...%: "69.57" in the verdict and in the report's accuracy table (not "70")."""
    rc, out, err = _run([str(tie_csv), "--correctness", "--lenses", "accuracy", "--out", str(tmp_path / "a")], capsys)
    assert rc == 0, err
    assert "69.57%" in out
    page = (tmp_path / "a" / "report.html").read_text()
    table = page[page.index("Accuracy (%) per model") :]
    table = table[: table.index("</table>")]
    assert re.findall(r"data-v='69\.5652[0-9]*'>([^<]*)<", table) == ["69.57", "69.57"]


def test_tied_models_ranked_alike_and_named(tie_csv: Path, tmp_path: Path, capsys) -> None:
    """accuracy.csv ranks a tie 1, 1 as ranks.csv does, and the verdict names both models at the top."""
    rc, out, err = _run(
        [str(tie_csv), "--correctness", "--lenses", "accuracy,pairs", "--out", str(tmp_path / "a")], capsys
    )
    assert rc == 0, err
    acc = pd.read_csv(tmp_path / "a" / "accuracy.csv").set_index("model")["rank"]
    ranks = pd.read_csv(tmp_path / "a" / "ranks.csv").set_index("model")["rank"]
    assert acc.to_dict() == {"zeta": 1, "alpha": 1, "c": 3}
    assert ranks.to_dict() == acc.to_dict()
    line = next(x for x in out.splitlines() if x.startswith("[accuracy]"))
    assert "zeta" in line and "alpha" in line and "tied" in line


# ---------------------------------------------------------------- words of a log audit


@pytest.fixture
def two_lmeval_runs(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    folder = tmp_path / "logs"
    for model in ("org/a", "org/b"):
        hits = rng.integers(0, 2, 40)
        rows = [row(i, acc=float(h)) for i, h in enumerate(hits)]
        lmeval_run(folder / model.replace("/", "__"), "arc_easy", rows, model=model)
    return folder


def test_log_audit_speaks_of_items_not_images(two_lmeval_runs: Path, tmp_path: Path, capsys) -> None:
    """No "classified" on a log audit, and no "give --item-dates" note where the logs carry no dates
    and the new-test-set lens was not asked for."""
    rc, out, err = _run(["--logs", str(two_lmeval_runs), "--out", str(tmp_path / "a")], capsys)
    assert rc == 0, err
    assert "classified" not in out
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert not any("item-dates" in n for n in summary["notes"]), summary["notes"]
    assert "classified" not in (tmp_path / "a" / "report.html").read_text()


def test_matrix_audit_asked_for_the_new_lens_says_what_it_needs(tie_csv: Path, tmp_path: Path, capsys) -> None:
    rc, out, err = _run(
        [str(tie_csv), "--correctness", "--lenses", "accuracy,new", "--out", str(tmp_path / "a")], capsys
    )
    assert rc == 0, err
    notes = json.loads((tmp_path / "a" / "summary.json").read_text())["notes"]
    assert any("--item-dates" in n for n in notes)


# ---------------------------------------------------------------- the Python audit()


def test_python_audit_takes_mid_p(tmp_path: Path) -> None:
    """mid_p reaches the paired lens: b = 3, c = 0 gives the exact p 2 * P(X <= 0) = 1/4 and the mid-p
    2 * P(X < 0) + P(X = 0) = 1/8 (X ~ Binomial(3, 1/2))."""
    x = np.zeros((2, 10))
    x[0, :5] = 1
    x[1, :2] = 1
    m = CorrectnessMatrix(("a", "b"), x)
    exact = audit(m, lenses=["accuracy", "pairs"]).pairs.pairs["p_value"].iloc[0]
    mid = audit(m, lenses=["accuracy", "pairs"], mid_p=True).pairs.pairs["p_value"].iloc[0]
    assert exact == pytest.approx(0.25) and mid == pytest.approx(0.125)


def test_python_audit_takes_families_and_rank_resamples(tmp_path: Path) -> None:
    x = np.random.default_rng(4).integers(0, 2, (3, 60)).astype(float)
    m = CorrectnessMatrix(("a1", "a2", "b"), x)
    fam = tmp_path / "families.csv"
    fam.write_text("model,family\na1,a\na2,a\nb,b\n")
    r = audit(m, lenses=["accuracy", "pairs"], families=str(fam), rank_resamples=50)
    assert r.best_of_n and r.pairs.resamples == 50


def test_write_audit_documented_in_logs_page() -> None:
    assert "write_audit" in (REPO / "docs" / "logs.md").read_text()


# ---------------------------------------------------------------- bounds at the default eps


def test_bounds_say_the_eps_for_1_10_100_models(tmp_path: Path, capsys) -> None:
    """9 x 100 like HELM's BBQ: the union bound's eps 0.1027 printed as 0.103 (10.3 points), the eps at
    which the test set supports 1, 10 and 100 models, and no testable-models figure of zeros."""
    rng = np.random.default_rng(5)
    x = (rng.random((9, 100)) < 0.84).astype(int)
    csv = _matrix_csv(tmp_path / "bbq.csv", x, [f"m{i}" for i in range(9)])
    rc, out, err = _run(
        [str(csv), "--correctness", "--lenses", "accuracy,similarity,bounds", "--out", str(tmp_path / "a")], capsys
    )
    assert rc == 0, err
    b = json.loads((tmp_path / "a" / "summary.json").read_text())["bounds"]
    line = next(x for x in out.splitlines() if x.startswith("[bounds]"))
    eps = b["union_eps"]
    assert f"eps = {eps:.3g} ({100 * eps:.3g} points)" in line
    for k in (1, 10, 100):
        assert f"{k} model" in line
    assert set(b["eps_for_models"]) == {"1", "10", "100"}
    one, ten, hundred = (b["eps_for_models"][k]["union"] for k in ("1", "10", "100"))
    assert one < ten < hundred
    if all(r["union"] == 0 for r in b["supported"]):
        assert not (tmp_path / "a" / "testable_models.png").exists()


# ---------------------------------------------------------------- configuration drift


def test_config_drift_within_a_model_listed_and_flagged(tmp_path: Path, capsys) -> None:
    """Two runs of one model, 0-shot and 5-shot: logs.csv lists the key per run and the report flags it."""
    rng = np.random.default_rng(6)
    folder = tmp_path / "logs"
    for stamp, shots in (("2025-01-02T03-04-05.678901", 0), ("2025-02-03T03-04-05.678901", 5)):
        rows = [row(i, acc=float(h)) for i, h in enumerate(rng.integers(0, 2, 30))]
        path = lmeval_run(folder / f"run{shots}", "arc_easy", rows, model="org/m", stamp=stamp)
        results = path.with_name(f"results_{stamp}.json")
        results.write_text(
            json.dumps({"results": {"arc_easy": {}}, "model_name": "org/m", "n-shot": {"arc_easy": shots}})
        )
    other = [row(i, acc=float(h)) for i, h in enumerate(rng.integers(0, 2, 30))]
    lmeval_run(folder / "other", "arc_easy", other, model="org/other")
    rc, out, err = _run(["--logs", str(folder), "--out", str(tmp_path / "a")], capsys)
    assert rc == 0, err
    logs = pd.read_csv(tmp_path / "a" / "logs.csv").fillna("")
    assert list(logs.loc[logs["model"] == "org/m", "config_differs"]) == ["n_shot", "n_shot"]
    page = (tmp_path / "a" / "report.html").read_text()
    assert "runs of org/m differ in configuration: n_shot" in page


def test_every_matrix_and_logs_option_reaches_python() -> None:
    """Each option of `holdout audit matrix` / `logs` has a keyword of the same name in audit(), its
    options (AuditOptions / LensOptions), the readers or write_audit; only the input itself and help
    have none."""
    import inspect

    from holdout.audit import AuditOptions, read_logs, read_matrix, write_audit
    from holdout.audit.parser import subcommand_parser
    from holdout.audit.registry import LensOptions

    names = set(inspect.signature(audit).parameters) | {"out"}  # out: write_audit(result, out)
    names |= {f.name for f in fields(AuditOptions)} | {f.name for f in fields(LensOptions)}
    from holdout.audit.readers import read_logs as read_logs_evidence  # the logs as Evidence (cluster_by)

    for f in (read_logs, read_logs_evidence, read_matrix, write_audit):
        names |= set(inspect.signature(f).parameters)
    for kind in ("matrix", "logs"):
        dests = {a.dest for a in subcommand_parser(kind)._actions} - {"help", "predictions", "logs"}
        assert dests - names <= {"reference_correctness"}, (kind, sorted(dests - names))


def test_python_audit_takes_the_split_by_date(tmp_path: Path) -> None:
    x = np.random.default_rng(7).integers(0, 2, (6, 40)).astype(float)
    m = CorrectnessMatrix(tuple(f"m{i}" for i in range(6)), x, item_names=tuple(f"i{j}" for j in range(40)))
    items = tmp_path / "items.csv"
    items.write_text("item,date\n" + "".join(f"i{j},2024-0{1 + j % 6}-01\n" for j in range(40)))
    models = tmp_path / "models.csv"
    models.write_text("model,date\n" + "".join(f"m{i},{'2023-12-15' if i < 4 else '2024-05-15'}\n" for i in range(6)))
    r = audit(m, lenses=["accuracy"], item_dates=str(items), model_dates=str(models), split="2024-04-01")
    assert r.contamination is not None
