"""Small evaluation logs written the way the harnesses write them, for the log readers' tests of
bad input (the real files are in the mirror's evallogs/)."""

from __future__ import annotations

import json
from pathlib import Path

STAMP = "2025-01-02T03-04-05.678901"


def lmeval_run(folder: Path, task: str, rows: list[dict], model: str = "org/model", stamp: str = STAMP) -> Path:
    """An lm-eval --log_samples run: samples_<task>_<stamp>.jsonl and results_<stamp>.json."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"results_{stamp}.json").write_text(json.dumps({"results": {task: {}}, "model_name": model}))
    path = folder / f"samples_{task}_{stamp}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def row(doc_id: int, flt: str = "none", **metrics: object) -> dict:
    return {
        "doc_id": doc_id,
        "doc": {"q": "?"},
        "arguments": {},
        "resps": [],
        "filter": flt,
        "metrics": list(metrics),
    } | metrics


def lcb_problem(qid: str, date: str, graded: list[bool]) -> dict:
    """One problem as lcb_runner's CodeGenerationProblem.insert_output_evaluation writes it."""
    return {
        "question_title": qid,
        "question_content": "...",
        "platform": "leetcode",
        "question_id": qid,
        "contest_id": "c1",
        "contest_date": f"{date}T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "output_list": ["..."] * len(graded),
        "code_list": ["..."] * len(graded),
        "graded_list": graded,
        "pass@1": graded.count(True) / len(graded),
        "metadata": [],
    }


def five_lmeval_runs(folder: Path, n: int = 200, seed: int = 7) -> list[Path]:
    """Five models' lm-eval runs of one multiple-choice task with two metrics (acc, acc_norm), the
    errors tied through a per-item difficulty, in <org>__<model>/ folders as lm_eval writes them."""
    import numpy as np

    rng = np.random.default_rng(seed)
    hard = rng.random(n)
    paths = []
    for k, (name, skill) in enumerate(zip("abcde", [0.35, 0.5, 0.55, 0.62, 0.8])):
        acc = (0.6 * hard + 0.4 * rng.random(n) < skill).astype(int)
        norm = np.where(rng.random(n) < 0.1, 1 - acc, acc)
        rows = [row(i, acc=int(a), acc_norm=int(b)) for i, (a, b) in enumerate(zip(acc, norm))]
        stamp = f"2025-03-0{k + 1}T10-00-00.000000"
        paths.append(lmeval_run(folder / f"org__model-{name}", "arc_easy", rows, f"org/model-{name}", stamp))
    return paths
