"""Build a site: audit every benchmark into ``<out>/<benchmark>/`` with ``holdout audit``, read what it
wrote, write the pages and every number beside them. The site is built in a sibling temporary folder
and renamed into place: ``out`` appears whole or not at all, and an existing ``out`` that is not a site
(no ``site.json`` written by this builder) is refused."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from holdout.site.audits import AuditRun, run_audits
from holdout.site.collect import BenchmarkResult, index_table, model_rows, read_benchmark
from holdout.site.pages import benchmark_href, benchmark_page, index_page, model_href, model_page
from holdout.site.spec import SiteSpec
from holdout.site.stage import audit_argv, stage_inputs

__all__ = ["SiteError", "Site", "build_site", "GENERATOR"]

GENERATOR = "holdout site"


class SiteError(RuntimeError):
    """A site that cannot be built (one line: the benchmark or folder and what went wrong)."""


@dataclass(frozen=True)
class Site:
    """A built site: its folder, the index rows, every model's rows and the audits' runs."""

    out: Path
    results: tuple[BenchmarkResult, ...]
    models: pd.DataFrame
    runs: tuple[AuditRun, ...]
    seconds: float


def check_out(out: Path) -> None:
    """Refuse an existing ``out`` that is neither empty nor a site this builder wrote."""
    if out.exists() and not out.is_dir():
        raise SiteError(f"--out {out}: a file, not a folder")
    if out.is_dir() and any(out.iterdir()):
        try:
            ours = json.loads((out / "site.json").read_text()).get("generator") == GENERATOR
        except (OSError, ValueError, AttributeError):
            ours = False
        if not ours:
            raise SiteError(f"--out {out}: holds files that are not a holdout site; give a new or empty folder")


def _audit_all(spec: SiteSpec, tmp: Path, workers: int, progress: Callable[[str], None]) -> list[AuditRun]:
    jobs = []
    for b in spec.benchmarks:
        try:
            inputs = stage_inputs(b, tmp / "inputs" / b.name)
        except (OSError, ValueError, KeyError) as exc:
            raise SiteError(f"benchmark {b.name}: its input could not be read: {exc}") from None
        jobs.append((b.name, audit_argv(b, inputs, tmp / b.name)))

    def said(run: AuditRun) -> None:
        progress(
            f"[{len(done) + 1}/{len(jobs)}] {run.name}: {'ok' if run.rc == 0 else 'failed'} in {run.seconds:.1f} s"
        )
        done.append(run)

    done: list[AuditRun] = []
    runs = run_audits(jobs, workers, said)
    logs = tmp / "audit_logs"
    logs.mkdir()
    for run in runs:
        (logs / f"{run.name}.txt").write_text(run.output)
    for run in runs:
        if run.rc != 0:
            raise SiteError(f"benchmark {run.name}: {run.error}")
    return runs


def _write(spec: SiteSpec, tmp: Path, runs: list[AuditRun]) -> tuple[list[BenchmarkResult], pd.DataFrame]:
    results = [read_benchmark(b.name, b.title, b.kind, tmp / b.name) for b in spec.benchmarks]
    models = pd.concat([model_rows(r, tmp / r.name, spec.aliases) for r in results], ignore_index=True)
    counts = models.groupby("model")["benchmark"].nunique()
    shared = models[models["model"].isin(counts[counts >= 2].index)]
    shared_names = set(shared["model"])
    index_table(results).to_csv(tmp / "index.csv", index=False)
    shared.to_csv(tmp / "models.csv", index=False)
    (tmp / "index.html").write_text(index_page(spec.title, results, shared, spec.source))
    for r in results:
        (tmp / benchmark_href(r.name)).write_text(benchmark_page(r, tmp / r.name, shared_names, spec.aliases))
    for m, rows in shared.groupby("model", sort=True):
        (tmp / model_href(str(m))).write_text(model_page(str(m), rows))
    seconds = {run.name: round(run.seconds, 2) for run in runs}
    argv = {run.name: list(run.argv) for run in runs}
    site = {
        "generator": GENERATOR, "title": spec.title, "spec": spec.source,
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "benchmarks": [r.as_dict() | {"audit_argv": argv[r.name], "audit_seconds": seconds[r.name]} for r in results],
        "models": json.loads(shared.to_json(orient="records")),
    }  # fmt: skip
    (tmp / "site.json").write_text(json.dumps(site, indent=1) + "\n")
    return results, shared


def _replace(tmp: Path, out: Path) -> None:
    """``tmp`` renamed to ``out``; a previous site moved aside first and removed after."""
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def build_site(spec: SiteSpec, out: str | Path, workers: int = 1, progress: Callable[[str], None] = print) -> Site:
    """Build the site of ``spec`` into ``out`` (atomically).

    Raises [`SiteError`][holdout.site.build.SiteError] (one line) when an input or an audit fails."""
    out = Path(out)
    check_out(out)
    start = time.perf_counter()
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.partial-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        runs = _audit_all(spec, tmp, workers, progress)
        results, shared = _write(spec, tmp, runs)
        _replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Site(out, tuple(results), shared, tuple(runs), time.perf_counter() - start)
