"""Training and inference throughput of holdout.training on this machine (CPU by default).

Compares, for ResNet-preact-20 and -110 (16 base channels, batch 128, random
crop 4 + flip), our loop (uint8 data in memory, batched per-sample augmentation
on the device, channels_last) against a reference loop of the same model fed by
a torch DataLoader with torchvision per-image transforms (RandomCrop(32, 4),
RandomHorizontalFlip, ToTensor, Normalize; NCHW). Then the slowdown of each
Table 2 augmentation relative to crop + flip, and inference throughput of
:func:`holdout.training.predict`. Each figure is the best of a few iterations after one warm-up iteration
(robust to other processes sharing the CPU); "per CPU-s" divides by the
process CPU time instead (median), which on a shared machine is the steadier
measure of work. Synthetic uint8 data in CIFAR's shape.

    PYTHONPATH=src python benchmarks/bench_training.py [--iters 4] [--threads 2] [--device cpu]

On a machine shared with other jobs use ``--threads 1``: multi-threaded wall-clock
timings there are dominated by the other processes (the README's numbers are
single-threaded for that reason).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch
import torchvision.transforms as T
from PIL import Image

from holdout.training.augment import CIFAR10_MEAN, CIFAR10_STD, AugmentConfig, augment_batch
from holdout.training.models import ResNetPreactConfig, build_resnet_preact
from holdout.training.loop import TrainConfig, build_optimizer, predict, training_step

BATCH = 128


def _rates(times: list[tuple[float, float]]) -> tuple[float, float]:
    """(images/s of the fastest iteration, images per CPU-second, median)."""
    return BATCH / min(t for t, _ in times), BATCH / statistics.median(c for _, c in times)


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize()


def ours(depth: int, aug: AugmentConfig, iters: int, dev: torch.device, channels_last: bool,
         x: torch.Tensor, y: torch.Tensor, bf16: bool = False) -> tuple[float, float]:
    """images/s of holdout's training step (augmentation + forward + backward + SGD step)."""
    torch.manual_seed(0)
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    model = build_resnet_preact(ResNetPreactConfig(depth=depth)).to(dev).to(memory_format=fmt).train()
    opt = build_optimizer(model, TrainConfig())
    gen = torch.Generator(device=dev).manual_seed(0)
    rng = np.random.default_rng(0)
    xd, yd = x.to(dev), y.to(dev)
    times = []
    for it in range(iters + 1):
        idx = torch.randint(0, xd.shape[0], (BATCH,), device=dev)
        _sync(dev)
        t0, c0 = time.perf_counter(), time.process_time()
        b = augment_batch(xd[idx], yd[idx], aug, 10, gen, rng, fmt)
        training_step(model, opt, b, aug.dual_cutout_alpha, dev.type, bf16)
        _sync(dev)
        if it:
            times.append((time.perf_counter() - t0, time.process_time() - c0))
    return _rates(times)


class _PILDataset(torch.utils.data.Dataset):
    def __init__(self, x: np.ndarray, y: np.ndarray, transform):
        self.images = [Image.fromarray(im.transpose(1, 2, 0)) for im in x]
        self.y = y
        self.transform = transform

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(self.images[i]), int(self.y[i])


def reference(depth: int, iters: int, dev: torch.device, x: np.ndarray, y: np.ndarray, workers: int) -> tuple[float, float]:
    """images/s of a conventional loop: DataLoader + torchvision per-image transforms, NCHW model."""
    torch.manual_seed(0)
    model = build_resnet_preact(ResNetPreactConfig(depth=depth)).to(dev).train()
    opt = build_optimizer(model, TrainConfig())
    tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(),
                    T.Normalize(CIFAR10_MEAN, CIFAR10_STD)])
    loader = torch.utils.data.DataLoader(_PILDataset(x, y, tf), batch_size=BATCH, shuffle=True, drop_last=True,
                                         num_workers=workers)
    times = []
    it_loader = iter(loader)
    for it in range(iters + 1):
        _sync(dev)
        t0, c0 = time.perf_counter(), time.process_time()
        xb, yb = next(it_loader)
        xb, yb = xb.to(dev), yb.to(dev)
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        _sync(dev)
        if it:
            times.append((time.perf_counter() - t0, time.process_time() - c0))
    return _rates(times)


