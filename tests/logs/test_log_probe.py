"""The readers' findings of the first-time user's robustness probe: each case read right, or one
LogError line naming the file and what to do (no traceback, no run left out in silence). Each test
failed before its fix (the reading it names in its docstring)."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from logfiles import lcb_problem, lmeval_run, row

from holdout.logs import LogError, read_logs

needs_inspect = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai not installed: pip install 'holdout[logs]' (.ci/run installs it)",
)


def three_runs(folder: Path, n: int = 6) -> list[Path]:
    """Three models' lm-eval runs of one task (acc), models o/m0, o/m1, o/m2."""
    return [
        lmeval_run(folder / f"m{k}", "arc", [row(i, acc=float((i + k) % 3 == 0)) for i in range(n)], f"o/m{k}")
        for k in range(3)
    ]


def test_runs_read_with_different_metrics_or_filters_are_refused(tmp_path):
    """Was: one run's acc and another's acc_norm audited as one matrix."""
    lmeval_run(tmp_path / "a", "hellaswag", [row(i, acc=1) for i in range(4)], "a")
    lmeval_run(tmp_path / "b", "hellaswag", [row(i, acc_norm=0) for i in range(4)], "b")
    with pytest.raises(
        LogError,
        match=r"runs of hellaswag read with 2 different metrics or filters: acc \(1 run, .*acc_norm .*--metric$",
    ):
        read_logs(tmp_path)
    for k, flt in enumerate(["strict-match", "flexible-extract"]):
        lmeval_run(tmp_path / "g" / f"m{k}", "gsm8k", [row(i, flt, exact_match=1) for i in range(3)], f"m{k}")
    with pytest.raises(
        LogError,
        match=r"runs of gsm8k read with 2 different .*: exact_match / filter flexible-extract \(1 run, .*"
        r"exact_match / filter strict-match \(1 run, .*choose one with --filter$",
    ):
        read_logs(tmp_path / "g")


def test_a_path_given_twice_is_read_once(tmp_path):
    """Was: the same file or folder given twice counted as two runs (K doubled, a model vs itself)."""
    paths = three_runs(tmp_path / "logs")
    for given in ([paths[0], paths[0]], [tmp_path / "logs", tmp_path / "logs"], [tmp_path / "logs", paths[1]]):
        m = read_logs(given)
        assert m.shape[0] == (1 if given[0] == paths[0] else 3)
        assert any("given more than once" in n and "read once" in n for n in m.notes)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda t: t.encode("utf-16"), r"encoded as UTF-16, not UTF-8"),
        (
            lambda t: t.replace('"doc_id"', '"id"').encode(),
            r"line 1 is not an lm-eval samples row \(no doc_id; its keys: id",
        ),
        (lambda t: b'{"doc_id": 0, "doc": {"q"\n' + t.encode(), r"line 1 is not JSON"),
    ],
    ids=["utf16", "renamed-doc_id", "damaged-first-line"],
)
def test_a_damaged_samples_file_in_a_folder_is_named_not_left_out(tmp_path, damage, message):
    """Was: a UTF-16, renamed-doc_id or damaged-first-line samples_*.jsonl passed over with the
    aggregates, the audit going on without that model."""
    paths = three_runs(tmp_path / "logs")
    paths[1].write_bytes(damage(paths[1].read_text()))
    with pytest.raises(LogError, match=rf"^{paths[1]}: {message}.*; a per-item log in .*: rerun that evaluation"):
        read_logs(tmp_path / "logs")


def test_a_latin1_byte_is_one_line_naming_the_line(tmp_path):
    """Was: AttributeError ('UnicodeDecodeError' object has no attribute 'msg')."""
    path = three_runs(tmp_path)[0]
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"?"', b'"caf\xe9?"')
    path.write_bytes(b"".join(lines))
    with pytest.raises(LogError, match=rf"^{path}: line 2 is not UTF-8 \(byte 0xe9 at column \d+\); re-encode"):
        read_logs(path)


