"""Training and inference throughput of holdout.training on this machine (CPU by default).

Compares, for ResNet-preact-20 and -110 (16 base channels, batch 128, random
crop 4 + flip), our loop (uint8 data in memory, batched per-sample augmentation
on the device, channels_last) against a reference loop of the same model fed by
a torch DataLoader with torchvision per-image transforms (RandomCrop(32, 4),
RandomHorizontalFlip, ToTensor, Normalize; NCHW). Then the slowdown of each
Table 2 augmentation relative to crop + flip, and inference throughput of
:func:`holdout.training.predict`, and training throughput per Table 2 width and block type in
the memory format :func:`holdout.training.memory_format_for` picks against the other format
(``--widths``; channels_last for the widths the rule sends to NCHW only with
``--unsafe-channels-last``: it crashes on x86 CPUs without AVX-512). Each figure is the best of a few
iterations after one warm-up iteration
(robust to other processes sharing the CPU); "per CPU-s" divides by the
process CPU time instead (median), which on a shared machine is the steadier
measure of work. Synthetic uint8 data in CIFAR's shape.

    PYTHONPATH=src python benchmarks/bench_training.py [--iters 4] [--threads 2] [--device cpu]
    # as on a CPU without AVX-512:
    PYTHONPATH=src ONEDNN_MAX_CPU_ISA=AVX2 python benchmarks/bench_training.py --sections widths

On a machine shared with other jobs use ``--threads 1``: multi-threaded wall-clock
timings there are dominated by the other processes (the README's numbers are
single-threaded for that reason).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch
import torchvision.transforms as T
from PIL import Image

from holdout.training.augment import (
    CIFAR10_MEAN,
    CIFAR10_STD,
    AugmentConfig,
    augment_batch,
)
from holdout.training.device import memory_format_for
from holdout.training.loop import TrainConfig, build_optimizer, predict, training_step
from holdout.training.models import ResNetPreactConfig, build_resnet_preact

BATCH = 128


def _rates(times: list[tuple[float, float]]) -> tuple[float, float]:
    """(images/s of the fastest iteration, images per CPU-second, median)."""
    return BATCH / min(t for t, _ in times), BATCH / statistics.median(c for _, c in times)


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize()


def ours(
    depth: int,
    aug: AugmentConfig,
    iters: int,
    dev: torch.device,
    channels_last: bool,
    x: torch.Tensor,
    y: torch.Tensor,
    bf16: bool = False,
    model_config: ResNetPreactConfig | None = None,
) -> tuple[float, float]:
    """images/s of holdout's training step (augmentation + forward + backward + SGD step)."""
    torch.manual_seed(0)
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    model_config = model_config or ResNetPreactConfig(depth=depth)
    model = build_resnet_preact(model_config).to(dev).to(memory_format=fmt).train()
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


def reference(
    depth: int, iters: int, dev: torch.device, x: np.ndarray, y: np.ndarray, workers: int
) -> tuple[float, float]:
    """images/s of a conventional loop: DataLoader + torchvision per-image transforms, NCHW model."""
    torch.manual_seed(0)
    model = build_resnet_preact(ResNetPreactConfig(depth=depth)).to(dev).train()
    opt = build_optimizer(model, TrainConfig())
    tf = T.Compose(
        [T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(CIFAR10_MEAN, CIFAR10_STD)]
    )
    loader = torch.utils.data.DataLoader(
        _PILDataset(x, y, tf), batch_size=BATCH, shuffle=True, drop_last=True, num_workers=workers
    )
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


