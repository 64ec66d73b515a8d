"""``holdout compare``: the three decisions as exit codes on shipped evaluation logs (the command of
the documented GitHub Actions step), the numbers against the library, the decision rule, the reuse
bound against holdout.bounds, and one-line errors."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from holdout.bounds import corollary4, union_bound_probability
from holdout.commands.compare import decide, main, reuse_bounds
from holdout.stats import mcnemar, newcombe_paired_ci

REPO = Path(__file__).resolve().parents[2]
LMEVAL = "evallogs/lmeval_asdiv_llama3/results/{}/meta-llama__Meta-Llama-3-8B-Instruct/samples_asdiv_{}.jsonl"
HELM = "evallogs/helm_safety_bbq/runs/v4/bbq:subject=all,method=multiple_choice_joint,model={}"
ASDIV_BASE = LMEVAL.format("asdiv_cot", "2024-08-21T03-40-10.802679")
ASDIV_CANDIDATE = LMEVAL.format("asdiv", "2024-08-21T03-44-09.494230")
SONNET, TURBO = HELM.format("anthropic_claude-3-5-sonnet-20240620"), HELM.format("openai_gpt-4-turbo-2024-04-09")


def _documented_command() -> list[str]:
    """The `holdout compare` line of the GitHub Actions step in docs/statistics.md."""
    page = (REPO / "docs" / "statistics.md").read_text(encoding="utf-8")
    step = re.search(r"```yaml\n(.*?)```", page, re.S)
    assert step, "docs/statistics.md has no ```yaml block (the GitHub Actions step)"
    line = next(ln.strip() for ln in step.group(1).splitlines() if ln.strip().startswith("holdout compare"))
    return shlex.split(line.split("||")[0])[2:]


def _run(argv: list[str], base: Path, candidate: Path, out: Path) -> int:
    subst = {"$BASE_RUN": str(base), "$CANDIDATE_RUN": str(candidate)}
    args = [subst.get(a, a) for a in argv]
    out_at = args.index("--out") + 1
    args[out_at] = str(out)
    return main(args)


@pytest.mark.parametrize(
    ("base", "candidate", "code", "decision"),
    [
        # two lm-eval runs of Llama-3-8B-Instruct on the same 50 ASDiv items: the same answers
        (
            LMEVAL.format("asdiv_cot", "2024-08-21T03-40-10.802679"),
            LMEVAL.format("asdiv", "2024-08-21T03-44-09.494230"),
            0,
            "not worse",
        ),
        # HELM BBQ, 100 items: Llama-3-70B-chat 29% against Llama-3-8B-chat 74%
        (HELM.format("meta_llama-3-8b-chat"), HELM.format("meta_llama-3-70b-chat"), 1, "worse"),
        # GPT-4 Turbo 91% against Claude 3.5 Sonnet 93%: lower, not significantly
        (
            HELM.format("anthropic_claude-3-5-sonnet-20240620"),
            HELM.format("openai_gpt-4-turbo-2024-04-09"),
            3,
            "inconclusive",
        ),
    ],
)
def test_documented_gate_gives_each_exit_code_on_shipped_logs(
    shared_data, tmp_path, capsys, base: str, candidate: str, code: int, decision: str
) -> None:
    got = _run(_documented_command(), shared_data / base, shared_data / candidate, tmp_path / "gate")
    assert got == code
    assert capsys.readouterr().out.startswith(f"{decision} (exit {code}): ")
    result = json.loads((tmp_path / "gate" / "compare.json").read_text())
    assert result["decision"] == decision and result["exit_code"] == code


def test_numbers_equal_the_library(shared_data, tmp_path, capsys) -> None:
    from holdout.logs import read_logs

    b, c = shared_data / HELM.format("meta_llama-3-8b-chat"), shared_data / HELM.format("meta_llama-3-70b-chat")
    assert main([str(b), str(c), "--out", str(tmp_path)]) == 1
    r = json.loads((tmp_path / "compare.json").read_text())
    base, cand = read_logs(b).values[0], read_logs(c).values[0]
    up, down = int(((cand == 1) & (base == 0)).sum()), int(((cand == 0) & (base == 1)).sum())
    both, neither = int(((cand == 1) & (base == 1)).sum()), int(((cand == 0) & (base == 0)).sum())
    assert (r["improved"], r["regressed"]) == (up, down)
    assert r["pvalue"] == pytest.approx(mcnemar(up, down).pvalue, rel=1e-12)
    low, high = newcombe_paired_ci(both, up, down, neither, 0.05)
    assert (r["low"], r["high"]) == pytest.approx((100 * float(low), 100 * float(high)), rel=1e-12)
    assert r["diff"] == pytest.approx(100 * (cand.mean() - base.mean()))


def test_margin_turns_a_small_loss_into_non_inferiority(shared_data, capsys) -> None:
    b = shared_data / HELM.format("openai_gpt-4o-2024-05-13")
    c = shared_data / HELM.format("qwen_qwen2-72b-instruct")
    assert main([str(b), str(c), "--margin", "10"]) == 0
    assert "margin 10" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("diff", "low", "p", "margin", "want"),
    [
        (-3.0, -5.0, 0.01, None, "worse"),
        (-1.0, -5.0, 0.40, None, "inconclusive"),
        (0.0, -5.0, 1.00, None, "not worse"),
        (2.0, -1.0, 0.30, None, "not worse"),
        (-1.0, -1.5, 0.40, 2.0, "not worse"),
        (-1.0, -2.5, 0.40, 2.0, "inconclusive"),
        (-6.0, -9.0, 0.001, 2.0, "worse"),
        (-1.0, -1.9, 0.01, 2.0, "not worse"),  # worse by less than the margin: non-inferior
    ],
)
def test_decision_rule(diff: float, low: float, p: float, margin: float | None, want: str) -> None:
    assert decide(diff, low, p, alpha=0.05, margin=margin) == want


def test_reuse_bounds_against_holdout_bounds() -> None:
    r = reuse_bounds(1000, 20, 0.25, delta=0.05)
    assert r["evaluations"] == 22
    assert r["eps_adaptive"] == pytest.approx(100 * corollary4(1000, 22, 0.0, 0.05).eps, rel=1e-12)
    eps = r["eps_fixed"] / 100
    assert union_bound_probability(1000, 0.25, eps, 22) <= 0.05 < union_bound_probability(1000, 0.25, eps - 1e-3, 22)


def test_prior_uses_line_says_theorem(shared_data, capsys) -> None:
    b = shared_data / HELM.format("anthropic_claude-3-5-sonnet-20240620")
    c = shared_data / HELM.format("openai_gpt-4-turbo-2024-04-09")
    assert main([str(b), str(c), "--prior-uses", "5"]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("after 5 earlier uses of this test set") and "theorem" in out[1]


def test_correctness_matrix_with_clusters(shared_data, capsys) -> None:
    swe = shared_data / "anchors/swebench/swebench_verified_resolved_matrix.csv"
    argv = [str(swe), "--correctness", "--base", "20240620_sweagent_claude3.5sonnet"]
    argv += ["--candidate", "20240402_sweagent_gpt4", "--cluster-pattern", "^(.+)-[0-9]+$"]
    code = main(argv)
    out = capsys.readouterr().out
    assert "clustered (sign-flip exact)" in out  # 12 repositories: the randomization test
    assert code in (1, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["only_one"], "give two runs, BASE and CANDIDATE, got 1 paths"),
        (["m.csv", "--correctness", "--base", "x"], "FILE --base NAME --candidate NAME"),
        (["a", "b", "--base", "x"], "--base and --candidate name models of a correctness matrix"),
        (["a", "b", "--margin", "-1"], "--margin must be >= 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_unknown_model_lists_the_models(shared_data, capsys) -> None:
    swe = shared_data / "anchors/swebench/swebench_verified_resolved_matrix.csv"
    assert main([str(swe), "--correctness", "--base", "nope", "--candidate", "x"]) == 2
    assert "--base 'nope': no such model" in capsys.readouterr().err


def test_a_folder_of_several_runs_is_refused(shared_data, capsys) -> None:
    helm = shared_data / "evallogs/helm_safety_bbq"
    assert main([str(helm), str(helm)]) == 2
    assert "9 runs" in capsys.readouterr().err


def test_items_are_paired_by_id_not_by_line(shared_data, tmp_path, capsys) -> None:
    # the candidate's samples in reverse order and one item short: paired by doc_id, one item left out
    src = shared_data / LMEVAL.format("asdiv", "2024-08-21T03-44-09.494230")
    lines = src.read_text(encoding="utf-8").splitlines()
    cand = tmp_path / "candidate" / src.name
    cand.parent.mkdir()
    cand.write_text("\n".join(reversed(lines[1:])) + "\n", encoding="utf-8")
    assert main([str(src), str(cand), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "difference +0.00 points" in out
    assert "note: 1 items only in BASE and 0 only in CANDIDATE were left out" in out


def test_pass_rates_use_the_paired_t_test() -> None:
    import numpy as np

    from holdout.commands.compare import compare_scores
    from holdout.stats import paired_t_test

    rng = np.random.default_rng(2)
    base, cand = rng.integers(0, 11, 120) / 10, rng.integers(0, 11, 120) / 10
    r = compare_scores(base, cand)
    t = paired_t_test(cand, base)
    assert r["test"] == "paired t" and not r["binary"]
    assert (r["diff"], r["low"], r["high"], r["pvalue"]) == pytest.approx(
        (100 * t.diff, 100 * t.low, 100 * t.high, t.pvalue)
    )


def test_cluster_by_a_field_of_the_baselines_logs(shared_data, capsys) -> None:
    logs = shared_data / "evallogs/inspect_starsim/logs"
    base = logs / "2026-02-20T05-22-33+00-00_starsim-benchmark_24AbBSr25iP6DbfTNwbAUU.eval"
    cand = logs / "2026-02-25T18-43-09+00-00_starsim-benchmark_GqBbPAtdkKa6FN3NWdk9ay.eval"
    assert main([str(base), str(cand), "--cluster-by", "problem_id"]) == 3
    assert "clustered (sign-flip exact) p = 0.5" in capsys.readouterr().out
