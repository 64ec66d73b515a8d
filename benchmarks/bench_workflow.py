"""Wall time and CPU time of the default offline workflow, run in a temporary copy of the repository.

Copies the tracked files (``git ls-files``) to a temporary folder, makes the data mirror
resolvable there (a ``shared`` symlink beside the copy pointing at this checkout's ``../shared``,
or ``--mirror``), runs ``snakemake --cores N --configfile config/offline.yaml`` in it and prints
what the user pays and what the rules see:

- the **process tree**: user and system CPU-seconds of the snakemake command and every process it
  started (``os.wait4``: the kernel's resource usage of the child and all its reaped descendants:
  job scripts, their threads, the scheduler's solver), and the wall time;
- the **rules' sum**: the CPU time summed over the rules' benchmark files
  (``logs/**/*.benchmark.tsv``, column ``cpu_time``; ``s`` is each job's wall time; Snakemake
  samples it, so short jobs are undercounted), the ten rules with the most CPU time, and the
  **gap** (tree minus rules: start-up, Snakemake itself, what the sampler misses);
- the load: the 1-minute load average at start, end and its mean, and the CPU-seconds the rest of
  the machine used meanwhile (``/proc/stat`` busy time minus the tree), so that a run under load
  says so;
- a **second run** of the same command, which must have nothing to do.

It exits non-zero when snakemake fails or a budget is missed (``--budget-wall``, ``--budget-cpu``,
``--budget-rerun``; 0 switches one off): a check a person can run.

    python benchmarks/bench_workflow.py --cores 2                      # the whole default run
    python benchmarks/bench_workflow.py --cores 2 --json out.json --keep
    python benchmarks/bench_workflow.py --cores 2 --docs default_run   # the numbers the docs show
    python benchmarks/update_docs_numbers.py                           # ... written into the pages
    python benchmarks/bench_workflow.py --cores 2 --targets results/search/configs.csv  # a part only
    # as on a 2-core CPU without AVX-512 (on an AVX-512 machine):
    ONEDNN_MAX_CPU_ISA=AVX2 taskset -c 0,1 python benchmarks/bench_workflow.py --cores 2

Run it on an idle machine: wall time is meaningless while other jobs share the cores (the
tree's CPU-seconds much less so; the JSON records the load either way).
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
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH_GLOB = "logs/**/*.benchmark.tsv"
# The budgets of the default offline run on 2 cores (developers' guide): 15 min wall; the whole tree's CPU
# time is measured and printed beside the rules' (no budget of its own: 0 = not checked); the second run.
BUDGET_WALL_S = 900.0
BUDGET_CPU_S = 0.0
BUDGET_RERUN_S = 5.0
# The studies that train or run networks (the pages compare their share of the tree with the rest).
NETWORK_STUDIES = ("retraining", "search", "predict", "adversarial_synthetic", "seeds", "adversarial_cifar10")


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


def own_account(bench_file: Path) -> tuple[float, float]:
    """CPU-seconds (user + system, system) of a job by its own account: the last line that
    ``holdout.runlog`` writes into the job's log (``logs/x/y.log`` beside ``logs/x/y.benchmark.tsv``);
    nan where the job wrote none."""
    if str(REPO / "src") not in sys.path:
        sys.path.insert(0, str(REPO / "src"))
    from holdout.runlog import JobResources

    log = bench_file.with_name(bench_file.name.removesuffix(".benchmark.tsv") + ".log")
    try:
        account = JobResources.parse(log.read_text(errors="replace"))
    except OSError:
        account = None
    return (account.cpu_s, account.system_s) if account else (float("nan"), float("nan"))


def read_benchmarks(workdir: Path) -> list[dict[str, object]]:
    """One row per job: its benchmark file, rule family, wall seconds ``s``, the sampler's ``cpu_time``
    and the job's own account ``job_cpu_s`` / ``job_sys_s`` (from process start to exit)."""
    logs = workdir / "logs"
    rows = []
    for f in sorted(workdir.glob(BENCH_GLOB)):
        with open(f, newline="") as fh:
            recs = list(csv.DictReader(fh, delimiter="\t"))
        if not recs:
            continue
        last = recs[-1]  # a re-run appends a row
        cpu = float(last.get("cpu_time") or 0.0)
        job_cpu, job_sys = own_account(f)
        rows.append(
            {
                "job": f.relative_to(logs).as_posix(),
                "rule": rule_of(f, logs),
                "s": float(last["s"]),
                "cpu_time": cpu,
                "job_cpu_s": job_cpu,
                "job_sys_s": job_sys,
            }
        )
    return rows


