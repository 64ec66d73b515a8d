"""Planning time of the search (or seeds) study against its ``n_models``: the schema's maximum.

Times ``snakemake -n`` on the offline config with the study enabled and ``n_models`` set to each
value given (median wall time, the jobs planned, peak memory of the Snakemake process): about the
largest value that plans in under 10 s is the maximum in config/schema.yaml.

    PYTHONPATH=src python benchmarks/bench_search_plan.py [--section seeds] [--n 12 500 1000 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def plan(n_models: int, section: str = "search") -> tuple[float, int, int]:
    """Wall seconds, jobs planned and peak KiB of one dry run with ``<section>.n_models = n_models``."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as fh:
        fh.write(f"{section}:\n  enabled: true\n  n_models: {n_models}\n")
    cmd = ["/usr/bin/time", "-f", "PEAK:%M", "snakemake", "-n", "--configfile", "config/offline.yaml", fh.name]
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    jobs = re.search(r"^total\s+(\d+)", out.stdout, re.M)
    peak = re.search(r"PEAK:(\d+)", out.stderr)
    Path(fh.name).unlink()
    return wall, int(jobs.group(1)) if jobs else 0, int(peak.group(1)) if peak else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[12, 500, 1000, 2000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--section", choices=["search", "seeds"], default="search")
    args = parser.parse_args(argv)
    print("n_models  median_s  jobs  peak_MB")
    for n in args.n:
        runs = [plan(n, args.section) for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in runs)
        print(f"{n:8d}  {wall:8.2f}  {runs[0][1]:4d}  {max(r[2] for r in runs) / 1024:7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
