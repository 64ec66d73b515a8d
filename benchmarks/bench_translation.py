"""Cost of the translational AEGs with exact densities (Werpachowski et al. 2019,
Appendix B) on a small ResNet: forward passes per image and images per second.

Canvases are random images just large enough for eps (window + 2 * 3 floor(eps));
the model is torchvision's ResNet-18 (random weights; eval mode). To get a mix of
correctly and incorrectly classified images, the label of a fraction ``--accuracy``
of the images is the model's own prediction on the central window, the others get
another class. Also times plain batched forward passes on the same windows, so the
attack's bookkeeping overhead shows (also as the share of the time spent inside the model).

    PYTHONPATH=src python benchmarks/bench_translation.py [--images 64] [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
import torchvision

from holdout.adversarial.translation import (
    required_margin,
    translation_attacks,
    translation_set,
)


class TimedModel(torch.nn.Module):
    """Wraps the model and adds up the wall time spent in its forward passes."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.seconds = 0.0

    def forward(self, x):
        t0 = time.perf_counter()
        out = self.model(x)
        self.seconds += time.perf_counter() - t0
        return out


def bench(model, window: int, eps: float, n: int, batch: int, accuracy: float, seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    side = window + 2 * required_margin(eps)
    canv = torch.randn(n, 3, side, side, generator=g)
    m = required_margin(eps)
    with torch.no_grad():
        centre = canv[:, :, m : m + window, m : m + window]
        pred = torch.cat([model(centre[i : i + batch]) for i in range(0, n, batch)]).argmax(1).numpy()
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(n) < accuracy, pred, (pred + 1) % 1000)

    # plain forward passes on a full batch of windows (the attack's lower bound)
    reps = max(1, 4 * n // batch)
    x = torch.randn(batch, 3, window, window, generator=g)
    with torch.no_grad():
        model(x)
        t0 = time.perf_counter()
        for _ in range(reps):
            model(x)
        plain = reps * batch / (time.perf_counter() - t0)

    timed = TimedModel(model)
    t0 = time.perf_counter()
    res = translation_attacks(timed, canv, labels, window=(window, window), eps=eps, batch_size=batch, seed=seed)
    dt = time.perf_counter() - t0
    fp = res.forward_passes
    correct = res.losses == 0
    success = correct & (res.outcomes["strongest"].adv_losses == 1)
    quiet = correct & ~success
    v = translation_set(eps)

    def mean(mask):
        return float(fp[mask].mean()) if mask.any() else float("nan")

    return {
        "window": window,
        "eps": eps,
        "canvas": side,
        "|V|": len(v),
        "images": n,
        "error": float(res.losses.mean()),
        "success": float(success.sum() / max(correct.sum(), 1)),
        "fp/img": float(fp.mean()),
        "fp quiet": mean(quiet),
        "fp success": mean(success),
        "fp misclass": mean(~correct),
        "fp max": int(fp.max()),
        "bound": (6 * int(eps) + 1) ** 2,
        "img/s": n / dt,
        "windows/s": fp.sum() / dt,
        "plain windows/s": plain,
        "in model %": 100.0 * timed.seconds / dt,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=64)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--accuracy", type=float, default=0.7)
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--configs", default="32:2,32:3,64:2", help="window:eps,...")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = torchvision.models.get_model(args.model, weights=None).eval()
    rows = []
    for spec in args.configs.split(","):
        w, e = spec.split(":")
        rows.append(bench(model, int(w), float(e), args.images, args.batch, args.accuracy, args.seed))
    cols = list(rows[0])
    print(f"{args.model}, {args.threads} threads, torch {torch.__version__}")
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c]) for c in cols))


if __name__ == "__main__":
    main()
