"""The optional fields the item lenses read (answers, keys, item text, item fields, run config),
each checked against the raw file read here again, or against a file written here the way the
harness writes it; and the two functions on them (cluster labels, configuration differences)."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from logfiles import lmeval_run

from holdout.logs import LogError, cluster_labels, config_differences, read_helm, read_lmeval, read_logs

needs_inspect = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai not installed: pip install 'holdout[logs]' (.ci/run installs it)",
)


@pytest.fixture(scope="module")
def logs(shared_data: Path) -> Path:
    return shared_data / "evallogs"


def mc_row(doc_id: int, lls: list[float], target: object, subject: str, acc: int) -> dict:
    """A multiple-choice samples row as lm-eval 0.4 writes it (one request per choice)."""
    choices = ["Paris", "  Lyon ", "Nice"]
    return {
        "doc_id": doc_id,
        "doc": {"question": f"Capital  of\nFrance #{doc_id}?", "choices": choices, "subject": subject, "answer": 0},
        "target": target,
        "arguments": {f"gen_args_{j}": {"arg_0": "Q: ...", "arg_1": f" {c.strip()}"} for j, c in enumerate(choices)},
        "resps": [[[ll, "False"]] for ll in lls],
        "filtered_resps": [[ll, "False"] for ll in lls],
        "filter": "none",
        "metrics": ["acc"],
        "acc": acc,
    }


def test_lmeval_multiple_choice_answer_is_the_argmax_and_keys_compare(tmp_path):
    rows = [
        mc_row(0, [-0.2, -1.5, -3.0], 0, "geo", 1),
        mc_row(1, [-2.0, -0.1, -0.9], 0, "geo", 0),
        mc_row(2, [-2.0, -1.1, -0.3], "Nice", "hist", 1),  # target given as the choice's text
        mc_row(3, [-2.0, -0.1, -0.3], "B", "hist", 1),  # target given as a letter
    ]
    run = read_lmeval(lmeval_run(tmp_path / "m", "capitals", rows))[0]
    assert run.answers == ("0", "1", "2", "1")
    assert run.keys == ("0", "0", "2", "1")
    assert [a == k for a, k in zip(run.answers, run.keys)] == [bool(r["acc"]) for r in rows]
    assert run.item_text[0] == "capital of france #0? | paris | lyon | nice"  # the doc's answer field left out
    assert run.item_fields["subject"] == ("geo", "geo", "hist", "hist")
    repeats = mc_row(0, [], "42", "x", 1) | {"filtered_resps": [[" 42 ", "41"]]}  # a generative task with repeats
    assert read_lmeval(lmeval_run(tmp_path / "r", "gen", [repeats]))[0].answers == ("42",)


def test_lmeval_generative_answer_is_the_filtered_response(logs):
    """math_perturbed_full (generate_until): answers are filtered_resps[0], keys the target."""
    path = next((logs / "lmeval_eee_fixture").glob("samples_*.jsonl"))
    raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    run = read_lmeval(path)[0]
    assert run.answers == tuple(r["filtered_resps"][0].strip() for r in raw)
    assert run.keys == tuple(str(r["target"]) for r in raw)
    assert run.item_fields["type"] == tuple(r["doc"]["type"] for r in raw)
    assert "solution" not in run.item_fields  # long text is not a cluster label
    assert run.config["n_shot"] == 0 and run.config["lm_eval_version"] == "0.4.9.2"
    assert run.config["generation_kwargs"]["temperature"] == 0.0


def test_lmeval_single_loglikelihood_has_no_answer(logs):
    """asdiv (loglikelihood of one continuation): no choice is made, so no answers; keys are targets."""
    m = read_logs(logs / "lmeval_asdiv_llama3")
    assert m.answers is None and m.keys is not None and m.item_fields is not None
    assert "solution_type" in m.item_fields and "body" not in m.item_fields  # body: text over 100 characters


def test_lmeval_asdiv_runs_differ_in_batch_size_only(logs):
    """The three asdiv runs' results files differ in config.batch_size (and times) only."""
    m = read_logs(logs / "lmeval_asdiv_llama3")
    sizes = [
        json.loads(
            Path(s).with_name("results_" + Path(s).name.split("_", 2)[2].replace(".jsonl", ".json")).read_text()
        )["config"]["batch_size"]
        for s in m.runs["source"]
    ]
    diff = config_differences(m)
    assert diff["key"].tolist() == ["batch_size"] and sorted(sizes) == ["1", "1", "8"]
    assert diff["values"].iloc[0] == " | ".join(json.dumps(b) for b in sizes)