def _finite(x: object) -> float:
    v = float(x)  # type: ignore[arg-type]
    return v if v == v else 0.0


def summarise(rows: list[dict[str, object]], top: int = 10) -> dict[str, object]:
    """Total CPU and job seconds, and the ``top`` rule families by CPU time."""
    per_rule: dict[str, dict[str, float]] = defaultdict(
        lambda: {"jobs": 0, "s": 0.0, "cpu_time": 0.0, "job_cpu_s": 0.0, "job_sys_s": 0.0}
    )
    for r in rows:
        agg = per_rule[str(r["rule"])]
        agg["jobs"] += 1
        for key in ("s", "cpu_time", "job_cpu_s", "job_sys_s"):
            agg[key] += _finite(r.get(key, float("nan")))
    ranked = sorted(per_rule.items(), key=lambda kv: -max(kv[1]["job_cpu_s"], kv[1]["cpu_time"]))
    return {
        "jobs": len(rows),
        "rules_cpu_s": sum(float(r["cpu_time"]) for r in rows),  # type: ignore[arg-type]
        "jobs_cpu_s": sum(_finite(r.get("job_cpu_s", float("nan"))) for r in rows),
        "jobs_sys_s": sum(_finite(r.get("job_sys_s", float("nan"))) for r in rows),
        "jobs_accounted": sum(1 for r in rows if _finite(r.get("job_cpu_s", float("nan"))) > 0),
        "job_wall_s": sum(float(r["s"]) for r in rows),  # type: ignore[arg-type]
        "top_rules": [{"rule": k, **v} for k, v in ranked[:top]],
        "studies": per_study(rows),
    }


