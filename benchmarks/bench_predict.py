"""Inference throughput of holdout.training.predict against a plain DataLoader loop (CPU by default).

The predict rule runs every checkpoint of a model over the test sets with
:func:`holdout.training.predict`: the uint8 images already in memory (on the device),
normalised per batch on the device, large batches, channels_last, and bf16 autocast on
CUDA. The reference is the usual evaluation loop: a ``torch.utils.data.DataLoader``
(batch 256) over a dataset of PIL images with torchvision ``ToTensor`` + ``Normalize``
per image, an NCHW model, ``torch.no_grad()``. Both see the same model and images and
must return the same predicted labels (checked). Each figure is the best of ``--repeats``
passes after one warm-up pass (robust to other processes sharing the CPU), plus images
per CPU-second (median) in brackets, the steadier measure on a shared machine.
Synthetic uint8 images in CIFAR's shape.

    PYTHONPATH=src python benchmarks/bench_predict.py [--images 2000] [--threads 1] [--device cpu]

GPU: ``--device cuda`` (adds bf16 autocast rows).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
import torchvision.transforms as T
from PIL import Image

from holdout.training import predict
from holdout.training.augment import CIFAR10_MEAN, CIFAR10_STD
from holdout.training.models import ResNetPreactConfig, build_resnet_preact

REFERENCE_BATCH = 256


class _PILDataset(torch.utils.data.Dataset):
    """CIFAR-style dataset: PIL images transformed one at a time (torchvision convention)."""

    def __init__(self, x: np.ndarray, transform: Callable) -> None:
        self.images = [Image.fromarray(im.transpose(1, 2, 0)) for im in x]
        self.transform = transform

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, i: int) -> torch.Tensor:
        return self.transform(self.images[i])


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize()


def _timed(fn: Callable[[], np.ndarray], n: int, repeats: int, dev: torch.device) -> tuple[float, float, np.ndarray]:
    """(images/s of the fastest pass, images per CPU-second (median), labels) after one warm-up pass."""
    labels = fn()
    walls, cpus = [], []
    for _ in range(repeats):
        _sync(dev)
        t0, c0 = time.perf_counter(), time.process_time()
        labels = fn()
        _sync(dev)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return n / min(walls), n / statistics.median(cpus), labels


def reference_loop(model: torch.nn.Module, loader: torch.utils.data.DataLoader, dev: torch.device) -> np.ndarray:
    """The plain evaluation loop: batches from the DataLoader, NCHW, fp32, no_grad."""
    out = []
    model.eval()
    with torch.no_grad():
        for xb in loader:
            out.append(model(xb.to(dev)).argmax(1).cpu())
    return torch.cat(out).numpy()


def bench_model(depth: int, channels: int, x: np.ndarray, args: argparse.Namespace, dev: torch.device) -> list[str]:
    torch.manual_seed(0)
    model = build_resnet_preact(ResNetPreactConfig(depth=depth, base_channels=channels)).to(dev).eval()
    n = x.shape[0]
    xt = torch.from_numpy(x).to(dev)
    tf = T.Compose([T.ToTensor(), T.Normalize(CIFAR10_MEAN, CIFAR10_STD)])
    loader = torch.utils.data.DataLoader(
        _PILDataset(x, tf), batch_size=REFERENCE_BATCH, shuffle=False, num_workers=args.workers
    )
    ref = _timed(
        lambda: reference_loop(model.to(memory_format=torch.contiguous_format), loader, dev), n, args.repeats, dev
    )
    variants = {f"predict, batch {b}, channels_last": (b, True, False) for b in args.batch_sizes}
    variants[f"predict, batch {args.batch_sizes[-1]}, NCHW"] = (args.batch_sizes[-1], False, False)
    if dev.type == "cuda" or args.bf16:
        variants[f"predict, batch {args.batch_sizes[-1]}, channels_last + bf16"] = (args.batch_sizes[-1], True, True)
    rows = [
        (
            f"| ResNet-preact-{depth}, {channels} ch | DataLoader loop, batch {REFERENCE_BATCH} (reference) "
            f"| {ref[0]:.0f} ({ref[1]:.0f}) | 1.00x |"
        )
    ]
    for name, (b, cl, bf16) in variants.items():
        m = model.to(memory_format=torch.channels_last if cl else torch.contiguous_format)
        res = _timed(
            lambda b=b, cl=cl, bf16=bf16, m=m: predict(m, xt, b, channels_last=cl, autocast=bf16)[0],
            n,
            args.repeats,
            dev,
        )
        agree = float((res[2] == ref[2]).mean())
        if not bf16 and agree < 0.999:
            raise AssertionError(f"{name}: predicted labels differ from the reference loop on {1 - agree:.2%}")
        rows.append(
            f"| ResNet-preact-{depth}, {channels} ch | {name} | {res[0]:.0f} ({res[1]:.0f}) | {res[0] / ref[0]:.2f}x |"
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--images", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--models", default="8:8,20:16,110:16", help="depth:base_channels, comma-separated")
    ap.add_argument("--batch-sizes", default="500,2000", help="predict batch sizes (the last also NCHW, bf16)")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader workers of the reference loop")
    ap.add_argument("--bf16", action="store_true", help="also bf16 autocast on CPU")
    args = ap.parse_args()
    args.batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    x = np.random.default_rng(0).integers(0, 256, (args.images, 3, 32, 32), dtype=np.uint8)
    print(
        f"device {dev}, threads {torch.get_num_threads()}, {args.images} images, best of {args.repeats} "
        f"passes after a warm-up, torch {torch.__version__}"
    )
    print("\n| model | loop | images/s (per CPU-s) | vs reference |")
    print("|---|---|---:|---:|")
    for spec in args.models.split(","):
        depth, channels = (int(v) for v in spec.split(":"))
        for row in bench_model(depth, channels, x, args, dev):
            print(row, flush=True)


if __name__ == "__main__":
    main()
