"""Measured training cost on one GPU: the calibration ``holdout plan --calibration`` reads.

A training job's time is ``epochs x steps per epoch x t_step + epochs x t_eval + t_start``, where
``t_step`` (one optimisation step: augmentation, forward of every view, backward, optimizer) depends
on the network, the batch size, the number of views (dual cutout forwards and backwards two) and the
image size, and hardly on anything else of the recipe. A **cell** is one such combination; the
jobs of a plan need few distinct cells (``config/paper.yaml``'s 320 search draws need at most 64).

This module lists the cells of a set of config files ([`plan_cells`][holdout.training.calibration.plan_cells]),
times each on the device the code will train on ([`time_cell`][holdout.training.calibration.time_cell]:
the engine's own ``augment_batch`` and ``training_step``, bf16 autocast and channels_last as
[`execution_plan`][holdout.training.device.execution_plan] sets them, after warm-up, synchronised), and
measures the aggregate images/s of several jobs sharing one GPU
([`concurrent_throughput`][holdout.training.calibration.concurrent_throughput]). Each timing says whether
``torch.compile`` was on: compiling every cell would cost a minute per architecture, so a
calibration times every cell eagerly and a few cells compiled too; the plan uses the compiled time
where it was measured and the eager time elsewhere, and says which.

Command line (``python -m holdout.training.calibration``): ``cells`` writes the cells of config files
as JSON; ``measure`` times them and writes the calibration JSON; ``worker`` is one of the concurrent
jobs. Everything here is a measurement of the machine it ran on; the JSON names that machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from holdout.training.cost import CALIBRATION_FORMAT, Cell, architecture_key, cell_key, load_calibration

__all__ = [
    "Cell",
    "architecture_of",
    "StepTiming",
    "cell_key",
    "concurrent_throughput",
    "load_calibration",
    "machine_facts",
    "merge_calibrations",
    "plan_cells",
    "time_cell",
]

LOG = logging.getLogger("holdout.training.calibration")


@dataclass(frozen=True)
class StepTiming:
    """One cell timed on one device: seconds per optimisation step (median of the timed blocks),
    the first step's seconds (compilation included when ``compiled``), seconds to evaluate 10,000
    test images, and the steps timed."""

    key: str
    compiled: bool
    seconds_per_step: float
    first_step_s: float
    eval_s_per_10k: float
    steps_timed: int
    images_per_s: float


def architecture_of(key: str) -> str:
    """The network part of a cell key (evaluation time depends on it alone)."""
    return key.split(" | batch ")[0]


def _job_cell(model: Any, train: Any) -> tuple[str, int, int, int]:
    views = train.augment.num_views
    size = train.augment.window or 32
    return cell_key(model, train.batch_size, views, size), train.batch_size, views, size


def plan_cells(specs: Iterable[tuple[Any, Any]]) -> list[Cell]:
    """The distinct cells of ``(model_config, TrainConfig)`` pairs, in first-seen order, with job counts."""
    cells: dict[str, Cell] = {}
    for model, train in specs:
        key, batch, views, size = _job_cell(model, train)
        if key in cells:
            c = cells[key]
            cells[key] = Cell(c.key, c.model, c.train, c.batch_size, c.views, c.image_size, c.jobs + 1)
        else:
            cells[key] = Cell(key, architecture_key(model).to_dict(), train.to_dict(), batch, views, size)
    return list(cells.values())


def machine_facts() -> dict[str, Any]:
    """The device, driver and library versions a calibration was measured with."""
    import platform

    import torch

    facts: dict[str, Any] = {
        "torch": str(torch.__version__),
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "python": platform.python_version(),
        "host_cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        gib = round(p.total_memory / 2**30, 1)
        facts.update(device=p.name, multiprocessors=p.multi_processor_count, memory_gib=gib)
    else:
        facts.update(device=f"cpu ({platform.processor() or platform.machine()})")
    return facts


def _sync(device: Any) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _step_fn(
    cell: Cell, device: str, compile: bool, eval_images: int = 10_000
) -> tuple[Callable[[int], None], Callable[[], float], Any]:
    """A closure running optimisation step ``i`` of ``cell`` on random uint8 data (on the device),
    and one timing an evaluation of 10,000 images."""
    import numpy as np
    import torch

    from holdout.training.augment import augment_batch
    from holdout.training.device import execution_plan
    from holdout.training.evaluation import evaluate
    from holdout.training.optim import TrainConfig, build_optimizer, training_step
    from holdout.training.registry import build_network, model_config_from_dict

    model = model_config_from_dict(cell.model)
    train = TrainConfig.from_dict(dict(cell.train))
    plan = execution_plan(model, device, None, None, compile, LOG)
    if plan.device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    net = build_network(model).to(plan.device).to(memory_format=plan.memory_format).train()
    opt = build_optimizer(net, train)
    fwd = torch.compile(net) if plan.compile else net
    n, bs, c = 8 * cell.batch_size, cell.batch_size, model.in_channels
    gen = torch.Generator(device=plan.device).manual_seed(0)
    images = torch.randint(0, 256, (n, c, 32, 32), dtype=torch.uint8, generator=gen, device=plan.device)
    labels = torch.randint(0, model.num_classes, (n,), generator=gen, device=plan.device)
    rng = np.random.default_rng(0)

    def step(i: int) -> None:
        lo = (i % 8) * bs
        batch = augment_batch(
            images[lo : lo + bs], labels[lo : lo + bs], train.augment, model.num_classes, gen, rng, plan.memory_format
        )
        training_step(fwd, opt, batch, train.augment.dual_cutout_alpha, plan.device.type, plan.autocast)

    def eval_10k() -> float:
        m = eval_images
        test = torch.randint(0, 256, (m, c, 32, 32), dtype=torch.uint8, generator=gen, device=plan.device)
        test_labels = torch.randint(0, model.num_classes, (m,), generator=gen, device=plan.device)
        args = (test, test_labels, train.augment, 1024, plan.device, plan.memory_format, plan.autocast)
        evaluate(fwd, *args)  # warm-up (and, compiled, the eval graph)
        _sync(plan.device)
        t = time.perf_counter()
        evaluate(fwd, *args)
        _sync(plan.device)
        net.train()
        return (time.perf_counter() - t) * 10_000 / m

    return step, eval_10k, plan


def time_cell(
    cell: Cell,
    device: str = "cuda",
    *,
    compile: bool = False,
    warmup: int = 3,
    min_seconds: float = 0.5,
    with_eval: bool = True,
    eval_images: int = 10_000,
) -> StepTiming:
    """Seconds per training step of ``cell`` on ``device``: ``warmup`` steps (the first one timed
    alone: compilation when ``compile``), then blocks of steps until ``min_seconds`` have passed
    (at least 3 blocks of at least 5 steps); the median block's time per step. ``with_eval``: also
    time one evaluation of ``eval_images`` images, scaled to 10,000 (NaN otherwise)."""
    step, eval_10k, plan = _step_fn(cell, device, compile, eval_images)
    t = time.perf_counter()
    step(0)
    _sync(plan.device)
    first = time.perf_counter() - t
    for i in range(1, warmup):
        step(i)
    _sync(plan.device)
    t = time.perf_counter()
    step(warmup)
    _sync(plan.device)
    block = max(5, int(min_seconds / 3 / max(time.perf_counter() - t, 1e-6)))
    per_step, i, start = [], warmup + 1, time.perf_counter()
    while len(per_step) < 3 or time.perf_counter() - start < min_seconds:
        t = time.perf_counter()
        for _ in range(block):
            step(i)
            i += 1
        _sync(plan.device)
        per_step.append((time.perf_counter() - t) / block)
    s = sorted(per_step)[len(per_step) // 2]
    ev = eval_10k() if with_eval else float("nan")
    return StepTiming(cell.key, plan.compile, s, first, ev, block * len(per_step), cell.batch_size / s)


def _worker(cell: Cell, device: str, index: int, phases: Sequence[tuple[float, float, int]]) -> list[dict[str, Any]]:
    """Concurrent job number ``index``: warm up, then in each phase ``(start wall clock, seconds,
    jobs)`` with ``index < jobs`` count steps for ``seconds``; sit idle in the others."""
    step, _, plan = _step_fn(cell, device, False)
    for i in range(3):
        step(i)
    _sync(plan.device)
    out, steps = [], 3
    for start_at, seconds, jobs in phases:
        if index >= jobs:
            continue
        ready = time.time() <= start_at
        while time.time() < start_at:
            time.sleep(0.002)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(5):
                step(steps + n)
                n += 1
            _sync(plan.device)
        elapsed = time.perf_counter() - t0
        steps += n
        out.append({"jobs": jobs, "images_per_s": n * cell.batch_size / elapsed, "ready": ready})
    return out


def concurrent_throughput(
    cell: Cell,
    jobs: Sequence[int] = (1, 2, 4, 8),
    *,
    device: str = "cuda",
    seconds: float = 5.0,
    startup_s: float = 25.0,
) -> list[dict[str, Any]]:
    """Aggregate training images/s of 1, 2, 4 ... processes training ``cell`` at once on one device
    (each its own process, as Snakemake runs jobs sharing a GPU slot). ``max(jobs)`` workers start and
    warm up together; then, phase by phase, the first ``n`` of them count steps over the same
    ``seconds`` of wall clock while the others idle."""
    t = time.time() + startup_s
    phases = [(t + k * (seconds + 0.5), seconds, n) for k, n in enumerate(jobs)]
    cmd = [sys.executable, "-m", "holdout.training.calibration", "worker", "--device", device]
    cmd += ["--phases", json.dumps(phases), "--cell", json.dumps(asdict(cell))]
    procs = [subprocess.Popen([*cmd, "--index", str(i)], stdout=subprocess.PIPE, text=True) for i in range(max(jobs))]
    per_worker = []
    for p in procs:
        out, _ = p.communicate(timeout=startup_s + len(jobs) * (seconds + 0.5) + 120)
        if p.returncode != 0:
            raise RuntimeError(f"calibration worker failed (exit {p.returncode})")
        per_worker.append(json.loads(out.strip().splitlines()[-1]))
    rows = []
    for n in jobs:
        mine = [r for w in per_worker for r in w if r["jobs"] == n]
        rows.append(
            {
                "cell": cell.key,
                "jobs": n,
                "images_per_s": sum(r["images_per_s"] for r in mine),
                "per_job_images_per_s": [r["images_per_s"] for r in mine],
                "all_ready_at_start": all(r["ready"] for r in mine),
            }
        )
    return rows


# --------------------------------------------------------------------------- command line


def _time_cells(cells: Sequence[Cell], args: argparse.Namespace, out: dict[str, Any], deadline: float) -> None:
    """Eager timings of ``cells`` (most jobs first) until ``deadline``; written after each cell."""
    evaluated = {architecture_of(k) for k in out["cells"]}
    for cell in sorted(cells, key=lambda c: -c.jobs):
        if cell.key in out["cells"]:
            continue
        if time.monotonic() > deadline:
            out["skipped"].append(cell.key)
            continue
        arch = architecture_of(cell.key)
        kw = {"min_seconds": args.min_seconds, "with_eval": arch not in evaluated, "eval_images": args.eval_images}
        evaluated.add(arch)
        timing = asdict(time_cell(cell, args.device, **kw))
        out["cells"][cell.key] = {"jobs": cell.jobs, "model": cell.model, "timings": [timing]}
        LOG.info("%s: %.2f ms", cell.key, out["cells"][cell.key]["timings"][0]["seconds_per_step"] * 1e3)
        _write_json(Path(args.out), out)


def _measure(args: argparse.Namespace) -> int:
    """Eager cells (until ``--cells-budget-s``), the concurrent jobs, then the compiled cells (until
    ``--budget-s``); the JSON is rewritten after every measurement, so a time limit loses little."""
    cells = [Cell(**c) for c in json.loads(Path(args.cells).read_text())["cells"]]
    by_key = {c.key: c for c in cells}
    t0 = time.monotonic()
    out: dict[str, Any] = {"format": CALIBRATION_FORMAT, "machine": machine_facts(), "cells": {}, "skipped": []}
    out["settings"] = {"bf16_autocast": args.device == "cuda", "channels_last": "execution_plan default"}
    _write_json(Path(args.out), out)
    _time_cells(cells, args, out, t0 + args.cells_budget_s)
    if args.concurrent:
        cell = by_key[args.concurrent_cell] if args.concurrent_cell else cells[0]
        kw = {"device": args.device, "seconds": args.concurrent_seconds, "startup_s": args.concurrent_startup}
        out["concurrent"] = concurrent_throughput(cell, args.concurrent, **kw)
        _write_json(Path(args.out), out)
    for key in args.compile_cell or []:
        if time.monotonic() > t0 + args.budget_s:
            break
        kw = {"compile": True, "min_seconds": args.min_seconds, "with_eval": False}
        timing = asdict(time_cell(by_key[key], args.device, **kw))
        entry = {"jobs": by_key[key].jobs, "model": by_key[key].model, "timings": []}
        out["cells"].setdefault(key, entry)["timings"].append(timing)
        LOG.info("%s compiled: %.2f ms", key, timing["seconds_per_step"] * 1e3)
        _write_json(Path(args.out), out)
    return 0


def merge_calibrations(parts: Sequence[Mapping[str, Any]], cells: Sequence[Cell], names: Sequence[str]) -> dict:
    """One calibration from several runs on the same device: every cell's timings together (with
    the cell's network from ``cells``), the concurrent-jobs table of the run that has one."""
    devices = {p["machine"].get("device") for p in parts}
    if len(devices) != 1:
        raise ValueError(f"calibration merge: the runs come from different devices {sorted(map(str, devices))}")
    models = {c.key: c.model for c in cells}
    out: dict[str, Any] = {"format": CALIBRATION_FORMAT, "machine": dict(parts[0]["machine"]), "sources": list(names)}
    out["settings"], out["cells"] = dict(parts[0].get("settings", {})), {}
    for part in parts:
        for key, cell in part["cells"].items():
            entry = out["cells"].setdefault(key, {"jobs": cell["jobs"], "model": models.get(key), "timings": []})
            entry["timings"] += cell["timings"]
        if part.get("concurrent"):
            out["concurrent"] = part["concurrent"]
    timed = set(out["cells"])
    out["skipped"] = [c.key for c in cells if c.key not in timed]
    return out


