"""Pack the mirror's CIFAR-10 archive small enough to travel to a lent GPU machine (<= 64 MiB).

The mirror's ``cifar-10-python.tar.gz`` (188 MB, itself a lossy JPEG-q75 rebuild with exact labels:
``../shared/data/README.md``) does not fit the device tool's 64 MiB working tree. This packs its pixels
as two mosaic JPEGs (train, test; 32 x 32 tiles aligned to the 8 x 8 JPEG blocks, quality 95, no chroma
subsampling) plus the exact labels into one ``.npz``, and records the PSNR of the unpacked pixels against
the mirror's. ``unpack`` gives back uint8 N x 3 x 32 x 32 arrays. Training on it is training on a
re-encoding of a lossy rebuild: accuracies are close to, not equal to, the official data's.

    python benchmarks/gpu/cifar10_pack.py pack --archive ../shared/data/cifar-10/cifar-10-python.tar.gz \
        --out .gpudata/cifar10_q95.npz
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image

COLS = 250  # tiles per mosaic row: 8,000 px wide
QUALITY = 95


def mosaic(images: np.ndarray, cols: int = COLS) -> np.ndarray:
    """uint8 N x 3 x 32 x 32 -> one H x W x 3 image, ``cols`` tiles a row (N padded with black tiles)."""
    n = images.shape[0]
    rows = -(-n // cols)
    pad = np.zeros((rows * cols - n, 3, 32, 32), np.uint8)
    x = np.concatenate([images, pad]).transpose(0, 2, 3, 1)
    return x.reshape(rows, cols, 32, 32, 3).transpose(0, 2, 1, 3, 4).reshape(rows * 32, cols * 32, 3)


def tiles(m: np.ndarray, n: int, cols: int = COLS) -> np.ndarray:
    """Inverse of [`mosaic`][]: the first ``n`` tiles as uint8 N x 3 x 32 x 32."""
    rows = m.shape[0] // 32
    x = m.reshape(rows, 32, cols, 32, 3).transpose(0, 2, 4, 1, 3).reshape(rows * cols, 3, 32, 32)
    return np.ascontiguousarray(x[:n])


def encode(images: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(mosaic(images)).save(buf, "JPEG", quality=QUALITY, subsampling=0, optimize=True)
    return buf.getvalue()


def decode(data: bytes, n: int) -> np.ndarray:
    Image.MAX_IMAGE_PIXELS = None  # our own mosaics: 8,000 x 6,400 px at most
    return tiles(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), n)


def unpack(path: str | Path) -> dict[str, np.ndarray]:
    """``{"train_images", "train_labels", "test_images", "test_labels"}`` of a pack."""
    z = np.load(path)
    meta = json.loads(bytes(z["meta"]).decode())
    out = {}
    for split in ("train", "test"):
        out[f"{split}_images"] = decode(bytes(z[f"{split}_jpeg"]), meta[f"{split}_n"])
        out[f"{split}_labels"] = z[f"{split}_labels"].astype(np.int64)
    return out


def pack(archive: Path, out: Path) -> dict[str, object]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from holdout.data.core import load_cifar10

    data = load_cifar10(archive)
    meta: dict[str, object] = {"archive": archive.name, "archive_sha256": _sha256(archive), "quality": QUALITY}
    arrays = {}
    for split, x, y in (("train", data.train_images, data.train_labels), ("test", data.test_images, data.test_labels)):
        if x.shape[-1] == 3:  # the loader's N x H x W x C -> N x C x H x W
            x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        blob = encode(x)
        back = decode(blob, len(x)).astype(np.float64)
        mse = float(((back - x) ** 2).mean())
        meta |= {f"{split}_n": len(x), f"{split}_psnr_db": round(10 * np.log10(255**2 / mse), 2)}
        meta[f"{split}_mean_abs_error"] = round(float(np.abs(back - x).mean()), 3)
        arrays[f"{split}_jpeg"] = np.frombuffer(blob, np.uint8)
        arrays[f"{split}_labels"] = np.asarray(y, np.uint8)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    return meta


def synthetic(out: Path, n_train: int = 512, n_test: int = 256, seed: int = 0) -> dict[str, object]:
    """A tiny pack of random images and labels (smoke tests of the GPU command on the CPU)."""
    rng = np.random.default_rng(seed)
    meta: dict[str, object] = {"archive": "synthetic", "quality": QUALITY}
    arrays = {}
    for split, n in (("train", n_train), ("test", n_test)):
        x = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
        arrays[f"{split}_jpeg"] = np.frombuffer(encode(x), np.uint8)
        arrays[f"{split}_labels"] = rng.integers(0, 10, n).astype(np.uint8)
        meta[f"{split}_n"] = n
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    return meta


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("command", choices=["pack", "synthetic"], help="synthetic: a tiny random pack for smoke tests")
    p.add_argument("--archive", type=Path)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    if args.command == "pack" and args.archive is None:
        p.error("pack needs --archive (the mirror's cifar-10-python.tar.gz)")
    meta = pack(args.archive, args.out) if args.command == "pack" else synthetic(args.out)
    print(json.dumps(meta))
    print(f"wrote {args.out} ({args.out.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
