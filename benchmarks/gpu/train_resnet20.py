"""hysts' ResNet-preact-20 CIFAR-10 run on a GPU, resumable, with the test accuracy after every epoch.

The recipe is the row of hysts/pytorch_image_classification (commit 1d76092) README, "Experiments on
batch size and learning rate": ResNet-preact-20, batch 128, initial lr 0.1, cosine, 200 epochs, test
error 8.09% (1 run, GTX 1080 Ti); everything else hysts' defaults (Nesterov momentum 0.9, weight decay
1e-4, random crop with 4-pixel padding, horizontal flip), which are ``TrainConfig``'s defaults.
The data is the pack of ``cifar10_pack.py`` (a re-encoding of the mirror's lossy CIFAR-10 rebuild).
Interrupted (e.g. by a time limit), it keeps its state in ``--state``; the same command resumes it,
with or without ``--cuda-graphs`` (the saved state is the same in both modes).

    python benchmarks/gpu/train_resnet20.py --data .gpudata/cifar10_q95.npz --out OUT --state STATE
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cifar10_pack import unpack  # noqa: E402

from holdout.training.loop import RunSettings, TrainConfig, train  # noqa: E402
from holdout.training.models import ResNetPreactConfig  # noqa: E402

HYSTS_RECIPE = {"epochs": 200, "batch_size": 128, "base_lr": 0.1, "scheduler": "cosine"}
HYSTS_TEST_ERROR = 8.09  # README at 1d76092, ResNet-preact-20, batch 128, lr 0.1, cosine, 200 epochs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--state", required=True)
    p.add_argument("--device", default="cuda")
    p.add_argument("--epochs", type=int, default=HYSTS_RECIPE["epochs"], help="a smaller value only for smoke tests")
    p.add_argument("--train-n", type=int, default=None, help="first N training images only (smoke tests)")
    p.add_argument("--cuda-graphs", action="store_true", help="replay each step as a CUDA graph (CUDA only)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stdout)
    d = unpack(args.data)
    n = args.train_n or len(d["train_labels"])
    cfg = TrainConfig(**{**HYSTS_RECIPE, "epochs": args.epochs})
    settings = RunSettings(
        out_dir=Path(args.out),
        state_dir=Path(args.state),
        seed=7,
        num_checkpoints=1,
        device=args.device,
        keep_state=True,
        progress_every=2,
        cuda_graphs=args.cuda_graphs,
    )
    result = train(
        ResNetPreactConfig(depth=20),
        cfg,
        d["train_images"][:n],
        d["train_labels"][:n],
        settings,
        test_images=d["test_images"],
        test_labels=d["test_labels"],
    )
    last = result.history[-1]
    print(
        f"done: epoch {last['epoch']}, test accuracy {last['test_accuracy']:.4f} "
        f"(hysts: {100 - HYSTS_TEST_ERROR:.2f}% at epoch 200)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