def inference(depth: int, dev: torch.device, x: torch.Tensor, channels_last: bool) -> float:
    torch.manual_seed(0)
    model = build_resnet_preact(ResNetPreactConfig(depth=depth)).to(dev).eval()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    predict(model, x[:256], batch_size=256, channels_last=channels_last)
    best = float("inf")
    for _ in range(2):
        _sync(dev)
        t0 = time.perf_counter()
        predict(model, x, batch_size=1000, channels_last=channels_last)
        _sync(dev)
        best = min(best, time.perf_counter() - t0)
    return x.shape[0] / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--depths", default="20,110")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader workers of the reference loop")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    rng = np.random.default_rng(0)
    n = 2 * BATCH * (args.iters + 1)
    xn = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
    yn = rng.integers(0, 10, n)
    x, y = torch.from_numpy(xn), torch.from_numpy(yn)
    depths = [int(d) for d in args.depths.split(",")]
    print(f"device {dev}, threads {torch.get_num_threads()}, batch {BATCH}, {args.iters} timed iterations, "
          f"torch {torch.__version__}")

    print("\n## Training throughput, crop + flip: images/s (images per CPU-second)")
    print("| model | holdout (channels_last) | holdout (NCHW) | holdout (channels_last + bf16 autocast) "
          "| reference DataLoader + torchvision | ratio (fp32) | ratio (bf16) |")
    print("|---|---|---|---|---|---|---|")
    base = AugmentConfig()
    for d in depths:
        a = ours(d, base, args.iters, dev, True, x, y)
        b = ours(d, base, args.iters, dev, False, x, y)
        h = ours(d, base, args.iters, dev, True, x, y, bf16=True)
        r = reference(d, args.iters, dev, xn, yn, args.workers)
        print(f"| ResNet-preact-{d} | {a[0]:.0f} ({a[1]:.0f}) | {b[0]:.0f} ({b[1]:.0f}) | {h[0]:.0f} ({h[1]:.0f}) "
              f"| {r[0]:.0f} ({r[1]:.0f}) | {a[0] / r[0]:.2f}x ({a[1] / r[1]:.2f}x) "
              f"| {h[0] / r[0]:.2f}x ({h[1] / r[1]:.2f}x) |", flush=True)

    print("\n## Slowdown of each augmentation relative to crop + flip (ResNet-preact-20, holdout loop)")
    print("| augmentation | images/s (per CPU-s) | step time vs crop + flip (CPU time) |")
    print("|---|---|---|")
    variants = {
        "crop + flip": base,
        "+ cutout 16": AugmentConfig(cutout=True),
        "+ dual cutout (2 forward passes)": AugmentConfig(dual_cutout=True),
        "+ random erasing (p = 0.5)": AugmentConfig(random_erasing=True),
        "+ mixup (alpha = 1)": AugmentConfig(mixup=True),
        "+ label smoothing (0.1)": AugmentConfig(label_smoothing=True),
        "+ all of the above": AugmentConfig(cutout=True, dual_cutout=True, random_erasing=True, mixup=True,
                                            label_smoothing=True),
    }
    ref_rate = None
    for name, cfg in variants.items():
        rate = ours(depths[0], cfg, args.iters, dev, True, x, y)
        ref_rate = ref_rate or rate
        print(f"| {name} | {rate[0]:.0f} ({rate[1]:.0f}) | {ref_rate[0] / rate[0]:.2f}x "
              f"({ref_rate[1] / rate[1]:.2f}x) |", flush=True)

    print("\n## Augmentation alone, crop + flip + cutout + erasing + mixup (batch 128)")
    gen = torch.Generator(device=dev).manual_seed(0)
    cfg = variants["+ all of the above"]
    xd, yd = x[:BATCH].to(dev), y[:BATCH].to(dev)
    augment_batch(xd, yd, cfg, 10, gen, rng)
    best = float("inf")
    for _ in range(10):
        t0 = time.perf_counter()
        augment_batch(xd, yd, cfg, 10, gen, rng)
        _sync(dev)
        best = min(best, time.perf_counter() - t0)
    print(f"{best * 1000:.1f} ms per batch (best of 10)")

    print("\n## Inference throughput, predict(batch_size=1000), images/s")
    print("| model | channels_last | NCHW |")
    print("|---|---|---|")
    xi = torch.from_numpy(rng.integers(0, 256, (2000, 3, 32, 32), dtype=np.uint8))
    for d in depths:
        print(f"| ResNet-preact-{d} | {inference(d, dev, xi, True):.0f} | {inference(d, dev, xi, False):.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