def per_study(rows: list[dict[str, object]]) -> dict[str, dict[str, float]]:
    """Jobs and CPU-seconds by their own account per study (the rule family's first part:
    ``search/train`` -> ``search``), most expensive first."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"jobs": 0, "job_cpu_s": 0.0})
    for r in rows:
        agg = out[str(r["rule"]).split("/", 1)[0]]
        agg["jobs"] += 1
        agg["job_cpu_s"] += _finite(r.get("job_cpu_s", float("nan")))
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["job_cpu_s"]))


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what ``platform`` says (every benchmark's stamp)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine() -> dict[str, object]:
    """CPU model, visible cores and the oneDNN ISA cap of this run."""
    model = cpu_name()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": model, "cores": cores, "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA", "unset")}


def load_words(load: list[float], others_cpu_s: float, wall_s: float, cores: int) -> str:
    """The load of a run in words: the load average at start and end, and whether other work shared
    the machine (the rest of the machine used more than a tenth of a core on average)."""
    words = f"load average {load[0]:.1f} at start, {load[1]:.1f} at the end"
    if others_cpu_s == others_cpu_s and wall_s > 0:  # not nan
        share = others_cpu_s / wall_s
        if share > 0.1:
            words += (
                f"; other work shared the machine ({others_cpu_s:,.0f} CPU-s beside the run, {share:.1f} of "
                f"{cores} cores on average): the wall time is an upper bound"
            )
        else:
            words += "; idle machine (nothing else running)"
    return words


def docs_measurement(res: dict[str, object], note: str) -> dict[str, object]:
    """The summary the documentation shows (docs/measurements/<name>.json, read by update_docs_numbers.py)."""
    m = res["machine"]
    isa = m["ONEDNN_MAX_CPU_ISA"]  # type: ignore[index]
    load = res["load"]
    words = load_words(load, float(res.get("others_cpu_s", float("nan"))), float(res["wall_s"]), int(m["cores"]))  # type: ignore[arg-type,index]
    second = res.get("second_run") or {}
    return {
        "what": "the whole default offline run: snakemake --cores 2 --configfile config/offline.yaml in a fresh copy "
        "of the repository; tree: user + system CPU-seconds of snakemake and every process it started; "
        "rules: CPU time summed over the rules' benchmark files; jobs: each job's own account in its log "
        "(process start to exit)",
        "command": res["command"],
        "date": time.strftime("%Y-%m-%d"),
        "machine": {
            "cpu": m["cpu"],
            "cores": m["cores"],
            **({"isa": f"oneDNN limited to {isa}"} if isa != "unset" else {}),
        },  # type: ignore[index]
        "load": words + (f"; {note}" if note else ""),
        "mean_load": round(float(load[2]), 1) if len(load) > 2 else None,  # type: ignore[arg-type,index]
        "others_cpu_s": round(float(res.get("others_cpu_s", 0.0)), 0),  # type: ignore[arg-type]
        "jobs": res["jobs"],
        "wall_s": round(float(res["wall_s"]), 1),  # type: ignore[arg-type]
        "tree_cpu_s": round(float(res["tree_cpu_s"]), 1),  # type: ignore[arg-type]
        "tree_user_s": round(float(res["tree_user_s"]), 1),  # type: ignore[arg-type]
        "tree_sys_s": round(float(res["tree_sys_s"]), 1),  # type: ignore[arg-type]
        "rules_cpu_s": round(float(res["rules_cpu_s"]), 1),  # type: ignore[arg-type]
        "gap_cpu_s": round(float(res["tree_cpu_s"]) - float(res["rules_cpu_s"]), 1),  # type: ignore[arg-type]
        "snakemake_main_cpu_s": round(float(res.get("snakemake_main_cpu_s", float("nan"))), 1),  # type: ignore[arg-type]
        **({"second_run_s": round(float(second["wall_s"]), 1)} if second else {}),
        "jobs_cpu_s": round(float(res.get("jobs_cpu_s", float("nan"))), 1),  # type: ignore[arg-type]
        "jobs_sys_s": round(float(res.get("jobs_sys_s", float("nan"))), 1),  # type: ignore[arg-type]
        "top_rules_cpu_s": {r["rule"]: round(r["cpu_time"], 1) for r in res["top_rules"][:7]},  # type: ignore[index]
        "top_rules_job_cpu_s": {r["rule"]: round(r.get("job_cpu_s", 0.0), 1) for r in res["top_rules"][:10]},  # type: ignore[index]
        **study_shares(dict(res.get("studies", {})), float(res["tree_cpu_s"]), float(res.get("jobs_cpu_s", 0.0))),  # type: ignore[arg-type]
    }


def study_shares(studies: dict[str, dict[str, float]], tree_cpu_s: float, jobs_cpu_s: float) -> dict[str, object]:
    """Per study (own accounts), and the studies that train or run networks against the rest."""
    net = [k for k in NETWORK_STUDIES if k in studies]
    net_cpu = sum(studies[k]["job_cpu_s"] for k in net)
    return {
        "studies_job_cpu_s": {k: round(v["job_cpu_s"], 1) for k, v in studies.items()},
        "studies_jobs": {k: int(v["jobs"]) for k, v in studies.items()},
        "network_studies": net,
        "network_studies_jobs": sum(int(studies[k]["jobs"]) for k in net),
        "network_studies_job_cpu_s": round(net_cpu, 2),  # 2 places: no double rounding in the pages
        "other_studies_jobs": sum(int(v["jobs"]) for k, v in studies.items() if k not in net),
        "other_studies_job_cpu_s": round(jobs_cpu_s - net_cpu, 2),
        "tree_minus_jobs_cpu_s": round(tree_cpu_s - jobs_cpu_s, 1),
        "network_share_of_tree_pct": round(100 * net_cpu / tree_cpu_s) if tree_cpu_s else None,
    }


def snakemake_command(cores: int, configfile: str, extra: list[str], targets: list[str]) -> list[str]:
    """``snakemake TARGETS --cores N --configfile F EXTRA`` (targets first: ``--configfile`` takes several values)."""
    return ["snakemake", *targets, "--cores", str(cores), "--configfile", configfile, *extra]


@dataclass
class TreeRun:
    """One command's process tree: wall seconds, exit status, user and system CPU-seconds of the
    process and all its reaped descendants, peak RSS of the largest one, and the load meanwhile."""

    wall_s: float
    returncode: int
    user_s: float
    sys_s: float
    max_rss_mb: float
    load: list[float] = field(default_factory=list)  # 1-minute load average, sampled
    main_cpu_s: float = float("nan")  # the command's own process (not its children), last sample before exit
    busy_cpu_s: float = float("nan")  # every CPU's busy time meanwhile (/proc/stat), the tree's included

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s


def busy_cpu_seconds() -> float:
    """CPU-seconds every process of the machine has used since boot (``/proc/stat``, all but idle and
    iowait); nan where there is no ``/proc/stat``."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return float("nan")
    ticks = [int(x) for x in fields[:8]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU-seconds of process ``pid`` itself, without its children (``/proc/PID/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def run_tree(cmd: list[str], cwd: Path, env: dict[str, str], log_path: Path, sample_s: float = 10.0) -> TreeRun:
    """``cmd`` in ``cwd``, output to ``log_path``; its whole process tree measured by ``os.wait4``
    (the kernel adds a reaped child's descendants to its usage), the load and the command's own CPU
    (Snakemake's main process: scheduling, benchmark sampling) sampled every ``sample_s``."""
    load = [os.getloadavg()[0]]
    main_cpu = [float("nan")]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(sample_s):
            load.append(os.getloadavg()[0])
            own = own_cpu_seconds(proc.pid)
            if own == own:
                main_cpu[0] = own

    sampler = threading.Thread(target=sample, daemon=True)
    busy0, t0 = busy_cpu_seconds(), time.perf_counter()
    with open(log_path, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
        sampler.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            raise
        finally:
            stop.set()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: Popen must not wait again
    load.append(os.getloadavg()[0])
    return TreeRun(
        wall_s=wall,
        returncode=proc.returncode,
        user_s=ru.ru_utime,
        sys_s=ru.ru_stime,
        max_rss_mb=ru.ru_maxrss / 1024,
        load=load,
        main_cpu_s=main_cpu[0],
        busy_cpu_s=busy_cpu_seconds() - busy0,
    )


def run_workflow(workdir: Path, cmd: list[str], log_path: Path) -> TreeRun:
    """``cmd`` (a snakemake command) in ``workdir`` with the copy's ``src`` first on ``PYTHONPATH``,
    measured as one process tree (``run_tree``); its output goes to ``log_path``."""
    cmd = [sys.executable, "-m", *cmd]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir / "src"), os.environ.get("PYTHONPATH")])),
    }
    return run_tree(cmd, workdir, env, log_path)


