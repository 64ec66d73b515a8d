"""Wall time and CPU time of the default offline workflow, run in a temporary copy of the repository.

Copies the tracked files (``git ls-files``) to a temporary folder, makes the data mirror
resolvable there (a ``shared`` symlink beside the copy pointing at this checkout's ``../shared``,
or ``--mirror``), runs ``snakemake --cores N --configfile config/offline.yaml`` in it and prints
the wall time, the CPU time summed over the rules' benchmark files (``logs/**/*.benchmark.tsv``,
column ``cpu_time``; ``s`` is each job's wall time) and the ten rules with the most CPU time.

    python benchmarks/bench_workflow.py --cores 2                      # the whole default run
    python benchmarks/bench_workflow.py --cores 2 --json out.json --keep
    python benchmarks/bench_workflow.py --cores 2 --docs default_run   # the numbers the docs show
    python benchmarks/update_docs_numbers.py                           # ... written into the pages
    python benchmarks/bench_workflow.py --cores 2 --targets results/search/configs.csv  # a part only
    # as on a 2-core CPU without AVX-512 (on an AVX-512 machine):
    ONEDNN_MAX_CPU_ISA=AVX2 taskset -c 0,1 python benchmarks/bench_workflow.py --cores 2

Run it on an idle machine: wall time is meaningless while other jobs share the cores.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH_GLOB = "logs/**/*.benchmark.tsv"


def copy_repository(repo: Path, dest: Path) -> None:
    """The files git tracks (and untracked ones it does not ignore) of ``repo``, copied to ``dest``."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        check=True,
        capture_output=True,
    ).stdout
    for rel in filter(None, out.decode().split("\0")):
        src = repo / rel
        if not src.is_file():  # deleted but still in the index
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)


def rule_of(bench_file: Path, logs: Path) -> str:
    """The rule family of a benchmark file: ``logs/search/train_m003.benchmark.tsv`` -> ``search/train``."""
    rel = bench_file.relative_to(logs).as_posix().removesuffix(".benchmark.tsv")
    return re.sub(r"[_/]?(m|seed|split|half)?\d+$", "", rel) or rel


def read_benchmarks(workdir: Path) -> list[dict[str, object]]:
    """One row per job: its benchmark file, rule family, wall seconds ``s`` and ``cpu_time``."""
    logs = workdir / "logs"
    rows = []
    for f in sorted(workdir.glob(BENCH_GLOB)):
        with open(f, newline="") as fh:
            recs = list(csv.DictReader(fh, delimiter="\t"))
        if not recs:
            continue
        last = recs[-1]  # a re-run appends a row
        cpu = float(last.get("cpu_time") or 0.0)
        rows.append(
            {"job": f.relative_to(logs).as_posix(), "rule": rule_of(f, logs), "s": float(last["s"]), "cpu_time": cpu}
        )
    return rows


def summarise(rows: list[dict[str, object]], top: int = 10) -> dict[str, object]:
    """Total CPU and job seconds, and the ``top`` rule families by CPU time."""
    per_rule: dict[str, dict[str, float]] = defaultdict(lambda: {"jobs": 0, "s": 0.0, "cpu_time": 0.0})
    for r in rows:
        agg = per_rule[str(r["rule"])]
        agg["jobs"] += 1
        agg["s"] += float(r["s"])  # type: ignore[arg-type]
        agg["cpu_time"] += float(r["cpu_time"])  # type: ignore[arg-type]
    ranked = sorted(per_rule.items(), key=lambda kv: -kv[1]["cpu_time"])
    return {
        "jobs": len(rows),
        "cpu_time_s": sum(float(r["cpu_time"]) for r in rows),  # type: ignore[arg-type]
        "job_wall_s": sum(float(r["s"]) for r in rows),  # type: ignore[arg-type]
        "top_rules": [{"rule": k, **v} for k, v in ranked[:top]],
    }


def machine() -> dict[str, object]:
    """CPU model, visible cores and the oneDNN ISA cap of this run."""
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": model, "cores": cores, "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA", "unset")}


def docs_measurement(res: dict[str, object], note: str) -> dict[str, object]:
    """The summary the documentation shows (docs/measurements/<name>.json, read by update_docs_numbers.py)."""
    m = res["machine"]
    isa = m["ONEDNN_MAX_CPU_ISA"]  # type: ignore[index]
    load = res["load"]
    return {
        "what": "the whole default offline run: snakemake --cores 2 --configfile config/offline.yaml in a fresh copy "
        "of the repository, CPU time summed over the rules' benchmark files",
        "command": res["command"],
        "date": time.strftime("%Y-%m-%d"),
        "machine": {
            "cpu": m["cpu"],
            "cores": m["cores"],
            **({"isa": f"oneDNN limited to {isa}"} if isa != "unset" else {}),
        },  # type: ignore[index]
        "load": f"load average {load[0]:.1f} at start, {load[1]:.1f} at the end" + (f"; {note}" if note else ""),  # type: ignore[index]
        "jobs": res["jobs"],
        "wall_s": round(float(res["wall_s"]), 1),  # type: ignore[arg-type]
        "cpu_time_s": round(float(res["cpu_time_s"]), 1),  # type: ignore[arg-type]
        "top_rules_cpu_s": {r["rule"]: round(r["cpu_time"], 1) for r in res["top_rules"][:7]},  # type: ignore[index]
    }