def _merge(args: argparse.Namespace) -> int:
    cells = [Cell(**c) for c in json.loads(Path(args.cells).read_text())["cells"]]
    parts = [load_calibration(p) for p in args.inputs]
    out = merge_calibrations(parts, cells, [Path(p).name for p in args.inputs])
    _write_json(Path(args.out), out)
    print(f"wrote {args.out}: {len(out['cells'])} cells timed, {len(out['skipped'])} not")
    return 0


def _write_json(path: Path, obj: Mapping[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    tmp.replace(path)


def _cells(args: argparse.Namespace) -> int:
    from holdout.training.plan import load_merged_config, plan_specs

    cells: dict[str, Cell] = {}
    for group in args.configfile:
        cfg = load_merged_config(group.split(","), args.base)
        for c in plan_cells((s.model, s.train) for s in plan_specs(cfg)):
            old = cells.get(c.key)
            cells[c.key] = c if old is None else Cell(**{**asdict(old), "jobs": old.jobs + c.jobs})
    _write_json(Path(args.out), {"cells": [asdict(c) for c in cells.values()]})
    print(f"wrote {args.out}: {len(cells)} cells")
    return 0


def _worker_cmd(args: argparse.Namespace) -> int:
    phases = [tuple(p) for p in json.loads(args.phases)]
    print(json.dumps(_worker(Cell(**json.loads(args.cell)), args.device, args.index, phases)))
    return 0


def _throughput_main(argv: Sequence[str]) -> int:
    from holdout.training.throughput import main as throughput

    return throughput(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m holdout.training.calibration {cells,measure,merge,throughput,worker}``."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["throughput"]:  # its own parser: python -m holdout.training.throughput
        return _throughput_main(args_in[1:])
    p = argparse.ArgumentParser(prog="python -m holdout.training.calibration", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cells", help="the cells (network, batch, views, size) of config files, as JSON")
    c.add_argument("--configfile", nargs="+", required=True, help="one plan per argument; FILE or FILE1,FILE2 merged")
    c.add_argument("--base", default="config/config.yaml")
    c.add_argument("--out", required=True)
    c.set_defaults(func=_cells)
    m = sub.add_parser("measure", help="time every cell; write the calibration JSON")
    m.add_argument("--cells", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--device", default="cuda")
    m.add_argument("--cells-budget-s", type=float, default=90.0, help="stop starting eager cells after this many s")
    m.add_argument("--budget-s", type=float, default=180.0, help="stop starting compiled cells after this many s")
    m.add_argument("--min-seconds", type=float, default=0.4, help="timed seconds per cell")
    m.add_argument("--eval-images", type=int, default=10_000, help="images per timed evaluation (scaled to 10k)")
    m.add_argument("--compile-cell", action="append", help="also time this cell (key) with torch.compile")
    m.add_argument("--concurrent", type=int, nargs="*", help="numbers of concurrent jobs to measure (e.g. 1 2 4 8)")
    m.add_argument("--concurrent-seconds", type=float, default=5.0, help="timed seconds per number of jobs")
    m.add_argument("--concurrent-startup", type=float, default=25.0, help="seconds the workers get to warm up")
    m.add_argument("--concurrent-cell", help="the cell (key) the concurrent jobs train (default: the first)")
    m.set_defaults(func=_measure)
    g = sub.add_parser("merge", help="several calibration runs on one device into one file")
    g.add_argument("inputs", nargs="+", help="calibration JSON files written by measure")
    g.add_argument("--cells", required=True, help="the cells JSON the runs timed (their networks are copied)")
    g.add_argument("--out", required=True)
    g.set_defaults(func=_merge)
    t = sub.add_parser(
        "throughput",
        add_help=False,
        help="one cell eager, as a CUDA graph and in fused groups (python -m holdout.training.throughput)",
    )
    t.add_argument("rest", nargs=argparse.REMAINDER)
    w = sub.add_parser("worker", help="one of the concurrent jobs (internal)")
    w.add_argument("--cell", required=True)
    w.add_argument("--device", default="cuda")
    w.add_argument("--index", type=int, required=True)
    w.add_argument("--phases", required=True, help="JSON list of [start wall clock, seconds, jobs]")
    w.set_defaults(func=_worker_cmd)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
