"""Twenty more odd inputs of the readers' kind (damaged, odd, large, mixed), each read right or
refused in one LogError line naming the file and what to do."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from logfiles import lcb_problem, lmeval_run, row

from holdout.logs import LogError, read_logs


def _lines(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def crlf(tmp: Path):
    p = lmeval_run(tmp / "m", "arc", [row(i, acc=i % 2) for i in range(4)])
    p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    return p, [[0, 1, 0, 1]]


def utf8_bom(tmp: Path):
    p = lmeval_run(tmp / "m", "arc", [row(i, acc=1) for i in range(3)])
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    return tmp, [[1, 1, 1]]


def blank_lines(tmp: Path):
    p = lmeval_run(tmp / "m", "arc", [row(i, acc=i % 2) for i in range(3)])
    p.write_text(p.read_text().replace("\n", "\n  \n\n"))
    return p, [[0, 1, 0]]


def id_as_text_and_number(tmp: Path):
    return lmeval_run(tmp / "m", "arc", [row(0, acc=1), row(1, acc=0) | {"doc_id": "0"}]), r"item id '0' appears twice"


def nan_metric(tmp: Path):
    p = lmeval_run(tmp / "m", "arc", [row(0, acc=1), row(1, acc=0)])
    p.write_text(p.read_text().replace('"acc": 0', '"acc": NaN'))
    return p, r"metric 'acc' of item '1' is nan, not a score in \[0, 1\]"


def bool_metric(tmp: Path):
    return lmeval_run(tmp / "m", "arc", [row(0, acc=True), row(1, acc=False)]), [[1, 0]]


def null_metric(tmp: Path):
    return lmeval_run(tmp / "m", "arc", [row(0, acc=1), row(1, acc=None)]), r"metric 'acc' of doc_id 1 is NoneType"


def array_line(tmp: Path):
    p = lmeval_run(tmp / "m", "arc", [row(0, acc=1), row(1, acc=0)])
    p.write_text(p.read_text() + "[1, 2]\n")
    return p, r"line 3 is not an lm-eval samples row \(no doc_id\)"


def results_not_json(tmp: Path):
    p = lmeval_run(tmp / "org__model-x", "arc", [row(0, acc=1)])
    next(p.parent.glob("results_*.json")).write_text("{broken")
    return p, ("org/model-x", "results file .* is not JSON: the model named from the folder")


def disjoint_items(tmp: Path):
    lmeval_run(tmp / "a", "arc", [row(i, acc=1) for i in range(3)], "a")
    lmeval_run(tmp / "b", "arc", [row(i, acc=1) for i in range(3, 6)], "b")
    return tmp, r"the runs share no item id"


def unicode_ids_and_spaces(tmp: Path):
    rows = [{"schema_version": "0.3.0", "model_id": "m", "evaluation_name": "t", "sample_id": sid,
             "evaluation": {"is_correct": ok}} for sid, ok in (("问题 1", True), ("q 2 ", False))]  # fmt: skip
    folder = tmp / "dir [1] with * star"
    folder.mkdir()
    (folder / "x_samples.jsonl").write_text(_lines(rows), encoding="utf-8")
    return folder / "x_samples.jsonl", ("q 2 ", "问题 1")  # in natural order, spaces kept


def newline_in_model_name(tmp: Path):
    return lmeval_run(tmp / "m", "arc", [row(0, acc=1)], "org/evil\nname"), ("org/evil\\x0aname", None)


def long_model_name(tmp: Path):
    name = "org/" + "x" * 500
    return lmeval_run(tmp / "m", "arc", [row(0, acc=1)], name), (name, None)


def truncated_eval_zip(tmp: Path):
    p = tmp / "run.eval"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("header.json", "{}" * 5000)
    p.write_bytes(p.read_bytes()[:300])
    return p, r"run.eval: (not a readable Inspect log|an Inspect log; reading it needs the optional extra)"


def helm_empty_list(tmp: Path):
    (tmp / "r").mkdir()
    (tmp / "r" / "per_instance_stats.json").write_text("[]")
    return tmp / "r", r"per_instance_stats.json: no instances \(an empty run\)"


def helm_mean_as_text(tmp: Path):
    (tmp / "r").mkdir()
    stats = [{"instance_id": "i1", "stats": [{"name": {"name": "exact_match", "split": "test"}, "mean": "1"}]}]
    (tmp / "r" / "per_instance_stats.json").write_text(json.dumps(stats))
    return tmp / "r", r"stat 'exact_match' of instance 'i1' has mean '1'"


def eee_score_above_one(tmp: Path):
    rows = [{"schema_version": "0.3.0", "model_id": "m", "evaluation_name": "t", "sample_id": "a",
             "evaluation": {"score": 1.5}}]  # fmt: skip
    (tmp / "x_samples.jsonl").write_text(_lines(rows))
    return tmp / "x_samples.jsonl", r"evaluation.score of item 'a' is 1.5, not a score in \[0, 1\]"


def lcb_null_grade(tmp: Path):
    (tmp / "M").mkdir()
    problem = lcb_problem("p1", "2024-01-01", [True, False]) | {"graded_list": [True, None]}
    (tmp / "M" / "s_2_0.2_eval_all.json").write_text(json.dumps([problem]))
    return tmp / "M", r"graded_list of problem 'p1' is None, not a score"


def lcb_dict_not_list(tmp: Path):
    (tmp / "M").mkdir()
    p = tmp / "M" / "s_2_0.2_eval_all.json"
    p.write_text(json.dumps({"p1": lcb_problem("p1", "2024-01-01", [True])}))
    return p, r"not an evaluation log of a known format|no problems in this LiveCodeBench file"


def evalplus_missing_plus_status(tmp: Path):
    data = {"date": "2024-01-01 00:00", "hash": "h", "eval": {"HumanEval/0": [{"base_status": "pass"}]}}
    p = tmp / "org--m_vllm_temp_0.0_eval_results.json"
    p.write_text(json.dumps(data))
    return p, r"HumanEval/0.*has no plus_status"


def symlink_loop(tmp: Path):
    p = lmeval_run(tmp / "logs" / "m", "arc", [row(i, acc=1) for i in range(2)])
    (tmp / "logs" / "m" / "loop").symlink_to(tmp / "logs", target_is_directory=True)
    return tmp / "logs", [[1, 1]] if p else None


def many_rows(tmp: Path):
    n = 5_000
    rows = [row(i, acc=int(i % 7 == 0)) for i in range(n)]
    return lmeval_run(tmp / "m", "big", rows), [[float(i % 7 == 0) for i in range(n)]]


CASES: dict[str, Callable] = {f.__name__: f for f in [
    crlf, utf8_bom, blank_lines, id_as_text_and_number, nan_metric, bool_metric, null_metric, array_line,
    results_not_json, disjoint_items, unicode_ids_and_spaces, newline_in_model_name, long_model_name,
    truncated_eval_zip, helm_empty_list, helm_mean_as_text, eee_score_above_one, lcb_null_grade,
    lcb_dict_not_list, evalplus_missing_plus_status, symlink_loop, many_rows,
]}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_odd_input(tmp_path, case):
    given, expected = CASES[case](tmp_path)
    if isinstance(expected, str):
        with pytest.raises(LogError, match=expected) as err:
            read_logs(given)
        assert "\n" not in str(err.value) and "Traceback" not in str(err.value)
        return
    m = read_logs(given)
    if isinstance(expected, list):
        assert np.array_equal(m.values, np.asarray(expected, dtype=float))
    elif isinstance(expected[1], str) and expected[0].startswith("org/"):
        assert m.model_names == (expected[0],) and any(__import__("re").search(expected[1], n) for n in m.notes)
    elif expected[1] is None:
        assert m.model_names == (expected[0],)
    else:
        assert m.item_ids == expected
