"""``holdout audit --logs``: a folder of lm-eval runs of several models gives the full report; every
bad input is one line naming the file (exit 2) and writes nothing."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import numpy as np
import pandas as pd
import pytest
from logfiles import lmeval_run, row

from holdout.audit.cli import main


def five_models(folder, n=60, seed=0):
    """Five models' lm-eval runs of one task (acc 0/1, a shared difficulty), in <org>__<model>/ folders."""
    rng = np.random.default_rng(seed)
    hard = rng.random(n)
    for k, skill in enumerate([0.3, 0.45, 0.5, 0.6, 0.8]):
        correct = (rng.random(n) * 0.5 + hard * 0.5 < skill).astype(int)
        lmeval_run(folder / f"org__m{k}", "arc_easy", [row(i, acc=int(c)) for i, c in enumerate(correct)], f"org/m{k}")


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_a_folder_of_lmeval_runs_gives_the_full_report(tmp_path, capsys):
    five_models(tmp_path / "runs")
    out = tmp_path / "o"
    assert main(["audit", "--logs", str(tmp_path / "runs"), "--eps", "0.1", "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["num_models"] == 5 and s["n"] == 60 and {"accuracy", "similarity", "bounds"} <= set(s)
    assert s["logs"]["task"] == "arc_easy" and s["logs"]["metrics"] == ["acc"] and s["logs"]["formats"] == ["lm-eval"]
    matrix = pd.read_csv(out / "correctness.csv", index_col="model")
    assert list(matrix.index) == [f"org/m{k}" for k in range(5)] and list(matrix.columns) == [str(i) for i in range(60)]
    for k, name in enumerate(matrix.index):
        rows = [
            json.loads(x) for x in next((tmp_path / "runs" / f"org__m{k}").glob("samples_*")).read_text().splitlines()
        ]
        assert matrix.loc[name].tolist() == [r["acc"] for r in rows]
    acc = pd.read_csv(out / "accuracy.csv").set_index("model")["accuracy"]
    assert acc.to_dict() == pytest.approx((100 * matrix.mean(axis=1)).to_dict())
    assert s["item_fingerprint"] == s["logs"]["item_fingerprint"] and len(s["item_fingerprint"]) == 64
    assert len(pd.read_csv(out / "logs.csv")) == 5 and (out / "report.html").is_file()
    assert "[similarity]" in capsys.readouterr().out


def _one_line_error(args, capsys) -> str:
    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    return err


def test_bad_logs_are_one_line_naming_the_file(tmp_path, capsys, monkeypatch, shared_data):
    out = str(tmp_path / "o")
    dup = lmeval_run(tmp_path / "dup" / "m", "arc", [row(0, acc=1), row(0, acc=0)])
    assert f"{dup}: item id '0' appears twice" in _one_line_error(["--logs", str(dup), "--out", out], capsys)
    for model in ("a", "b"):
        lmeval_run(tmp_path / "mixed" / model, "arc", [row(0, acc=1)], model=model)
        lmeval_run(tmp_path / "mixed" / model, "mmlu", [row(0, acc=1)], model=model)
    err = _one_line_error(["--logs", str(tmp_path / "mixed"), "--out", out], capsys)
    assert re.search(
        r"runs of 2 tasks: arc \(2 runs, e\.g\. \S+/a/samples_arc_\S+\), "
        r"mmlu \(2 runs, e\.g\. \S+\); choose one with --task",
        err,
    )
    two = lmeval_run(
        tmp_path / "two" / "m", "gsm8k", [row(0, "strict-match", exact_match=1), row(0, "x", exact_match=0)]
    )
    assert f"{two}: 2 filters (strict-match, x): choose one with --filter" in _one_line_error(
        ["--logs", str(two), "--out", out], capsys
    )
    empty = tmp_path / "samples_arc_2025-01-01T00-00-00.jsonl"
    empty.write_text("")
    assert f"{empty}: empty file" in _one_line_error(["--logs", str(empty), "--out", out], capsys)
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"{\x00\xff not json")
    assert f"{broken}: not an evaluation log" in _one_line_error(["--logs", str(broken), "--out", out], capsys)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    log = shared_data / "evallogs" / "inspect_fixtures" / "inspect_ai__log_formats.json"
    assert "needs the optional extra logs: pip install 'holdout[logs]'" in _one_line_error(
        ["--logs", str(log), "--out", out], capsys
    )
    one = shared_data / "evallogs" / "eee_instance_level"
    # one model: the lenses that compare models are skipped with one line, the rest report
    assert main(["audit", "--logs", str(one), "--task", "mmlu", "--out", out]) == 0
    err = capsys.readouterr().err
    assert "skipped: pairs, similarity, bounds: these lenses compare models and need at least 2 models" in err
    assert (tmp_path / "o" / "accuracy.csv").is_file()


def test_options_of_logs_alone_or_mixed_are_refused(tmp_path, capsys):
    five_models(tmp_path / "runs", n=10)
    out = str(tmp_path / "o")
    assert "--task: an option of --logs" in _one_line_error(
        ["x.csv", "--correctness", "--task", "arc", "--out", out], capsys
    )
    err = _one_line_error(["--logs", str(tmp_path / "runs"), "--correctness", "--out", out], capsys)
    assert "--logs is an input on its own" in err
    err = _one_line_error(["--logs", str(tmp_path / "runs"), "--samples", "5", "--out", out], capsys)
    assert "--samples: not read by --logs" in err
    err = _one_line_error(["--logs", str(tmp_path / "runs"), "--split", "2024-01-01", "--out", out], capsys)
    assert "these logs carry no item dates; give --item-dates" in err


NEEDS_INSPECT = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None, reason="inspect_ai not installed: pip install 'holdout[logs]'"
)