def test_every_eval_ever_answers_match_is_correct(logs):
    """mmlu and hellaswag (converted from HELM): the extracted letter equals the key's letter
    exactly where is_correct is true (10 items each: 1 and 3 correct)."""
    for name, n_right in (
        ("mmlu__openai__gpt2__None_samples.jsonl", 1),
        ("hellaswag__eleutherai__pythia-1b-v0__None_samples.jsonl", 3),
    ):
        path = logs / "eee_instance_level" / name
        raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        m = read_logs(path)
        same = m.answers[0] == np.asarray(m.keys, dtype=object)
        assert same.sum() == n_right == sum(r["evaluation"]["is_correct"] for r in raw)
        assert m.values[0].tolist() == same.astype(float).tolist()


@needs_inspect
@pytest.mark.slow  # over a second of the fast loop; the lines it checks stay covered by fast tests beside it
def test_inspect_answers_keys_text_and_metadata(logs):
    m = read_logs(logs / "inspect_fixtures", task="inspect_evals/arc_easy")
    raw = {}
    for f in ("eee__data_arc_qwen.json", "eee__data_arc_sonnet.json"):
        log = json.loads((logs / "inspect_fixtures" / f).read_text())
        raw[log["eval"]["model"]] = {str(s["id"]): s for s in log["samples"]}
    for k, model in enumerate(m.runs["model"]):
        samples = [raw[model][i] for i in m.item_ids]
        assert list(m.answers[k]) == [s["scores"]["choice"]["answer"] for s in samples]
    first = [raw[m.runs["model"].iloc[0]][i] for i in m.item_ids]
    assert m.keys == tuple(s["target"] for s in first)
    assert m.item_text[0].startswith(" ".join(first[0]["input"].lower().split()))
    pop = read_logs(logs / "inspect_fixtures" / "inspect_ai__log_formats.json")
    assert pop.item_fields == {"label_confidence": ("0.8860552919198255",)}


@needs_inspect
def test_inspect_starsim_cluster_labels_and_config_drift(logs):
    """starsim: problem_id per sample (23 sub-steps of 6 problems); the two sonnet runs used source
    revisions 8d7c90b and a3e73ba (the headers, read here with zipfile)."""
    m = read_logs(logs / "inspect_starsim")
    labels = cluster_labels(m, "problem_id")
    assert len(set(labels)) == 6 and labels.shape == (23,)
    assert all(item.startswith(label + ".") for item, label in zip(m.item_ids, labels))
    with pytest.raises(
        LogError, match=r"--cluster-by topic: no such per-item field .*available: problem_id, sub_step_id"
    ):
        cluster_labels(m, "topic")
    revisions = []
    for f in sorted((logs / "inspect_starsim" / "logs").glob("*.eval")):
        with zipfile.ZipFile(f) as z:
            header = json.loads(z.read("header.json"))
        if header["eval"]["model"] == "anthropic/claude-sonnet-4-6":
            revisions.append(header["eval"]["revision"]["commit"])
    diff = config_differences(m)
    assert set(diff["model"]) == {"anthropic/claude-sonnet-4-6"}
    row = diff.set_index("key").loc["revision"]
    assert row["values"] == " | ".join(json.dumps(r) for r in revisions) and sorted(revisions) == ["8d7c90b", "a3e73ba"]
    assert any("runs of anthropic/claude-sonnet-4-6 differ in configuration: revision" in n for n in m.notes)
    flagged = m.runs.set_index("name")["config_differs"]
    assert flagged.str.contains("revision").sum() == 2


def test_no_fields_where_the_format_has_none(logs):
    """HELM per-instance stats alone, EvalPlus: no answers, keys, text; configuration still read."""
    helm = read_logs(logs / "helm_safety_bbq")
    assert helm.answers is None and helm.keys is None and helm.item_text is None and helm.item_fields is None
    assert {c["method"] for c in helm.configs} == {"multiple_choice_joint"}
    assert config_differences(helm).empty
    with pytest.raises(LogError, match="--cluster-by split: no such per-item field in these logs; available: none"):
        cluster_labels(helm, "split")