def widths(depth: int, iters: int, dev: torch.device, x: torch.Tensor, y: torch.Tensor, unsafe: bool) -> None:
    """Training images/s per Table 2 width x block: the format the rule picks vs the other one."""
    print(f"\n## Memory format per Table 2 width (ResNet-preact-{depth}, crop + flip): images/s (per CPU-second)")
    print("| block | base channels | rule picks | channels_last | NCHW | channels_last / NCHW (per CPU-s) |")
    print("|---|---|---|---|---|---|")
    for block in ("basic", "bottleneck"):
        for width in (4, 8, 16, 32):
            cfg = ResNetPreactConfig(depth=depth, base_channels=width, block_type=block)
            rule_cl = memory_format_for(dev, cfg) == torch.channels_last
            nchw = ours(depth, AugmentConfig(), iters, dev, False, x, y, model_config=cfg)
            if rule_cl or unsafe:
                cl = ours(depth, AugmentConfig(), iters, dev, True, x, y, model_config=cfg)
                cl_txt, ratio = f"{cl[0]:.0f} ({cl[1]:.0f})", f"{cl[1] / nchw[1]:.2f}x"
            else:
                cl_txt, ratio = "not run (crashes without AVX-512)", "-"
            print(
                f"| {block} | {width} | {'channels_last' if rule_cl else 'NCHW'} | {cl_txt} "
                f"| {nchw[0]:.0f} ({nchw[1]:.0f}) | {ratio} |",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--depths", default="20,110")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader workers of the reference loop")
    ap.add_argument(
        "--sections",
        default="training,augmentations,inference,widths",
        help="comma-separated subset of training, augmentations, inference, widths",
    )
    ap.add_argument("--width-depth", type=int, default=20, help="widths: depth, 18n + 2 (20, 38, ...)")
    ap.add_argument(
        "--unsafe-channels-last",
        action="store_true",
        help="widths: also time channels_last where the rule picks NCHW (crashes without AVX-512)",
    )
    args = ap.parse_args()
    sections = set(args.sections.split(","))
    unknown = sections - {"training", "augmentations", "inference", "widths"}
    if unknown:
        ap.error(f"--sections: unknown {sorted(unknown)}")
    if args.width_depth < 20 or (args.width_depth - 2) % 18:
        ap.error(f"--width-depth must be 18n + 2 (valid for basic and bottleneck blocks), got {args.width_depth}")
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    rng = np.random.default_rng(0)
    n = 2 * BATCH * (args.iters + 1)
    xn = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
    yn = rng.integers(0, 10, n)
    x, y = torch.from_numpy(xn), torch.from_numpy(yn)
    depths = [int(d) for d in args.depths.split(",")]
    print(
        f"device {dev}, threads {torch.get_num_threads()}, batch {BATCH}, {args.iters} timed iterations, "
        f"torch {torch.__version__}, ONEDNN_MAX_CPU_ISA={os.environ.get('ONEDNN_MAX_CPU_ISA', 'unset')}"
    )
    if "training" in sections:
        training_table(depths, args.iters, dev, x, y, xn, yn, args.workers)
    if "augmentations" in sections:
        augmentation_table(depths[0], args.iters, dev, x, y)
    if "inference" in sections:
        inference_table(depths, dev, torch.from_numpy(rng.integers(0, 256, (2000, 3, 32, 32), dtype=np.uint8)))
    if "widths" in sections:
        widths(args.width_depth, args.iters, dev, x, y, args.unsafe_channels_last)


def training_table(
    depths: list[int],
    iters: int,
    dev: torch.device,
    x: torch.Tensor,
    y: torch.Tensor,
    xn: np.ndarray,
    yn: np.ndarray,
    workers: int,
) -> None:
    print("\n## Training throughput, crop + flip: images/s (images per CPU-second)")
    print(
        "| model | holdout (channels_last) | holdout (NCHW) | holdout (channels_last + bf16 autocast) "
        "| reference DataLoader + torchvision | ratio (fp32) | ratio (bf16) |"
    )
    print("|---|---|---|---|---|---|---|")
    base = AugmentConfig()
    for d in depths:
        a = ours(d, base, iters, dev, True, x, y)
        b = ours(d, base, iters, dev, False, x, y)
        h = ours(d, base, iters, dev, True, x, y, bf16=True)
        r = reference(d, iters, dev, xn, yn, workers)
        print(
            f"| ResNet-preact-{d} | {a[0]:.0f} ({a[1]:.0f}) | {b[0]:.0f} ({b[1]:.0f}) | {h[0]:.0f} ({h[1]:.0f}) "
            f"| {r[0]:.0f} ({r[1]:.0f}) | {a[0] / r[0]:.2f}x ({a[1] / r[1]:.2f}x) "
            f"| {h[0] / r[0]:.2f}x ({h[1] / r[1]:.2f}x) |",
            flush=True,
        )


def augmentation_table(depth: int, iters: int, dev: torch.device, x: torch.Tensor, y: torch.Tensor) -> None:
    print(f"\n## Slowdown of each augmentation relative to crop + flip (ResNet-preact-{depth}, holdout loop)")
    print("| augmentation | images/s (per CPU-s) | step time vs crop + flip (CPU time) |")
    print("|---|---|---|")
    variants = {
        "crop + flip": AugmentConfig(),
        "+ cutout 16": AugmentConfig(cutout=True),
        "+ dual cutout (2 forward passes)": AugmentConfig(dual_cutout=True),
        "+ random erasing (p = 0.5)": AugmentConfig(random_erasing=True),
        "+ mixup (alpha = 1)": AugmentConfig(mixup=True),
        "+ label smoothing (0.1)": AugmentConfig(label_smoothing=True),
        "+ all of the above": AugmentConfig(
            cutout=True, dual_cutout=True, random_erasing=True, mixup=True, label_smoothing=True
        ),
    }
    ref_rate = None
    for name, cfg in variants.items():
        rate = ours(depth, cfg, iters, dev, True, x, y)
        ref_rate = ref_rate or rate
        print(
            f"| {name} | {rate[0]:.0f} ({rate[1]:.0f}) | {ref_rate[0] / rate[0]:.2f}x ({ref_rate[1] / rate[1]:.2f}x) |",
            flush=True,
        )

    print("\n## Augmentation alone, crop + flip + cutout + erasing + mixup (batch 128)")
    gen = torch.Generator(device=dev).manual_seed(0)
    rng = np.random.default_rng(0)
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


def inference_table(depths: list[int], dev: torch.device, xi: torch.Tensor) -> None:
    print("\n## Inference throughput, predict(batch_size=1000), images/s")
    print("| model | channels_last | NCHW |")
    print("|---|---|---|")
    for d in depths:
        print(
            f"| ResNet-preact-{d} | {inference(d, dev, xi, True):.0f} | {inference(d, dev, xi, False):.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
