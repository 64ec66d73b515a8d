"""The log readers on the real files of the mirror (evallogs/, each folder's PROVENANCE.md): K, n
and every run's accuracy, each computed here again from the raw JSON (not by the reader)."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from holdout.logs import LogError, detect_format, read_logs

needs_inspect = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None,
    reason="inspect_ai not installed: pip install 'holdout[logs]' (.ci/run installs it)",
)


@pytest.fixture(scope="module")
def logs(shared_data: Path) -> Path:
    return shared_data / "evallogs"


def _accuracies(m) -> dict[str, float]:
    return dict(zip(m.runs["name"], m.runs["accuracy"]))


def test_helm_bbq_nine_models_by_hundred(logs):
    """9 x 100, exact_match per instance; PROVENANCE.md: 0.93, 0.93, 0.94, 0.29, 0.74, 0.92, 0.91, 0.95, 0.95."""
    m = read_logs(logs / "helm_safety_bbq")
    expected = {}
    for stats in sorted((logs / "helm_safety_bbq").rglob("per_instance_stats.json")):
        model = json.loads(stats.with_name("run_spec.json").read_text())["adapter_spec"]["model"]
        raw = json.loads(stats.read_text())
        em = [s["mean"] for e in raw for s in e["stats"] if s["name"]["name"] == "exact_match"]
        expected[model] = float(np.mean(em))
    assert m.shape == (9, 100) and m.binary
    assert _accuracies(m) == pytest.approx(expected, abs=1e-12)
    assert [round(a, 2) for a in m.runs["accuracy"]] == [0.93, 0.93, 0.94, 0.29, 0.74, 0.92, 0.91, 0.95, 0.95]
    assert m.runs["task"].iloc[0] == "bbq:subject=all,method=multiple_choice_joint"


@needs_inspect
def test_inspect_starsim_six_runs_of_five_models(logs):
    """6 x 23 (.eval zips read here with zipfile); the two sonnet runs kept apart by date;
    PROVENANCE.md means 0.478, 0.696, 0.304, 0.174, 0.391, 0.348."""
    m = read_logs(logs / "inspect_starsim")
    expected = []
    for f in sorted((logs / "inspect_starsim" / "logs").glob("*.eval")):
        with zipfile.ZipFile(f) as z:
            model = json.loads(z.read("header.json"))["eval"]["model"]
            values = [
                json.loads(z.read(n))["scores"]["starsim_scorer"]["value"]
                for n in z.namelist()
                if n.startswith("samples/")
            ]
        expected.append((model, len(values), float(np.mean(values))))
    assert m.shape == (6, 23)
    assert list(m.runs["model"]) == [e[0] for e in expected]
    assert m.runs["accuracy"].to_numpy() == pytest.approx([e[2] for e in expected], abs=1e-12)
    assert [round(a, 3) for a in m.runs["accuracy"]] == [0.478, 0.696, 0.304, 0.174, 0.391, 0.348]
    sonnet = [n for n in m.model_names if n.startswith("anthropic/claude-sonnet-4-6@")]
    assert sonnet == [
        "anthropic/claude-sonnet-4-6@2026-02-20T05:22:33",
        "anthropic/claude-sonnet-4-6@2026-02-25T18:43:09",
    ]
    assert any("2 runs of anthropic/claude-sonnet-4-6, kept apart" in n for n in m.notes)


@needs_inspect
def test_inspect_json_logs_letters_and_a_cancelled_run(logs):
    """ARC-Easy: 2 models share ids 1-3 (qwen C, I, I; sonnet all C); popularity: a cancelled log is said so."""
    arc = read_logs(logs / "inspect_fixtures", task="inspect_evals/arc_easy")
    assert arc.shape == (2, 3) and arc.item_ids == ("1", "2", "3")
    assert _accuracies(arc) == pytest.approx({"ollama/qwen2.5:0.5b": 1 / 3, "anthropic/claude-sonnet-4-0": 1.0})
    assert any("2 items not scored in every run" in n for n in arc.notes)
    pop = read_logs(logs / "inspect_fixtures", task="popularity")
    assert pop.shape == (4, 1) and any("status is 'cancelled'" in n for n in pop.notes)


@pytest.mark.parametrize("dataset, n", [("humaneval", 164), ("mbpp", 378)])
def test_evalplus_plus_and_base_pass_rates(logs, dataset, n):
    """6 models; plus = base and plus tests pass (PROVENANCE.md: HumanEval+ 0.238 ... 0.305)."""
    folder = logs / "evalplus_eval_results" / "inferenced_output" / dataset
    plus, base = read_logs(folder), read_logs(folder, metric="base")
    assert plus.shape == base.shape == (6, n)
    for f, acc_plus, acc_base in zip(sorted(folder.glob("*.json")), plus.runs["accuracy"], base.runs["accuracy"]):
        ev = json.loads(f.read_text())["eval"]
        assert acc_plus == pytest.approx(
            np.mean([s[0]["base_status"] == s[0]["plus_status"] == "pass" for s in ev.values()])
        )
        assert acc_base == pytest.approx(np.mean([s[0]["base_status"] == "pass" for s in ev.values()]))
    assert (plus.values <= base.values).all()
    if dataset == "humaneval":
        got = dict(zip(plus.runs["model"], plus.runs["accuracy"].round(3)))
        assert got["meta-llama/Meta-Llama-3-8B"] == 0.238 and got["meta-llama/Meta-Llama-3-8B-Instruct"] == 0.573


def test_lmeval_old_layout_three_runs_of_one_model(logs):
    """No filter / metrics keys (metric = the numeric key acc); 3 runs x 50, acc 0.92 each; the two
    byte-identical files are named as such."""
    m = read_logs(logs / "lmeval_asdiv_llama3")
    assert m.shape == (3, 50) and m.item_ids[:3] == ("0", "1", "2")
    for path, acc in zip(m.runs["source"], m.runs["accuracy"]):
        rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
        assert acc == pytest.approx(np.mean([r["acc"] for r in rows])) == pytest.approx(0.92)
    assert set(m.runs["metric"]) == {"acc"} and set(m.runs["filter"]) == {"none"}
    assert len(set(m.model_names)) == 3 and all(
        n.startswith("meta-llama/Meta-Llama-3-8B-Instruct@") for n in m.model_names
    )
    assert any("byte-identical" in n for n in m.notes)


def test_lmeval_new_layout_model_from_results_file(logs):
    m = read_logs(logs / "lmeval_eee_fixture")
    assert m.shape == (1, 10) and m.model_names == (
        "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1",
    )
    assert m.runs["metric"].iloc[0] == "exact_match" and m.runs["task"].iloc[0] == "math_perturbed_full"
    assert (m.values == 0).all()
    # published as a test fixture: the results file counts 5,000 samples, the samples file keeps 10 rows
    assert any("its results file counts 5000 samples of math_perturbed_full, the file has 10" in n for n in m.notes)


def test_every_eval_ever_equals_the_helm_run_it_was_converted_from(logs):
    """EEE's HELM converter output (eee_instance_level/) against the HELM fixture run it came from."""
    for task, helm_task in [
        ("mmlu", "mmlu:subject=philosophy,method=multiple_choice_joint"),
        ("hellaswag", "commonsense:dataset=hellaswag,method=multiple_choice_joint"),
    ]:
        eee, helm = (
            read_logs(logs / "eee_instance_level", task=task),
            read_logs(logs / "helm_eee_fixture", task=helm_task),
        )
        assert eee.shape == helm.shape == (1, 10)
        assert eee.item_ids == helm.item_ids and (eee.values == helm.values).all()
        assert eee.fingerprint == helm.fingerprint
    # the HELM mmlu run scores 9 test instances and 1 valid one; both splits are read, and said so
    mmlu = read_logs(logs / "helm_eee_fixture", task="mmlu:subject=philosophy,method=multiple_choice_joint")
    assert mmlu.runs["filter"].iloc[0] == "test+valid" and any("splits test+valid" in n for n in mmlu.notes)
    assert read_logs(
        logs / "helm_eee_fixture", task=helm_task.replace("hellaswag", "hellaswag"), filter="valid"
    ).shape == (1, 10)


