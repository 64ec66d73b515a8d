"""CPU-seconds every workflow job pays before its own work: a fresh interpreter, Snakemake's script
preamble, the imports of an analysis job, of a torch job, and of a torch job that builds an optimizer
(``torch.optim`` imports ``torch._dynamo`` when an optimizer is created).

Each case runs ``--runs`` times in a fresh interpreter; the median user and system CPU-seconds of the
child (``resource.getrusage``) are printed. With ``--jobs`` it also counts the jobs of the default
offline run per kind (rules whose ``conda:`` env is ``envs/torch.yaml`` import torch) from a dry run,
so that the start-up of the whole run can be estimated (count x median; an estimate, not a measurement
of the run): training jobs (they build an optimizer) x ``torch_optimizer``, the other jobs of the
torch env x ``torch_import``, the rest x ``analysis_imports`` (an upper bound: data jobs import less).

    PYTHONPATH=src python benchmarks/bench_startup.py --runs 3
    PYTHONPATH=src python benchmarks/bench_startup.py --runs 3 --jobs --mirror ../shared/data --docs startup
    PYTHONPATH=src python benchmarks/bench_startup.py --reuse --jobs --docs startup   # recount, same timings

CPU-seconds grow on a busy machine (shared caches): the JSON records the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_workflow import machine  # noqa: E402

TRAINING_RULES = ("search_train", "seeds_train", "retraining_train")  # one optimizer per job
PREAMBLE = "import pickle\nfrom snakemake.logging import logger\nfrom snakemake.iocontainers import Snakemake\n"
CASES = {
    "python": "pass",
    "snakemake_preamble": PREAMBLE,
    "analysis_imports": PREAMBLE + "import numpy, pandas, scipy.stats\nimport matplotlib\nmatplotlib.use('Agg')\n"
    "import matplotlib.pyplot",
    "torch_import": PREAMBLE + "import numpy, pandas, torch",
    "torch_optimizer": PREAMBLE + "import numpy, pandas, torch\n"
    "torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)\nimport sys\nassert 'torch._dynamo' in sys.modules",
}


def child_cpu(code: str) -> tuple[float, float]:
    """User and system CPU-seconds of one fresh interpreter running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "MPLBACKEND": "Agg"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Median user, system and total CPU-seconds of each case."""
    out = {}
    for name, code in CASES.items():
        samples = [child_cpu(code) for _ in range(runs)]
        user = statistics.median(u for u, _ in samples)
        system = statistics.median(s for _, s in samples)
        out[name] = {"user_s": round(user, 2), "sys_s": round(system, 2), "cpu_s": round(user + system, 2)}
        print(f"{name:20s} {user:6.2f} user {system:5.2f} sys  (median of {runs})", flush=True)
    return out


def torch_rules() -> set[str]:
    """Rules whose conda env is envs/torch.yaml (they import torch)."""
    names = set()
    for smk in (REPO / "workflow" / "rules").glob("*.smk"):
        blocks = re.split(r"^rule (\w+):", smk.read_text(), flags=re.M)
        for name, body in zip(blocks[1::2], blocks[2::2]):
            if re.search(r'conda:\s*\n?\s*"[^"]*envs/torch\.yaml"', body):
                names.add(name)
    return names


def job_counts(mirror: Path) -> dict[str, int]:
    """Jobs of the default offline run per rule (a dry run in a temporary folder)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}
    cmd = [sys.executable, "-m", "snakemake", "-n", "--quiet", "rules", "--cores", "2", "-d", "/tmp/holdout-startup"]
    cmd += ["-s", str(REPO / "Snakefile"), "--configfile", str(REPO / "config/offline.yaml")]
    cmd += ["--config", f"data={{'mirror': '{mirror.resolve()}'}}"]
    text = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", text, re.M)}
    counts.pop("total", None)
    counts.pop("all", None)
    return counts


def startup_estimate(counts: dict[str, int], cases: dict[str, dict[str, float]]) -> dict[str, float]:
    """Jobs per kind and the start-up CPU-seconds they add up to (count x the kind's median)."""
    torch_env = torch_rules()
    training = sum(n for r, n in counts.items() if r in TRAINING_RULES)
    other_torch = sum(n for r, n in counts.items() if r in torch_env and r not in TRAINING_RULES)
    rest = sum(counts.values()) - training - other_torch
    est = {
        "training": training * cases["torch_optimizer"]["cpu_s"],
        "other_torch_env": other_torch * cases["torch_import"]["cpu_s"],
        "rest": rest * cases["analysis_imports"]["cpu_s"],
    }
    return {
        "total": sum(counts.values()),
        "training": training,
        "other_torch_env": other_torch,
        "rest": rest,
        "estimate_cpu_s": {k: round(v) for k, v in est.items()},
        "estimate_total_cpu_s": round(sum(est.values())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh interpreters per case (default 3)")
    ap.add_argument("--jobs", action="store_true", help="also count the default offline run's jobs per kind")
    ap.add_argument("--mirror", type=Path, default=REPO / ".." / "shared" / "data", help="data mirror (with --jobs)")
    ap.add_argument("--docs", metavar="NAME", help="write docs/measurements/NAME.json")
    ap.add_argument("--reuse", action="store_true", help="with --docs: keep the timings of NAME.json, recount jobs")
    args = ap.parse_args(argv)
    dest = REPO / "docs" / "measurements" / f"{args.docs}.json" if args.docs else None
    if args.reuse:
        if dest is None or not dest.is_file():
            ap.error("--reuse needs --docs NAME of an existing docs/measurements/NAME.json")
        res = json.loads(dest.read_text())
    else:
        load0 = os.getloadavg()[0]
        cases = measure(args.runs)
        res = {
            "what": "CPU-seconds a job pays before its own work (fresh interpreter, median of runs): "
            + ", ".join(CASES),
            "command": "PYTHONPATH=src python benchmarks/bench_startup.py " + " ".join(argv or sys.argv[1:]),
            "date": time.strftime("%Y-%m-%d"),
            "machine": {k: v for k, v in machine().items() if k != "ONEDNN_MAX_CPU_ISA"},
            "load": f"load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at the end",
            "cases": cases,
        }
    if args.jobs:
        counts = job_counts(args.mirror)
        res["jobs"] = {**startup_estimate(counts, res["cases"]), "per_rule": counts}
        j = res["jobs"]
        print(f"default offline run: {j['total']} jobs: {j['training']} training, {j['other_torch_env']} more in the")
        print(
            f"torch env, {j['rest']} others; start-up estimate {j['estimate_total_cpu_s']} CPU-s {j['estimate_cpu_s']}"
        )
    if dest is not None:
        dest.write_text(json.dumps(res, indent=2) + "\n")
        print(f"wrote {dest.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