def test_helm_answers_from_the_files_beside_the_stats(tmp_path):
    """scenario_state.json (answers through output_mapping, keys, text) and display_predictions.json."""
    run = tmp_path / "mmlu:subject=x,method=multiple_choice_joint,model=org_m"
    run.mkdir()
    stats = [
        {
            "instance_id": f"id{i}",
            "train_trial_index": 0,
            "stats": [{"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": float(i == 1)}],
        }
        for i in range(2)
    ]
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    (run / "run_spec.json").write_text(
        json.dumps({"name": run.name, "adapter_spec": {"model": "org/m", "temperature": 0.0}})
    )
    refs = [{"output": {"text": "Cat"}, "tags": []}, {"output": {"text": "Dog"}, "tags": ["correct"]}]
    states = [
        {
            "instance": {
                "id": f"id{i}",
                "split": "test",
                "sub_split": f"s{i}",
                "input": {"text": f"Which  PET {i}?"},
                "references": refs,
            },
            "train_trial_index": 0,
            "output_mapping": {"A": "Cat", "B": "Dog"},
            "result": {"completions": [{"text": " A" if i == 0 else " B"}]},
        }
        for i in range(2)
    ]
    (run / "scenario_state.json").write_text(json.dumps({"request_states": states}))
    r = read_helm(run)[0]
    assert r.answers == ("Cat", "Dog") and r.keys == ("Dog", "Dog")
    assert [a == k for a, k in zip(r.answers, r.keys)] == r.scores.astype(bool).tolist()
    assert r.item_text == ("which pet 0? | cat | dog", "which pet 1? | cat | dog")
    assert r.item_fields == {"split": ("test", "test"), "sub_split": ("s0", "s1")}
    assert r.config == {"temperature": 0.0}
    (run / "display_predictions.json").write_text(
        json.dumps([{"instance_id": "id0", "train_trial_index": 0, "predicted_text": " B", "mapped_output": "Dog"}])
    )
    assert read_helm(run)[0].answers == ("Dog", "Dog")


def test_aligned_answers_follow_the_matrix_columns(tmp_path):
    """Two runs with items in different orders and one dropped: answers K x n on the kept columns."""
    a = [mc_row(i, [-0.1, -1.0, -2.0] if i % 2 else [-2.0, -1.0, -0.1], 0, "geo", int(i % 2 == 1)) for i in range(4)]
    b = [mc_row(i, [-1.0, -0.1, -2.0], 0, "hist" if i == 3 else "geo", 0) for i in (3, 2, 1)]
    lmeval_run(tmp_path / "a", "capitals", a, model="a")
    lmeval_run(tmp_path / "b", "capitals", b, model="b", stamp="2025-01-03T03-04-05.678901")
    m = read_logs(tmp_path)
    assert m.item_ids == ("1", "2", "3")
    assert m.answers.tolist() == [["0", "2", "0"], ["1", "1", "1"]]
    assert m.keys == ("0", "0", "0")
    assert cluster_labels(m, "subject").tolist() == ["geo", "geo", "geo"]  # the first run's value


def test_a_field_some_items_lack_and_keys_that_differ_between_runs(tmp_path):
    rows = [mc_row(i, [-0.1, -1.0, -2.0], 0, "geo", 1) for i in range(3)]
    del rows[1]["doc"]["subject"]
    lmeval_run(tmp_path / "a", "capitals", rows, model="a")
    other = [mc_row(i, [-0.1, -1.0, -2.0], 1 if i == 2 else 0, "geo", int(i != 2)) for i in range(3)]
    del other[1]["doc"]["subject"]
    lmeval_run(tmp_path / "b", "capitals", other, model="b", stamp="2025-01-03T03-04-05.678901")
    m = read_logs(tmp_path)
    with pytest.raises(LogError, match=r"--cluster-by subject: 1 of 3 items have no subject \(first: 1\); choose"):
        cluster_labels(m, "subject")
    assert m.keys == ("0", "0", "0")
    assert any("the runs' answer keys differ on 1 items (first: 2); keys from the first run" in n for n in m.notes)