def test_a_compressed_run_among_plain_ones_is_named(tmp_path):
    """Was: the .gz run silently left out when plain runs were beside it."""
    paths = three_runs(tmp_path / "logs")
    paths[2].with_name(paths[2].name + ".gz").write_bytes(gzip.compress(paths[2].read_bytes()))
    paths[2].unlink()
    with pytest.raises(
        LogError, match=r"logs: 1 compressed log\(s\) among the others \(m2/samples_arc_.*gz\): decompress"
    ):
        read_logs(tmp_path / "logs")


def test_format_that_does_not_fit_the_files_says_which_format_they_are(tmp_path):
    """Was: --format helm on lm-eval files gave 'not JSON' or 'no evaluation log found', no hint."""
    paths = three_runs(tmp_path / "logs")
    with pytest.raises(
        LogError, match=rf"^{paths[0]}: --format helm, but this is an lm-eval log; give --format lm-eval"
    ):
        read_logs(paths[0], format="helm")
    with pytest.raises(
        LogError, match=r"no evaluation log found of format helm, but 3 lm-eval log\(s\): give --format lm-eval"
    ):
        read_logs(tmp_path / "logs", format="helm")


def test_results_files_only_say_rerun_with_log_samples(tmp_path):
    """Was: 'no evaluation log found', not naming the aggregates nor what to do."""
    for path in three_runs(tmp_path / "logs"):
        path.unlink()
    with pytest.raises(
        LogError,
        match=r"only 3 lm-eval results file\(s\) \(aggregates, e\.g\. results_.*rerun lm-eval with --log_samples",
    ):
        read_logs(tmp_path / "logs")


def test_livecodebench_graded_list_as_text(tmp_path):
    """Was: "False" read as a pass (bool of a non-empty string), every problem at 100%."""
    folder = tmp_path / "out" / "M"
    folder.mkdir(parents=True)
    problems = [lcb_problem("p1", "2024-01-01", [True, False]), lcb_problem("p2", "2024-01-02", [False, False])]
    for p in problems:
        p["graded_list"] = [str(g) for g in p["graded_list"]]
    path = folder / "codegeneration_2_0.2_eval_all.json"
    path.write_text(json.dumps(problems))
    assert read_logs(path).values.tolist() == [[0.5, 0.0]]
    problems[1]["graded_list"] = ["ok", "False"]
    path.write_text(json.dumps(problems))
    with pytest.raises(LogError, match=r"graded_list of problem 'p2' is 'ok', not a score"):
        read_logs(path)


def test_helm_null_mean_is_left_out_with_a_note(tmp_path):
    """Was: TypeError (float(None)) on a stat with "mean": null."""
    run = tmp_path / "mmlu:subject=x,model=org_m"
    run.mkdir()
    means = [1.0, None, 0.0, 1.0]
    stats = [
        {"instance_id": f"id{i}", "stats": [{"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": v}]}
        for i, v in enumerate(means)
    ]
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    m = read_logs(run)
    assert m.item_ids == ("id0", "id2", "id3") and m.values.tolist() == [[1.0, 0.0, 1.0]]
    assert any("1 instances with a null 'exact_match' left out (id1)" in n for n in m.notes)


def test_every_eval_ever_is_correct_as_text(tmp_path):
    """Was: ValueError traceback (float('false'))."""
    rows = [
        {
            "schema_version": "0.2.1",
            "model_id": "m",
            "evaluation_name": "t",
            "sample_id": f"s{i}",
            "evaluation": {"is_correct": v},
        }
        for i, v in enumerate(["true", "False", "TRUE", "0"])
    ]
    path = tmp_path / "x_samples.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert read_logs(path).values.tolist() == [[1.0, 0.0, 1.0, 0.0]]
    rows[2]["evaluation"]["is_correct"] = "maybe"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(LogError, match=rf"^{path}: evaluation.is_correct of sample 's2' is 'maybe', not a score"):
        read_logs(path)