def tree_summary(run: TreeRun, rules_cpu_s: float) -> dict[str, object]:
    """The tree's numbers as the JSON and the pages name them, and the gap to the rules' sum."""
    mean_load = sum(run.load) / len(run.load)
    return {
        "wall_s": run.wall_s,
        "returncode": run.returncode,
        "tree_cpu_s": run.cpu_s,
        "tree_user_s": run.user_s,
        "tree_sys_s": run.sys_s,
        "tree_max_rss_mb": run.max_rss_mb,
        "gap_cpu_s": run.cpu_s - rules_cpu_s,
        "snakemake_main_cpu_s": run.main_cpu_s,
        "load": [run.load[0], run.load[-1], mean_load],
        "others_cpu_s": max(0.0, run.busy_cpu_s - run.cpu_s),
    }


def budget_misses(res: dict[str, object], wall: float, cpu: float, rerun: float) -> list[str]:
    """One line per missed budget (a budget of 0 is not checked)."""
    misses = []
    if wall and float(res["wall_s"]) > wall:  # type: ignore[arg-type]
        misses.append(f"wall time {float(res['wall_s']):.0f} s > budget {wall:.0f} s")  # type: ignore[arg-type]
    if cpu and float(res["tree_cpu_s"]) > cpu:  # type: ignore[arg-type]
        misses.append(f"process tree {float(res['tree_cpu_s']):.0f} CPU-s > budget {cpu:.0f} CPU-s")  # type: ignore[arg-type]
    second = res.get("second_run")
    if rerun and isinstance(second, dict):
        if not second["nothing_to_do"]:
            misses.append("the second run had jobs to run (it should have nothing to do)")
        if float(second["wall_s"]) > rerun:
            misses.append(f"second run {float(second['wall_s']):.1f} s > budget {rerun:.0f} s")
    return misses