def test_detection_by_content(logs):
    cases = {
        "helm_safety_bbq/runs/v4": None,
        "lmeval_eee_fixture/samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl": "lm-eval",
        "eee_instance_level/mmlu__openai__gpt2__None_samples.jsonl": "eee",
        "inspect_fixtures/eee__data_arc_qwen.json": "inspect",
        "inspect_fixtures/inspect_ai__log_read_sample.eval": "inspect",
        "evalplus_eval_results/inferenced_output/mbpp/"
        "meta-llama--Meta-Llama-3-8B_vllm_temp_0.0-sanitized_eval_results.json": "evalplus",
    }
    for rel, fmt in cases.items():
        if fmt:
            assert detect_format(logs / rel) == fmt, rel
    run = next((logs / "helm_safety_bbq").rglob("per_instance_stats.json"))
    assert detect_format(run) == detect_format(run.parent) == "helm"


def test_files_without_per_item_scores_name_where_they_are(logs):
    pointer = logs / "lmeval_results_devquasar/meta-llama__Llama-3.1-8B-Instruct"
    pointer = next(pointer.glob("*.LFS-POINTER"))
    with pytest.raises(LogError, match=r"Git LFS pointer, not the data \(fetch it with `git lfs pull`\)"):
        read_logs(pointer)
    results = next((logs / "lmeval_results_devquasar").rglob("results_*.json"))
    with pytest.raises(LogError, match=r"lm-eval results file \(aggregates\): the per-item scores are in samples_"):
        read_logs(results)
    with pytest.raises(
        LogError, match=r"no evaluation log found, only 3 lm-eval results file\(s\) .*rerun lm-eval with --log_samples"
    ):
        read_logs(logs / "lmeval_results_devquasar")  # aggregates and an LFS pointer only
    with pytest.raises(LogError, match="HELM run_spec.json"):
        read_logs(next((logs / "helm_safety_bbq").rglob("run_spec.json")))