def snakemake_command(cores: int, configfile: str, extra: list[str], targets: list[str]) -> list[str]:
    """``snakemake TARGETS --cores N --configfile F EXTRA`` (targets first: ``--configfile`` takes several values)."""
    return ["snakemake", *targets, "--cores", str(cores), "--configfile", configfile, *extra]


def run_workflow(workdir: Path, cmd: list[str], log_path: Path) -> tuple[float, int]:
    """``cmd`` (a snakemake command) in ``workdir`` with the copy's ``src`` first on ``PYTHONPATH``;
    returns (wall seconds, exit status); its output goes to ``log_path``."""
    cmd = [sys.executable, "-m", *cmd]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir / "src"), os.environ.get("PYTHONPATH")])),
    }
    t0 = time.perf_counter()
    with open(log_path, "w") as fh:
        proc = subprocess.run(cmd, cwd=workdir, env=env, stdout=fh, stderr=subprocess.STDOUT)
    return time.perf_counter() - t0, proc.returncode


def print_report(res: dict[str, object]) -> None:
    m = res["machine"]
    print(f"# bench_workflow: {res['command']}")
    print(f"CPU {m['cpu']} ({m['cores']} cores visible), ONEDNN_MAX_CPU_ISA={m['ONEDNN_MAX_CPU_ISA']}")  # type: ignore[index]
    print(f"exit status {res['returncode']}; {res['jobs']} jobs")
    print(f"wall time        {res['wall_s']:8.1f} s")
    print(f"CPU time (sum)   {res['cpu_time_s']:8.1f} s   (rules' benchmark files, cpu_time)")
    print(f"job time (sum)   {res['job_wall_s']:8.1f} s   (rules' benchmark files, s)")
    print("\n| rule | jobs | CPU-s | job wall-s |\n|---|---:|---:|---:|")
    for r in res["top_rules"]:  # type: ignore[union-attr]
        print(f"| {r['rule']} | {r['jobs']} | {r['cpu_time']:.1f} | {r['s']:.1f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cores", type=int, default=2, help="snakemake --cores (default 2)")
    ap.add_argument("--configfile", default="config/offline.yaml", help="relative to the copy")
    ap.add_argument("--snakemake-args", default="", help="extra snakemake options, one shell-quoted string")
    ap.add_argument("--targets", nargs="*", default=[], help="snakemake targets (default: the whole workflow)")
    ap.add_argument("--mirror", type=Path, help="data mirror folder (default: this checkout's ../shared/data)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy (its path is printed)")
    ap.add_argument("--json", type=Path, help="also write the result as JSON here")
    ap.add_argument("--docs", metavar="NAME", help="also write docs/measurements/NAME.json (what the pages show)")
    ap.add_argument("--load-note", default="", help="with --docs: a word on the load, e.g. 'other jobs shared it'")
    ap.add_argument("--top", type=int, default=10, help="rules listed (default 10)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="holdout-bench-"))
    work = tmp / "repo"
    extra = shlex.split(args.snakemake_args)
    try:
        copy_repository(REPO, work)
        mirror = (args.mirror or REPO / ".." / "shared" / "data").resolve()
        if not mirror.is_dir():
            ap.error(f"no data mirror at {mirror}: pass --mirror")
        (tmp / "shared").mkdir()
        (tmp / "shared" / "data").symlink_to(mirror)  # config/offline.yaml: data.mirror ../shared/data
        cmd = snakemake_command(args.cores, args.configfile, extra, args.targets)
        load_start = os.getloadavg()[0]
        wall, rc = run_workflow(work, cmd, tmp / "snakemake.log")
        rows = read_benchmarks(work)
        res: dict[str, object] = {
            "command": shlex.join(cmd),
            "machine": machine(),
            "returncode": rc,
            "wall_s": wall,
            **summarise(rows, args.top),
            "load": [load_start, os.getloadavg()[0]],
            "per_job": rows,
        }
        print_report(res)
        if rc != 0:
            print(f"\nsnakemake failed: see {tmp / 'snakemake.log'}" + ("" if args.keep else " (kept)"))
            args.keep = True
        if args.json:
            args.json.write_text(json.dumps(res, indent=2))
        if args.docs and rc == 0:
            dest = REPO / "docs" / "measurements" / f"{args.docs}.json"
            dest.write_text(json.dumps(docs_measurement(res, args.load_note), indent=2) + "\n")
            print(f"wrote {dest.relative_to(REPO)}: now run python benchmarks/update_docs_numbers.py")
        return rc
    finally:
        if args.keep:
            print(f"temporary copy kept: {work}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
