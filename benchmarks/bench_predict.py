"""Inference throughput of the predict stage (holdout.training.inference) vs a plain DataLoader loop.

Several checkpoints of one model predict on one test set. Ours: the uint8 images are put on the
device once and every checkpoint runs over them in large batches (channels_last; bf16 autocast
on CUDA). Reference: per checkpoint, a ``torch.utils.data.DataLoader`` over a float32
``TensorDataset`` of normalised NCHW images (batch 256, the usual evaluation loop), fp32.
Reports images/s (wall, best of ``--iters``) and images per CPU-second (median), the steadier
measure on a shared machine. Synthetic uint8 data in CIFAR's shape, random weights.

    PYTHONPATH=src python benchmarks/bench_predict.py [--depth 8] [--n 5000] [--checkpoints 4] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from holdout.training.augment import CIFAR10_MEAN, CIFAR10_STD
from holdout.training.inference import predict_checkpoints
from holdout.training.loop import TrainConfig, select_device, train


def _checkpoints(tmp: Path, depth: int, channels: int, k: int) -> list[Path]:
    """k checkpoints of a ResNet-preact (1 epoch each on 64 random images: weights only matter for timing)."""
    from holdout.training.models import ResNetPreactConfig

    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (64 * k, 3, 32, 32), dtype=np.uint8)
    y = rng.integers(0, 10, 64 * k)
    res = train(ResNetPreactConfig(depth=depth, base_channels=channels), TrainConfig(epochs=k, batch_size=64), x, y,
                out_dir=tmp / "o", state_dir=tmp / "s", num_checkpoints=k, device="cpu", threads=1)
    return list(res.checkpoints)


def _reference(paths: list[Path], x: np.ndarray, device: torch.device) -> None:
    from holdout.training import load_checkpoint

    mean = torch.tensor(CIFAR10_MEAN).view(1, 3, 1, 1)
    std = torch.tensor(CIFAR10_STD).view(1, 3, 1, 1)
    data = torch.utils.data.TensorDataset((torch.as_tensor(x).float() / 255 - mean) / std)
    for p in paths:
        model, _ = load_checkpoint(p, device=device)
        with torch.no_grad():
            for (xb,) in torch.utils.data.DataLoader(data, batch_size=256, shuffle=False):
                model(xb.to(device)).argmax(1).cpu()


def _time(fn, iters: int) -> tuple[float, float]:
    walls, cpus = [], []
    fn()  # warm-up
    for _ in range(iters):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return min(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--checkpoints", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--nchw", action="store_true", help="ours without channels_last")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev = select_device(args.device)
    x = np.random.default_rng(1).integers(0, 256, (args.n, 3, 32, 32), dtype=np.uint8)
    y = np.zeros(args.n, dtype=np.int64)
    with tempfile.TemporaryDirectory() as td:
        paths = _checkpoints(Path(td), args.depth, args.channels, args.checkpoints)
        ours = _time(lambda: predict_checkpoints("m", paths, {"t": (x, y)}, batch_size=args.batch_size,
                                                 device=str(dev), channels_last=not args.nchw), args.iters)
        ref = _time(lambda: _reference(paths, x, dev), args.iters)
    total = args.n * args.checkpoints
    print(f"ResNet-preact-{args.depth}, {args.channels} ch, {args.checkpoints} checkpoints x {args.n} images, "
          f"{dev}, {args.threads} thread(s)")
    print("| predict | images/s | images per CPU-s |\n|---|---:|---:|")
    layout = "NCHW" if args.nchw else "channels_last"
    rows = ((f"holdout (uint8 on device, {layout}, batch {args.batch_size})", ours),
            ("DataLoader loop (fp32 NCHW, batch 256)", ref))
    for name, (wall, cpu) in rows:
        print(f"| {name} | {total / wall:.0f} | {total / cpu:.0f} |")
    print(f"ratio (wall): {ref[0] / ours[0]:.2f}x, (CPU): {ref[1] / ours[1]:.2f}x")


if __name__ == "__main__":
    main()