def print_report(res: dict[str, object]) -> None:
    m = res["machine"]
    load = res["load"]
    print(f"# bench_workflow: {res['command']}")
    print(f"CPU {m['cpu']} ({m['cores']} cores visible), ONEDNN_MAX_CPU_ISA={m['ONEDNN_MAX_CPU_ISA']}")  # type: ignore[index]
    print(
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}; load average {load[0]:.1f} at start, {load[1]:.1f} at the end, "  # type: ignore[index]
        f"{load[2]:.1f} on average; the rest of the machine used {res['others_cpu_s']:.0f} CPU-s meanwhile"
    )  # type: ignore[index]
    print(f"exit status {res['returncode']}; {res['jobs']} jobs")
    print(f"wall time           {res['wall_s']:8.1f} s")
    print(
        f"CPU time (tree)     {res['tree_cpu_s']:8.1f} s   (snakemake and every process it started: "
        f"{res['tree_user_s']:.1f} user + {res['tree_sys_s']:.1f} system)"
    )
    print(f"CPU time (rules)    {res['rules_cpu_s']:8.1f} s   (rules' benchmark files, cpu_time)")
    print(f"gap (tree - rules)  {res['gap_cpu_s']:8.1f} s   (start-up, Snakemake itself, what the sampler misses)")
    print(
        f"  of it Snakemake   {res['snakemake_main_cpu_s']:8.1f} s   (its main process: scheduling, benchmark sampling)"
    )
    print(
        f"CPU time (jobs)     {res['jobs_cpu_s']:8.1f} s   (each job's own account in its log, start to exit: "
        f"{res['jobs_accounted']} of {res['jobs']} jobs; {res['jobs_sys_s']:.1f} system)"
    )
    rest = float(res["tree_cpu_s"]) - float(res["jobs_cpu_s"])  # type: ignore[arg-type]
    print(f"  tree - jobs       {rest:8.1f} s   (Snakemake and what no job accounts for)")
    print(f"job time (sum)      {res['job_wall_s']:8.1f} s   (rules' benchmark files, s)")
    second = res.get("second_run")
    if isinstance(second, dict):
        what = "nothing to do" if second["nothing_to_do"] else "HAD JOBS TO RUN"
        print(f"second run          {second['wall_s']:8.1f} s   ({what})")
    print("\n| rule | jobs | CPU-s (own account) | of it system | CPU-s (benchmark) | job wall-s |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in res["top_rules"]:  # type: ignore[union-attr]
        own = f"{r['job_cpu_s']:.1f} | {r['job_sys_s']:.1f}"
        print(f"| {r['rule']} | {r['jobs']} | {own} | {r['cpu_time']:.1f} | {r['s']:.1f} |")


def second_run(work: Path, cmd: list[str], log_path: Path) -> dict[str, object]:
    """The same command once more in the finished copy: its wall time and whether it had nothing to do."""
    run = run_workflow(work, cmd, log_path)
    text = log_path.read_text(errors="replace")
    return {
        "wall_s": run.wall_s,
        "cpu_s": run.cpu_s,
        "returncode": run.returncode,
        "nothing_to_do": run.returncode == 0 and "Nothing to be done" in text,
    }


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
    ap.add_argument("--budget-wall", type=float, default=BUDGET_WALL_S, help="wall seconds (default 900; 0: off)")
    ap.add_argument(
        "--budget-cpu", type=float, default=BUDGET_CPU_S, help="CPU-s of the tree (default 0: printed, not checked)"
    )
    ap.add_argument("--budget-rerun", type=float, default=BUDGET_RERUN_S, help="second run, s (default 5; 0: no run)")
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
        run = run_workflow(work, cmd, tmp / "snakemake.log")
        rows = read_benchmarks(work)
        rules = summarise(rows, args.top)
        res: dict[str, object] = {
            "command": shlex.join(cmd),
            "machine": machine(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            **rules,
            **tree_summary(run, float(rules["rules_cpu_s"])),  # type: ignore[arg-type]
        }
        rc = run.returncode
        if rc == 0 and args.budget_rerun:
            res["second_run"] = second_run(work, cmd, tmp / "snakemake_second.log")
        res["per_job"] = rows
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
        misses = budget_misses(res, args.budget_wall, args.budget_cpu, args.budget_rerun) if rc == 0 else []
        for miss in misses:
            print(f"BUDGET MISSED: {miss}")
        if misses:
            rc = 1
        return rc
    finally:
        if args.keep:
            print(f"temporary copy kept: {work}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