def test_control_characters_in_names_never_reach_the_terminal_and_dollars_stay(tmp_path):
    """Was: an ANSI escape in model_name reached the terminal as it was."""
    lmeval_run(tmp_path / "a", "arc", [row(i, acc=i % 2) for i in range(4)], "\x1b[31mred\x1b[0m/model\x07")
    lmeval_run(tmp_path / "b", "arc", [row(i, acc=1) for i in range(4)], "cost-$5$-$x^2$", stamp="2025-02-02T00-00-00")
    m = read_logs(tmp_path)
    assert m.model_names == ("red/model\\x07", "cost-$5$-$x^2$")
    lmeval_run(tmp_path / "c", "arc", [row(i, acc=1) for i in range(5)] + [row(0, acc=1) | {"doc_id": "\x1b[2Jx"}], "c")
    assert "\x1b" not in " ".join(read_logs(tmp_path).notes)  # item ids in the notes too
    assert not any(c in "".join(m.model_names) for c in "\x1b\x07")


def _inspect_json(shared_data: Path, tmp_path: Path, edit) -> Path:  # noqa: ANN001
    log = json.loads((shared_data / "evallogs" / "inspect_fixtures" / "eee__data_arc_sonnet.json").read_text())
    edit(log)
    path = tmp_path / f"{edit.__name__}.json"  # a new name per edit: inspect_ai caches what it read
    path.write_text(json.dumps(log))
    return path


@needs_inspect
def test_inspect_words_correct_incorrect_are_read(shared_data, tmp_path):
    """Was: "correct" / "incorrect" read as 0 by inspect_ai's value_to_float (four models at 0%)."""
    words = ["correct", "incorrect", "Correct", "INCORRECT", "correct"]

    def edit(log: dict) -> None:
        for s, w in zip(log["samples"], words):
            s["scores"]["choice"]["value"] = w

    m = read_logs(_inspect_json(shared_data, tmp_path, edit))
    assert m.values.tolist() == [[1.0, 0.0, 1.0, 0.0, 1.0]]

    def bad(log: dict) -> None:
        log["samples"][1]["scores"]["choice"]["value"] = "almost"

    with pytest.raises(LogError, match=r"scorer 'choice' of item '2' is 'almost', not a score"):
        read_logs(_inspect_json(shared_data, tmp_path, bad))


@needs_inspect
def test_inspect_log_that_ended_in_error_says_so(shared_data, tmp_path):
    """Was: 'no scorer found' for a run that ended in error."""

    def edit(log: dict) -> None:
        samples = log.pop("samples")
        log.pop("results", None)
        log["status"] = "error"
        log["error"] = {"message": "RateLimitError: 429 Too Many Requests", "traceback": "", "traceback_ansi": ""}
        log["samples"] = samples  # after the header, as Inspect writes it
        for s in samples:
            s["scores"] = {}

    path = _inspect_json(shared_data, tmp_path, edit)
    with pytest.raises(
        LogError, match=rf"^{path}: the run ended in error \(RateLimitError: 429 Too Many Requests\) before"
    ):
        read_logs(path)


def test_item_order_and_config_columns_in_the_runs_table(tmp_path):
    """logs.csv carries each run's configuration and the keys that differ within its model."""
    for k, shots in enumerate([0, 5]):
        path = lmeval_run(
            tmp_path / f"r{k}", "arc", [row(i, acc=i % 2) for i in range(4)], "o/m", f"2025-0{k + 1}-01T00-00-00"
        )
        results = path.with_name(f"results_2025-0{k + 1}-01T00-00-00.json")
        data = json.loads(results.read_text()) | {"n-shot": {"arc": shots}, "lm_eval_version": "0.4.9"}
        results.write_text(json.dumps(data))
    m = read_logs(tmp_path)
    assert m.runs["config_differs"].tolist() == ["n_shot", "n_shot"]
    assert [json.loads(c)["n_shot"] for c in m.runs["config"]] == [0, 5]
    assert any("runs of o/m differ in configuration: n_shot" in n for n in m.notes)
    assert np.array_equal(m.values[0], m.values[1])