@pytest.mark.slow  # five full audits of real logs (figures included): about 30 s
@pytest.mark.parametrize(
    "folder, shape, extra",
    [
        ("helm_safety_bbq", (9, 100), []),
        ("evalplus_eval_results/inferenced_output/humaneval", (6, 164), []),
        ("evalplus_eval_results/inferenced_output/mbpp", (6, 378), ["--metric", "base"]),
        ("lmeval_asdiv_llama3", (3, 50), []),
        pytest.param("inspect_starsim", (6, 23), [], marks=NEEDS_INSPECT),
    ],
)
def test_audit_of_real_logs(shared_data, tmp_path, folder, shape, extra):
    out = tmp_path / "o"
    assert main(["audit", "--logs", str(shared_data / "evallogs" / folder), *extra, "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert (s["num_models"], s["n"]) == shape
    assert pd.read_csv(out / "correctness.csv", index_col=0).shape == shape


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_livecodebench_logs_feed_the_contamination_lens(tmp_path, capsys):
    """Item dates from the logs' contest dates; two late models solve the early problems only."""
    from logfiles import lcb_problem

    rng = np.random.default_rng(3)
    skill = {f"m{k}": s for k, s in enumerate([0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.45, 0.55])}
    dates = ["2023-03-01"] * 60 + ["2023-10-01"] * 60
    for model, p in skill.items():
        late = model in ("m6", "m7")
        probs = [
            lcb_problem(f"q{i}", d, [bool(rng.random() < (0.95 if late and d < "2023-09" else p)) for _ in range(5)])
            for i, d in enumerate(dates)
        ]
        (tmp_path / "output" / model).mkdir(parents=True)
        (tmp_path / "output" / model / "Scenario.codegeneration_5_0.2_eval_all.json").write_text(json.dumps(probs))
    pd.DataFrame({"model": list(skill), "date": ["2022-01-01"] * 6 + ["2023-09-01"] * 2}).to_csv(
        tmp_path / "models.csv", index=False
    )
    args = ["audit", "--logs", str(tmp_path / "output"), "--model-dates", str(tmp_path / "models.csv")]
    assert main([*args, "--split", "2023-09-01", "--eps", "0.1", "--out", str(tmp_path / "o")]) == 0
    s = json.loads((tmp_path / "o/summary.json").read_text())
    assert (s["num_models"], s["n"]) == (8, 120) and s["logs"]["formats"] == ["livecodebench"]
    assert s["contamination"]["line_models"] == 6 and s["contamination"]["below_line"] == ["m6", "m7"]
    assert "[contamination] 2 of 2" in capsys.readouterr().out


def test_the_python_result_shows_its_verdicts(tmp_path):
    import holdout.audit as ha

    five_models(tmp_path / "runs", n=40)
    result = ha.audit(ha.read_logs(tmp_path / "runs"), eps=0.1, search_size=5)
    table = result.verdicts()
    assert table["lens"].tolist() == ["accuracy", "pairs", "similarity", "bounds", "rvw"]
    html = result._repr_html_()
    assert all(v.split(" (")[0].replace("'", "&#x27;") in html for v in table["verdict"])
    assert result.test_set == "arc_easy" and "org/m4" in html
