"""Cost of the adversarial overfitting test on CIFAR-10 models (Werpachowski et al. 2019, Sec. 5.2
with the translational AEGs of Appendix B): forward passes per image and images per second of
:func:`holdout.adversarial.cifar10.attack.attack_model` for a ResNet-preact on W x W windows of 32 x 32
images, on CPU or CUDA (bf16 + channels_last there, as the workflow runs it).

The model has random weights (eval mode); the images are CIFAR-10 test images when ``--archive``
is given, else uniform noise. To get the mix of correctly and incorrectly classified images that
sets the cost (a misclassified image also needs its density, up to (6 eps + 1)^2 windows), the
label of a fraction ``--accuracy`` of the images is the model's own prediction on the centre
window, the others get another class. Also times plain batched forward passes on windows, so the
bookkeeping overhead of the attack shows (``in model %``).

    PYTHONPATH=src python benchmarks/bench_adversarial_cifar10.py [--images 512] [--device cpu]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from holdout.adversarial.cifar10 import attack as ac
from holdout.training import ResNetPreactConfig, build_resnet_preact
from holdout.training.loop import CIFAR10_MEAN, CIFAR10_STD


class TimedModel(torch.nn.Module):
    """Adds up the wall time spent in the wrapped model's forward passes (synchronised on CUDA)."""

    def __init__(self, model: torch.nn.Module, device: torch.device) -> None:
        super().__init__()
        self.model, self.device, self.seconds = model, device, 0.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t0 = time.perf_counter()
        out = self.model(x)
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        self.seconds += time.perf_counter() - t0
        return out


def _images(n: int, archive: str | None, seed: int) -> np.ndarray:
    if archive:
        from holdout.data import load_cifar10

        return load_cifar10(archive).test_images[:n]
    return np.random.default_rng(seed).integers(0, 256, (n, 32, 32, 3), dtype=np.uint8)


def plain_rate(net: torch.nn.Module, window: int, batch: int, device: torch.device) -> float:
    """Windows per second of plain batched forward passes (the attack's lower bound)."""
    x = torch.randint(0, 256, (batch, 3, window, window), dtype=torch.uint8, device=device)
    with torch.no_grad():
        net(x)
        if device.type == "cuda":
            torch.cuda.synchronize()
        reps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 2.0:
            net(x)
            reps += 1
        if device.type == "cuda":
            torch.cuda.synchronize()
    return reps * batch / (time.perf_counter() - t0)


def bench(
    net, images, window: int, eps: int, batch: int, chunk: int, accuracy: float, seed: int, device: torch.device
) -> dict:
    o = (32 - window) // 2
    centre = torch.from_numpy(np.ascontiguousarray(images[:, o : o + window, o : o + window].transpose(0, 3, 1, 2)))
    with torch.no_grad():
        pred = torch.cat([net(centre[i : i + batch].to(device)).argmax(1).cpu() for i in range(0, len(images), batch)])
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(len(images)) < accuracy, pred.numpy(), (pred.numpy() + 1) % 10)
    timed = TimedModel(net, device)
    t0 = time.perf_counter()
    res = ac.attack_model(
        timed,
        images,
        labels,
        np.arange(len(images)),
        window=window,
        eps=eps,
        seed=seed,
        batch_size=batch,
        chunk_size=chunk,
        device=device,
    )
    dt = time.perf_counter() - t0
    fp = res.forward_passes
    correct = res.losses == 0
    success = correct & (res.outcomes["strongest"].adv_losses == 1)
    return {
        "window": window,
        "eps": eps,
        "images": len(images),
        "error": float(res.losses.mean()),
        "success": float(success.sum() / max(correct.sum(), 1)),
        "fp/img": float(fp.mean()),
        "fp max": int(fp.max()),
        "img/s": len(images) / dt,
        "windows/s": fp.sum() / dt,
        "plain windows/s": plain_rate(net, window, batch, device),
        "in model %": 100.0 * timed.seconds / dt,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=512)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--accuracy", type=float, default=0.7)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--configs", default="26:1,20:2", help="window:eps,...")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--archive", default=None, help="CIFAR-10 python archive (default: noise images)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    model = build_resnet_preact(ResNetPreactConfig(depth=args.depth, base_channels=args.channels)).to(device).eval()
    net = ac.windowed_classifier(model, CIFAR10_MEAN, CIFAR10_STD, device)
    images = _images(args.images, args.archive, args.seed)
    rows = []
    for spec in args.configs.split(","):
        w, e = (int(v) for v in spec.split(":"))
        rows.append(bench(net, images, w, e, args.batch, args.chunk, args.accuracy, args.seed, device))
    cols = list(rows[0])
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {args.threads} threads"
    print(f"ResNet-preact-{args.depth} ({args.channels} ch), {name}, torch {torch.__version__}")
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c]) for c in cols))


if __name__ == "__main__":
    main()