@needs_inspect
@pytest.mark.slow  # an Inspect evaluation (no model call): about 5 s
def test_inspect_epochs_give_pass_rates_on_a_log_written_by_inspect(tmp_path):
    """A log written here by inspect_ai itself (mockllm, answers set by a solver, 3 epochs): each
    item's score is its mean over the epochs, a multiple of 1/3, as read here from the .eval zip."""
    import random

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import includes
    from inspect_ai.solver import solver

    @solver
    def answer():
        rng = random.Random(0)

        async def solve(state, generate):
            state.output = ModelOutput.from_content("mockllm/model", "yes" if rng.random() < 0.5 else "no")
            return state

        return solve

    samples = [Sample(input=f"q{i}", target="yes", id=f"item{i}") for i in range(8)]
    task = Task(dataset=samples, solver=answer(), scorer=includes(), name="tiny")
    log = eval(task, model="mockllm/model", epochs=3, log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    m = read_logs(tmp_path)
    with zipfile.ZipFile(next(tmp_path.glob("*.eval"))) as z:
        per_item: dict[str, list[float]] = {}
        for name in z.namelist():
            if name.startswith("samples/"):
                s = json.loads(z.read(name))
                per_item.setdefault(str(s["id"]), []).append(1.0 if s["scores"]["includes"]["value"] == "C" else 0.0)
    assert m.shape == (1, 8) and m.samples == 3 and m.model_names == ("mockllm/model",)
    assert m.values[0].tolist() == [np.mean(per_item[i]) for i in m.item_ids]
    assert set(m.values[0] * 3) <= {0.0, 1.0, 2.0, 3.0}
