"""Time of ``snakemake -n`` (parse, config checks, DAG) on the offline config: every SLURM job pays it.

Runs ``snakemake -n --configfile config/offline.yaml --cores 2`` ``--runs`` times in two
working directories and prints the median wall time and median CPU time (user + sys of the
Snakemake process) of each, and the heavy packages (torch, scipy, matplotlib, pandas) the
parse imported:

- ``existing outputs``: ``--workdir`` (default: the repository), after a finished run the
  dry run that every cluster job repeats ("Nothing to be done");
- ``no outputs``: a fresh temporary folder (the whole DAG of the offline run is planned).

    PYTHONPATH=src python benchmarks/bench_parse.py [--runs 5] [--workdir .] [--configfile ...]

The issue-21 goal is <= 3 s on a 2-core AVX2 machine; on a busy machine read the CPU column.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "scipy", "matplotlib", "pandas")
# Snakemake's main in this process, then the heavy packages it left in sys.modules (on stderr).
WRAPPER = (
    "import sys\nfrom snakemake.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    code = exc.code\nelse:\n    code = 0\n"
    f"print('HEAVY:' + ','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def time_dry_run(workdir: Path, configfiles: list[Path]) -> tuple[float, float, str]:
    """One ``snakemake -n`` in ``workdir``: (wall s, CPU s of the child, heavy packages imported)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-c", WRAPPER, "-n", "-s", str(REPO / "Snakefile"), "-d", str(workdir)]
    cmd += ["--cores", "2", "--nolock", "--configfile", *map(str, configfiles)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"snakemake -n failed in {workdir}:\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    heavy = next((ln[6:] for ln in proc.stderr.splitlines() if ln.startswith("HEAVY:")), "?")
    return wall, cpu, heavy or "-"


def mirror_config(folder: Path, configfile: Path) -> Path:
    """The configfile's ``data.mirror`` made absolute (relative to the repository), for runs whose
    working directory is not the repository."""
    data = dict(yaml.safe_load(configfile.read_text()).get("data", {}))
    mirror = Path(data.get("mirror", "../shared/data"))
    data["mirror"] = str(mirror if mirror.is_absolute() else (REPO / mirror).resolve())
    path = folder / "mirror.yaml"
    path.write_text(yaml.safe_dump({"data": data}))
    return path


def report(label: str, runs: list[tuple[float, float, str]]) -> None:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    print(f"{label:<18} {len(runs):>4} {wall:>13.2f} {cpu:>12.2f}  {runs[-1][2]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="dry runs per working directory (median)")
    ap.add_argument("--workdir", type=Path, default=REPO, help="folder with a finished run (default: repository)")
    ap.add_argument("--configfile", type=Path, default=REPO / "config/offline.yaml")
    args = ap.parse_args()
    has_outputs = (args.workdir / "results").is_dir()
    print(f"snakemake -n --configfile {args.configfile.name}; median of {args.runs} runs")
    print(f"{'working dir':<18} {'runs':>4} {'wall (s)':>13} {'CPU (s)':>12}  heavy packages imported")
    with tempfile.TemporaryDirectory(prefix="bench_parse_") as tmp:
        tmp_path = Path(tmp)
        configs = [args.configfile, mirror_config(tmp_path, args.configfile)]
        runs = [time_dry_run(args.workdir, configs) for _ in range(args.runs)]
        report("existing outputs" if has_outputs else "workdir (no run)", runs)
        empty = tmp_path / "work"
        empty.mkdir()
        report("no outputs", [time_dry_run(empty, configs) for _ in range(args.runs)])


if __name__ == "__main__":
    main()
