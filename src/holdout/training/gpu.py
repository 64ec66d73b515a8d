"""Pin each training job to its own GPU on a multi-GPU workstation.

Snakemake 9 limits how many GPU jobs run at once (rules declare
``resources: gpu=1``; ``--resources gpu=N`` caps their sum at N) but does not
say *which* GPU a job should use. [`gpu_slot`][holdout.training.gpu.gpu_slot] closes that gap with one lock
file per GPU: a job takes the first GPU whose lock it can acquire
(``fcntl.flock``, exclusive, non-blocking) and sets ``CUDA_VISIBLE_DEVICES`` to
that GPU alone, so ``torch.device("cuda")`` is that GPU. The kernel drops the lock
when the process ends, also on a crash or ``kill -9``: no stale locks to clean.

Because Snakemake never runs more than N GPU jobs at once, a free GPU normally
exists; if not (another workflow on the same machine holds them), the job waits,
polling, and logs that it waits.

Under SLURM (``SLURM_JOB_ID`` set) nothing is locked: SLURM already gives each
job its own GPUs (``--gpus`` / ``--gres``) and sets ``CUDA_VISIBLE_DEVICES``.

Call it before torch initialises CUDA (before the first ``torch.cuda`` call that
creates a context), and keep it open for the whole training::

    from holdout.training.gpu import gpu_slot
    with gpu_slot(log=log) as slot:    # slot.device: "cuda" or "cpu"
        train(..., RunSettings(..., device=slot.device))
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ENV_GPUS = "HOLDOUT_GPUS"
ENV_LOCK_DIR = "HOLDOUT_GPU_LOCK_DIR"
ENV_JOBS_PER_GPU = "HOLDOUT_JOBS_PER_GPU"


@dataclass(frozen=True)
class GpuSlot:
    """The GPU a job got: ``gpu`` is the physical id (``None``: none/CPU or SLURM-managed)."""

    gpu: str | None
    device: str
    source: str


def default_lock_dir() -> Path:
    """Machine-wide lock folder (shared by every workflow of this user)."""
    env = os.environ.get(ENV_LOCK_DIR)
    if env:
        return Path(env)
    return Path(tempfile.gettempdir()) / f"holdout-gpu-locks-{os.getuid()}"


def visible_gpus(environ: dict[str, str] | None = None) -> list[str]:
    """GPU ids this machine offers to the workflow.

    In order: ``HOLDOUT_GPUS`` (comma-separated ids, e.g. ``"0,1,3"``), else
    ``CUDA_VISIBLE_DEVICES`` as set for the whole run, else one id per line of
    ``nvidia-smi -L``, else none. Deliberately does not ask torch: creating a
    CUDA context here would fix the device set before the job is pinned.
    """
    env = os.environ if environ is None else environ
    for key in (ENV_GPUS, "CUDA_VISIBLE_DEVICES"):
        value = env.get(key)
        if value is not None:
            ids = [v.strip() for v in value.split(",") if v.strip() and v.strip() != "-1"]
            return ids
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return [str(i) for i, line in enumerate(out.stdout.splitlines()) if line.startswith("GPU ")]


def _try_lock(path: Path) -> int | None:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


@contextlib.contextmanager
def gpu_slot(
    gpus: Sequence[str] | None = None,
    lock_dir: str | Path | None = None,
    log: logging.Logger | None = None,
    poll_seconds: float = 5.0,
    timeout_seconds: float | None = None,
    jobs_per_gpu: int | None = None,
) -> Iterator[GpuSlot]:
    """Hold one GPU for the duration of the ``with`` block (see module docstring).

    ``gpus`` defaults to [`visible_gpus`][holdout.training.gpu.visible_gpus]; with no GPU the slot is
    ``device="cpu"``. ``CUDA_VISIBLE_DEVICES`` is set to the chosen id inside the
    block and restored afterwards. ``timeout_seconds=None`` waits for ever;
    otherwise ``TimeoutError`` names the lock folder. ``jobs_per_gpu`` (default:
    ``HOLDOUT_JOBS_PER_GPU``, else 1) jobs may share one GPU (one lock per slot,
    ``gpu<id>.lock``, ``gpu<id>.slot1.lock``, ...; jobs fill every GPU's first slot
    before any second slot); Snakemake's ``--resources gpu=N`` then counts slots.
    """
    log = log or logging.getLogger("holdout.training.gpu")
    if os.environ.get("SLURM_JOB_ID"):
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        log.info("SLURM job %s: GPUs assigned by SLURM (CUDA_VISIBLE_DEVICES=%r)", os.environ["SLURM_JOB_ID"], visible)
        yield GpuSlot(gpu=None, device="cuda" if visible else "cpu", source="slurm")
        return
    ids = list(visible_gpus() if gpus is None else gpus)
    if not ids:
        log.info("no GPU found (set %s to list GPU ids): running on the CPU", ENV_GPUS)
        yield GpuSlot(gpu=None, device="cpu", source="none")
        return
    folder = Path(lock_dir) if lock_dir is not None else default_lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    warned = False
    per_gpu = int(os.environ.get(ENV_JOBS_PER_GPU, "1")) if jobs_per_gpu is None else int(jobs_per_gpu)
    if per_gpu < 1:
        raise ValueError(f"jobs_per_gpu ({ENV_JOBS_PER_GPU}) must be >= 1, got {per_gpu}")
    slots = [
        (gid, folder / (f"gpu{gid}.lock" if j == 0 else f"gpu{gid}.slot{j}.lock"))
        for j in range(per_gpu)
        for gid in ids
    ]
    while True:
        for gid, lock in slots:
            fd = _try_lock(lock)
            if fd is None:
                continue
            previous = os.environ.get("CUDA_VISIBLE_DEVICES")
            os.environ["CUDA_VISIBLE_DEVICES"] = gid
            log.info("pinned to GPU %s (lock %s)", gid, lock)
            try:
                yield GpuSlot(gpu=gid, device="cuda", source="lock")
            finally:
                if previous is None:
                    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
                else:
                    os.environ["CUDA_VISIBLE_DEVICES"] = previous
                os.close(fd)  # releases the flock
            return
        waited = time.monotonic() - start
        if timeout_seconds is not None and waited >= timeout_seconds:
            raise TimeoutError(
                f"all GPUs {ids} busy for {waited:.0f} s (locks in {folder}); "
                "is --resources gpu=N larger than the number of GPUs?"
            )
        if not warned:
            log.warning("all GPUs %s busy (locks in %s); waiting", ids, folder)
            warned = True
        time.sleep(poll_seconds)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m holdout.training.gpu CMD ...``: run CMD pinned to one GPU (for shell rules)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print("usage: python -m holdout.training.gpu [--] COMMAND [ARGS...]", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with gpu_slot():
        return subprocess.call(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
