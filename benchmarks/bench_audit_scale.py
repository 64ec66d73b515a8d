"""Time, peak memory and bytes written of ``holdout audit`` on many models or many items.

Usage: PYTHONPATH=src python benchmarks/bench_audit_scale.py [--models 6000] [--n 50] [--lenses ...]
       [--extra "--all-pairs"] [--src PATH] [--record NAME]

Writes synthetic predictions (10 classes, errors correlated through a shared per-item difficulty)
as a K x n ``.npy`` with its labels, runs the whole command in a fresh process (``python -m
holdout.audit``, the code under ``--src``, default this checkout's ``src``) and prints its wall and
CPU seconds, its peak resident memory (the child's ``ru_maxrss``), the memory the audit estimated
before the work ([`estimate_memory`][holdout.audit.inputs.estimate_memory] of the same code) and the
bytes it wrote, largest files first. The paper-scale cases: 6,000 models x 50 items (18 million
pairs) and 4 models x 2,000,000 items. ``--record NAME`` adds the run to
``docs/measurements/audit_scale.json`` under NAME (with the date, machine and load).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_workflow import cpu_name  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def synthetic(k: int, n: int, classes: int = 10, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """K x n predicted classes and n labels: P(model wrong on item) = difficulty ** skill."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n).astype(np.int16)
    difficulty = rng.beta(0.8, 1.2, size=n)
    skill = rng.uniform(0.5, 2.0, size=k)
    preds = np.empty((k, n), dtype=np.int16)
    for start in range(0, k, 256):  # rows in blocks: K x n float temporaries stay small
        s = skill[start : start + 256]
        wrong = rng.random((s.size, n)) < difficulty[None, :] ** s[:, None]
        preds[start : start + 256] = np.where(
            wrong, (labels + 1 + rng.integers(0, classes - 1, (s.size, n))) % classes, labels
        )
    return preds, labels


def _estimate(src: Path, k: int, n: int) -> int:
    code = f"from holdout.audit.inputs import estimate_memory; print(estimate_memory({k}, {n}))"
    env = os.environ | {"PYTHONPATH": str(src)}
    return int(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)


def run(k: int, n: int, lenses: str, extra: list[str], src: Path) -> dict[str, object]:
    """One audit in a child process: wall, CPU, peak memory, the estimate, bytes written."""
    with tempfile.TemporaryDirectory() as tmp:
        preds, labels = synthetic(k, n)
        np.save(Path(tmp) / "p.npy", preds)
        np.save(Path(tmp) / "y.npy", labels)
        del preds
        out = Path(tmp) / "out"
        argv = [sys.executable, "-m", "holdout.audit", f"{tmp}/p.npy", "--labels", f"{tmp}/y.npy"]
        argv += ["--lenses", lenses, "--out", str(out), "--force", *extra]
        env = os.environ | {"PYTHONPATH": str(src), "MPLBACKEND": "Agg"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"the audit failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        files = sorted(
            ((p.stat().st_size, p.relative_to(out).as_posix()) for p in out.rglob("*") if p.is_file()), reverse=True
        )
    return {
        "models": k,
        "items": n,
        "lenses": lenses,
        "extra": " ".join(extra),
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "peak_memory_gib": round(after.ru_maxrss / 2**20, 3),
        "estimated_memory_gib": round(_estimate(src, k, n) / 2**30, 3),
        "written_mib": round(sum(s for s, _ in files) / 2**20, 1),
        "largest_files_mib": {name: round(size / 2**20, 1) for size, name in files[:5]},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=6000)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--lenses", default="accuracy,pairs,similarity,bounds,rvw")
    ap.add_argument("--extra", default="", help="more options of the audit, e.g. '--all-pairs'")
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the code to time (a checkout's src)")
    ap.add_argument("--record", help="add the run to docs/measurements/audit_scale.json under this name")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    print(f"{cpu_name()}, {os.cpu_count()} CPUs, load average {load:.2f} before the run")
    r = run(args.models, args.n, args.lenses, args.extra.split(), args.src)
    r["load"] = f"load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at the end"
    print(json.dumps(r, indent=2))
    if args.record:
        path = REPO / "docs" / "measurements" / "audit_scale.json"
        data = json.loads(path.read_text()) if path.is_file() else {"what": __doc__.splitlines()[0], "runs": {}}
        machine = {"cpu": cpu_name(), "cores": os.cpu_count()}
        today = datetime.date.today().isoformat()
        data["runs"][args.record] = r | {"date": today, "machine": machine}
        data |= {"date": today, "machine": machine, "load": r["load"], "command": " ".join(sys.argv)}
        path.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
