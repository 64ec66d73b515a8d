"""Bad input and the choices the readers refuse to guess (synthetic files, written here): each is
one LogError line naming the file or option, and what to do."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from logfiles import lcb_problem, lmeval_run, row

from holdout.logs import LogError, Selection, read_livecodebench, read_lmeval, read_logs


def test_two_filters_list_the_choices_and_each_reads_n_rows(tmp_path):
    """gsm8k-like: two filters, so 2 x n rows; no --filter is one line listing both."""
    rows = [
        row(i, f, exact_match=float((i + k) % 2))
        for k, f in enumerate(["strict-match", "flexible-extract"])
        for i in range(7)
    ]
    path = lmeval_run(tmp_path / "m", "gsm8k", rows)
    with pytest.raises(LogError, match=r"2 filters \(flexible-extract, strict-match\): choose one with --filter"):
        read_lmeval(path)
    strict = read_lmeval(path, Selection(filter="strict-match"))[0]
    flexible = read_lmeval(path, Selection(filter="flexible-extract"))[0]
    assert len(strict.item_ids) == len(flexible.item_ids) == 7
    assert strict.scores.sum() == 3 and flexible.scores.sum() == 4
    assert strict.model == "org/model" and strict.date == "2025-01-02T03:04:05" and strict.task == "gsm8k"


def test_two_metrics_list_the_choices(tmp_path):
    path = lmeval_run(tmp_path / "m", "hellaswag", [row(i, acc=1, acc_norm=0) for i in range(3)])
    with pytest.raises(LogError, match=r"2 metrics \(acc, acc_norm\): choose one with --metric"):
        read_lmeval(path)
    assert read_lmeval(path, Selection(metric="acc_norm"))[0].scores.tolist() == [0, 0, 0]
    with pytest.raises(LogError, match=r"no metric 'f1' here; choose --metric from: acc, acc_norm"):
        read_lmeval(path, Selection(metric="f1"))


def test_duplicate_ids_name_the_id_and_the_file(tmp_path):
    path = lmeval_run(tmp_path / "m", "arc", [row(0, acc=1), row(1, acc=0), row(1, acc=1)])
    with pytest.raises(LogError, match=rf"{path}: item id '1' appears twice under filter 'none'"):
        read_logs(path)


def test_mixed_tasks_are_refused_and_task_chooses(tmp_path):
    for model in ("a", "b"):
        lmeval_run(tmp_path / model, "arc", [row(i, acc=i % 2) for i in range(4)], model=model)
        lmeval_run(tmp_path / model, "mmlu", [row(i, acc=1) for i in range(5)], model=model)
    with pytest.raises(
        LogError,
        match=r"runs of 2 tasks: arc \(2 runs, e\.g\. .*/a/samples_arc_.*\), "
        r"mmlu \(2 runs, e\.g\. .*\); choose one with --task",
    ):
        read_logs(tmp_path)
    assert read_logs(tmp_path, task="mmlu").shape == (2, 5)
    with pytest.raises(LogError, match="no run of task 'gsm8k' among the 4 logs found"):
        read_logs(tmp_path, task="gsm8k")


def test_missing_items_dropped_with_a_count_or_refused_with_strict(tmp_path):
    lmeval_run(tmp_path / "a", "arc", [row(i, acc=1) for i in range(10)], model="a")
    lmeval_run(tmp_path / "b", "arc", [row(i, acc=0) for i in range(8)], model="b")
    m = read_logs(tmp_path)
    assert m.shape == (2, 8) and m.item_ids == tuple(str(i) for i in range(8))
    assert any(n.startswith("dropped 2 items not scored in every run (first: 8, 9;") for n in m.notes)
    with pytest.raises(LogError, match=r"2 items not scored in every run .*: --strict refuses to drop them"):
        read_logs(tmp_path, strict=True)


def test_model_names_override_and_count(tmp_path):
    lmeval_run(tmp_path / "a", "arc", [row(i, acc=1) for i in range(3)], model="a")
    lmeval_run(tmp_path / "b", "arc", [row(i, acc=0) for i in range(3)], model="b")
    assert read_logs(tmp_path, model_names=["x", "y"]).model_names == ("x", "y")
    with pytest.raises(LogError, match=r"--model-names: 1 names for 2 runs \(a, b\)"):
        read_logs(tmp_path, model_names=["x"])


def test_corpus_level_metric_and_out_of_range_scores(tmp_path):
    path = lmeval_run(tmp_path / "m", "wmt", [row(0, bleu=["ref", "hyp"])])
    with pytest.raises(LogError, match=r"metric 'bleu' of doc_id 0 is list, not a number \(a corpus-level metric"):
        read_lmeval(path)
    path = lmeval_run(tmp_path / "p", "wikitext", [row(0, word_perplexity=37.5)])
    with pytest.raises(LogError, match=r"metric 'word_perplexity' of item '0' is 37.5, not a score in \[0, 1\]"):
        read_lmeval(path)


def test_unreadable_empty_and_cut_short_files(tmp_path):
    empty = tmp_path / "samples_arc_2025-01-01T00-00-00.jsonl"
    empty.write_text("")
    with pytest.raises(LogError, match=rf"{empty}: empty file \(no run in it\)"):
        read_logs(empty)
    cut = lmeval_run(tmp_path / "c", "arc", [row(0, acc=1)])
    cut.write_text(cut.read_text() + '{"doc_id": 1, "doc": {"q": "unfinis')
    with pytest.raises(LogError, match=rf"{cut}: line 2 is not JSON .*is the file cut short\?"):
        read_logs(cut)
    binary = tmp_path / "run.eval"
    binary.write_bytes(b"\x00\x01garbage")
    with pytest.raises(LogError, match=rf"{binary}: not an evaluation log of a known format"):
        read_logs(binary)
    with pytest.raises(LogError, match=r"nowhere/\*.jsonl: no file matches this pattern"):
        read_logs(str(tmp_path / "nowhere" / "*.jsonl"))
    with pytest.raises(LogError, match="--format csv: unknown; choose from lm-eval, inspect"):
        read_logs(tmp_path, format="csv")


def test_format_override_reads_a_renamed_file(tmp_path):
    path = lmeval_run(tmp_path / "org__model", "arc", [row(i, acc=i % 2) for i in range(4)])
    renamed = path.rename(tmp_path / "org__model" / "my_run.jsonl")
    m = read_logs(renamed, format="lm-eval")
    assert m.shape == (1, 4) and m.model_names == ("org/model",) and m.runs["task"].iloc[0] == "my_run"


def test_missing_inspect_extra_is_one_line_naming_the_extra(tmp_path, monkeypatch, shared_data):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    log = shared_data / "evallogs" / "inspect_fixtures" / "inspect_ai__log_formats.json"
    with pytest.raises(LogError) as err:
        read_logs(log)
    assert str(err.value) == (
        f"{log}: an Inspect log; reading it needs the optional extra logs: "
        "pip install 'holdout[logs]' (or: pip install inspect-ai)"
    )


def test_livecodebench_pass_rates_and_contest_dates(tmp_path):
    """No real _eval_all.json is in the mirror (LiveCodeBench is not on PyPI): the layout of
    lcb_runner's insert_output_evaluation, written here."""
    for model, graded in (("ModelA", [True, False]), ("ModelB", [False, False])):
        folder = tmp_path / "output" / model
        folder.mkdir(parents=True)
        problems = [
            lcb_problem("p1", "2023-05-07", [True, graded[0]]),
            lcb_problem("p2", "2024-02-10", [graded[1]] * 2),
        ]
        (folder / "Scenario.codegeneration_2_0.2_eval_all.json").write_text(json.dumps(problems))
    m = read_logs(tmp_path / "output")
    assert m.shape == (2, 2) and m.samples == 2 and m.model_names == ("ModelA", "ModelB")
    assert m.values.tolist() == [[1.0, 0.0], [0.5, 0.0]]
    assert m.item_dates.tolist() == np.array(["2023-05-07", "2024-02-10"], dtype="datetime64[D]").tolist()
    assert m.runs["task"].iloc[0] == "Scenario.codegeneration_2_0.2" and m.runs["format"].iloc[0] == "livecodebench"
    bad = tmp_path / "output" / "ModelA" / "Scenario.codegeneration_2_0.2_eval_all.json"
    bad.write_text(json.dumps([lcb_problem("p1", "2023-05-07", [True]), lcb_problem("p1", "2023-05-07", [False])]))
    with pytest.raises(LogError, match=r"item id 'p1' appears twice"):
        read_livecodebench(bad)


def test_empty_per_item_log_in_a_folder_is_refused_not_left_out(tmp_path):
    """Was: an empty samples_*.jsonl (a run cut short) passed over with the results files, the audit
    going on with one model fewer."""
    for k in range(3):
        lmeval_run(tmp_path / "logs" / f"m{k}", "arc", [row(i, acc=float((i + k) % 2)) for i in range(5)], f"o/m{k}")
    empty = next((tmp_path / "logs" / "m1").glob("samples_*.jsonl"))
    empty.write_text("")
    with pytest.raises(LogError, match=rf"^{empty}: empty file \(no run in it\); a per-item log in .*: rerun that"):
        read_logs([tmp_path / "logs"])


def test_gzipped_logs_are_named(tmp_path):
    import gzip

    path = lmeval_run(tmp_path / "logs" / "m", "arc", [row(i, acc=1.0) for i in range(3)])
    path.with_name(path.name + ".gz").write_bytes(gzip.compress(path.read_bytes()))
    path.unlink()
    with pytest.raises(LogError, match=r"no evaluation log found \(1 \.gz file\(s\): decompress them first"):
        read_logs([tmp_path / "logs"])
