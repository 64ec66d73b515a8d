"""Training throughput of one cell three ways: eager, as a whole-step CUDA graph, and fused groups.

``python -m holdout.training.throughput --cells CELLS.json --cell KEY --into CALIBRATION.json``
times the cell's step (the engine's own ``augment_batch`` and step, bf16 and channels_last as
[`execution_plan`][holdout.training.device.execution_plan] sets them, synchronised, after warm-up):

- ``eager``: [`training_step`][holdout.training.optim.training_step], as the calibration times it;
- ``graph``: [`GraphStep`][holdout.training.graphs.GraphStep] (CUDA only; elsewhere not timed);
- ``fused M``: [`fused_step`][holdout.training.fused.fused_step] over M members, each on its own
  batch, for each ``--members`` M.

Each row gives seconds per step, images/s per model and together. The rows go into the calibration
file's ``throughput`` list (``holdout plan --calibration`` reads the fused rows to cost the groups of
[`holdout.training.fused`][holdout.training.fused]); nothing else of that file changes. Everything
is a measurement of the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "time_mode", "time_steps"]

LOG = logging.getLogger("holdout.training.throughput")


def time_steps(step: Callable[[int], None], sync: Callable[[], None], warmup: int = 5, seconds: float = 1.0) -> float:
    """Median seconds per call of ``step(i)`` over blocks of calls (at least 3 blocks, ``seconds`` in
    all), after ``warmup`` calls."""
    for i in range(warmup):
        step(i)
    sync()
    t = time.perf_counter()
    step(warmup)
    sync()
    block = max(3, int(seconds / 3 / max(time.perf_counter() - t, 1e-6)))
    per_step, i, start = [], warmup + 1, time.perf_counter()
    while len(per_step) < 3 or time.perf_counter() - start < seconds:
        t = time.perf_counter()
        for _ in range(block):
            step(i)
            i += 1
        sync()
        per_step.append((time.perf_counter() - t) / block)
    return sorted(per_step)[len(per_step) // 2]


def _setup(cell: Any, device: str, members: int) -> tuple[Any, list[Any], list[Any], Callable[[int, int], Any], Any]:
    """``members`` networks of ``cell`` with their optimizers, a batch maker and the plan."""
    import numpy as np
    import torch

    from holdout.training.augment import augment_batch
    from holdout.training.device import execution_plan
    from holdout.training.optim import TrainConfig, build_optimizer
    from holdout.training.registry import build_network, model_config_from_dict

    model = model_config_from_dict(cell.model)
    train = TrainConfig.from_dict(dict(cell.train))
    plan = execution_plan(model, device, None, None, False, LOG)
    if plan.device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    nets, opts = [], []
    for seed in range(members):
        torch.manual_seed(seed)
        nets.append(build_network(model).to(plan.device).to(memory_format=plan.memory_format).train())
        opts.append(build_optimizer(nets[-1], train))
    n, bs = 8 * cell.batch_size, cell.batch_size
    gen = torch.Generator(device=plan.device).manual_seed(0)
    images = torch.randint(0, 256, (n, model.in_channels, cell.image_size, cell.image_size), dtype=torch.uint8,
                           generator=gen, device=plan.device)  # fmt: skip
    labels = torch.randint(0, model.num_classes, (n,), generator=gen, device=plan.device)
    rng = np.random.default_rng(0)

    def batch(i: int, member: int) -> Any:
        lo = ((i + member) % 8) * bs
        sl = slice(lo, lo + bs)
        return augment_batch(images[sl], labels[sl], train.augment, model.num_classes, gen, rng, plan.memory_format)

    return train, nets, opts, batch, plan


def _row(cell: Any, mode: str, members: int, seconds: float) -> dict[str, Any]:
    together = members * cell.batch_size / seconds
    return {"cell": cell.key, "mode": mode, "members": members, "seconds_per_step": seconds,
            "images_per_s_per_model": together / members, "images_per_s": together}  # fmt: skip


def time_mode(cell: Any, device: str, mode: str, members: int = 1, seconds: float = 1.0) -> dict[str, Any] | None:
    """One row: ``mode`` ``"eager"``, ``"graph"`` (None off CUDA) or ``"fused"`` (``members`` networks)."""
    import torch

    from holdout.training.fused import fused_step, meta_copy
    from holdout.training.graphs import GraphStep, use_tensor_lr
    from holdout.training.optim import training_step

    train, nets, opts, batch, plan = _setup(cell, device, members if mode == "fused" else 1)
    alpha, dev = train.augment.dual_cutout_alpha, plan.device
    if mode == "graph" and dev.type != "cuda":
        LOG.info("graph: not timed on %s (CUDA graphs need a CUDA device)", dev)
        return None
    if mode == "graph":
        use_tensor_lr(opts[0], dev)
        graph = GraphStep(nets[0], opts[0], alpha, dev, plan.autocast)

        def step(i: int) -> None:
            graph(batch(i, 0))
    elif mode == "fused":
        base = meta_copy(nets[0])

        def step(i: int) -> None:
            batches = [batch(i, k) for k in range(members)]
            fused_step(nets, opts, batches, [alpha] * members, dev.type, plan.autocast, base)
    else:

        def step(i: int) -> None:
            training_step(nets[0], opts[0], batch(i, 0), alpha, dev.type, plan.autocast)

    def sync() -> None:
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    row = _row(cell, mode, len(nets), time_steps(step, sync, warmup=3 if mode == "fused" else 5, seconds=seconds))
    LOG.info("%s %s x%d: %.2f ms per step, %.0f images/s together", cell.key, mode, len(nets),
             row["seconds_per_step"] * 1e3, row["images_per_s"])  # fmt: skip
    return row


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m holdout.training.throughput``: eager, graph and fused rows of one cell into a
    calibration file's ``throughput`` list (or a new JSON)."""
    from holdout.training.cost import Cell

    p = argparse.ArgumentParser(prog="python -m holdout.training.throughput", description=__doc__.split("\n")[0])
    p.add_argument("--cells", required=True, help="the cells JSON (python -m holdout.training.calibration cells)")
    p.add_argument("--cell", help="the cell's key (default: the first cell)")
    p.add_argument("--into", required=True, help="calibration JSON to add the rows to (created if missing)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--members", type=int, nargs="*", default=[4, 8, 16], help="fused group sizes")
    p.add_argument("--seconds", type=float, default=1.0, help="timed seconds per row")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    cells = [Cell(**c) for c in json.loads(Path(args.cells).read_text())["cells"]]
    by_key = {c.key: c for c in cells}
    if args.cell is not None and args.cell not in by_key:
        print(f"--cell {args.cell!r}: not a cell of {args.cells}", file=sys.stderr)
        return 2
    cell = by_key[args.cell] if args.cell else cells[0]
    into = Path(args.into)
    out = json.loads(into.read_text()) if into.exists() else {}
    rows = out.setdefault("throughput", [])
    runs = [("eager", 1), ("graph", 1), *(("fused", m) for m in args.members)]
    for mode, m in runs:
        row = time_mode(cell, args.device, mode, m, args.seconds)
        if row is not None:
            rows.append(row)
            _write(into, out)
        if args.device.startswith("cuda"):
            import torch

            torch.cuda.empty_cache()
    return 0


def _write(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    tmp.replace(path)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
