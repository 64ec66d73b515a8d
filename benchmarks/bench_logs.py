"""Parse speed of the lm-eval samples reader (docs/logs.md, "Speed").

Usage: PYTHONPATH=src python benchmarks/bench_logs.py [--mb 400] [--docs [--load-note TEXT]]

Writes an lm-eval ``samples_leaderboard_mmlu_pro_<time>.jsonl`` of about ``--mb`` MB shaped like
one MMLU-Pro run (10 options per question, a 5-shot chain-of-thought prompt repeated in each of the
10 loglikelihood requests, 10 log-probabilities; about 50 kB a row), then reads it with
``holdout.logs.read_lmeval`` (the standard library's json, one line at a time) and, for comparison,
parses every line with orjson when it is installed. Speed = file size / CPU seconds of the reading
process (one core), so that other jobs on a shared machine inflate it less than wall time; the
peak of Python's allocations while reading (tracemalloc, a second pass) shows that the prompts are
not held. ``--docs`` writes ``docs/measurements/logs.json`` (then run
``python benchmarks/update_docs_numbers.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from bench_workflow import cpu_name  # noqa: E402

from holdout.logs import read_lmeval  # noqa: E402

WORDS = "the of and to in is that for it as was with be by on not he this are or his from at which but have".split()


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def write_mmlu_pro_like(path: Path, mb: float, seed: int = 0) -> int:
    """An lm-eval samples file of about ``mb`` MB; returns the number of rows."""
    rng = random.Random(seed)
    letters = "ABCDEFGHIJ"
    shots = "\n\n".join(
        f"Question: {_text(rng, 60)}\nOptions:\n"
        + "\n".join(f"{c}. {_text(rng, 8)}" for c in letters)
        + f"\nAnswer: Let's think step by step. {_text(rng, 40)} The answer is (B)."
        for _ in range(5)
    )
    size, i = 0, 0
    with open(path, "w", encoding="utf-8") as fh:
        while size < mb * 1e6:
            q, opts = _text(rng, 50), [_text(rng, 8) for _ in range(10)]
            prompt = (
                f"The following are multiple choice questions (with answers) about law.\n\n{shots}\n\nQuestion: {q}"
            )
            row = {
                "doc_id": i,
                "doc": {"question_id": i, "question": q, "options": opts, "answer": "B", "category": "law"},
                "target": "B",
                "arguments": {f"gen_args_{k}": {"arg_0": prompt, "arg_1": f" {c}"} for k, c in enumerate(letters)},
                "resps": [[[str(-20 * rng.random()), "False"]] for _ in letters],
                "filtered_resps": [[str(-20 * rng.random()), "False"] for _ in letters],
                "filter": "none",
                "metrics": ["acc"],
                "doc_hash": "0" * 64,
                "prompt_hash": "1" * 64,
                "target_hash": "2" * 64,
                "acc": float(rng.random() < 0.4),
            }
            line = json.dumps(row, ensure_ascii=False) + "\n"
            fh.write(line)
            size, i = size + len(line.encode("utf-8")), i + 1
    return i


def measure(path: Path) -> dict[str, object]:
    size = path.stat().st_size
    t0, c0 = time.perf_counter(), time.process_time()
    run = read_lmeval(path)[0]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    tracemalloc.start()
    read_lmeval(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out = {
        "file_mb": round(size / 1e6, 1),
        "rows": len(run.item_ids),
        "mb_per_cpu_s": round(size / 1e6 / cpu, 1),
        "mb_per_wall_s": round(size / 1e6 / wall, 1),
        "peak_alloc_mb": round(peak / 1e6, 1),
    }
    try:
        import orjson
    except ImportError:
        return out
    c0 = time.process_time()
    with open(path, "rb") as fh:
        for line in fh:
            orjson.loads(line)
    out["orjson_parse_mb_per_cpu_s"] = round(size / 1e6 / (time.process_time() - c0), 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=400.0, help="size of the samples file to write and read")
    ap.add_argument("--docs", action="store_true", help="also write docs/measurements/logs.json")
    ap.add_argument("--load-note", default="", help="with --docs: a word on the load")
    args = ap.parse_args()
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "samples_leaderboard_mmlu_pro_2025-01-01T00-00-00.000000.jsonl"
        write_mmlu_pro_like(path, args.mb)
        res = measure(path)
    print(json.dumps(res, indent=2))
    if args.docs:
        load = f"load average {load_start:.1f} at start, {os.getloadavg()[0]:.1f} at the end"
        doc = {
            "what": f"holdout.logs.read_lmeval on a {res['file_mb']} MB MMLU-Pro-like lm-eval samples file "
            f"({res['rows']:,} rows): MB per CPU second of the reading process, one core",
            "command": f"PYTHONPATH=src python benchmarks/bench_logs.py --mb {args.mb:g} --docs",
            "date": time.strftime("%Y-%m-%d"),
            "machine": {"cpu": " ".join(cpu_name().split()[:3]), "cores": os.cpu_count()},
            "load": load + (f"; {args.load_note}" if args.load_note else ""),
            **res,
        }
        dest = REPO / "docs" / "measurements" / "logs.json"
        dest.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {dest.relative_to(REPO)}")


if __name__ == "__main__":
    main()
