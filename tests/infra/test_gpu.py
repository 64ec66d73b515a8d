"""holdout.training.gpu: one training job per GPU on a workstation (lock-file slots)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from holdout.training.gpu import gpu_slot, main, visible_gpus

HOLDER = """
import sys, time, os
from holdout.training.gpu import gpu_slot
with gpu_slot(gpus=sys.argv[1].split(','), lock_dir=sys.argv[2], poll_seconds=0.05) as s:
    print(s.gpu, os.environ['CUDA_VISIBLE_DEVICES'], flush=True)
    time.sleep(float(sys.argv[3]))
"""


def _env(repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SLURM_JOB_ID"}
    env["PYTHONPATH"] = str(repo / "src")
    return env


def _holder(repo: Path, gpus: str, lock_dir: Path, seconds: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", HOLDER, gpus, str(lock_dir), str(seconds)],
        env=_env(repo),
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow  # two holder processes for 3 s each
def test_concurrent_jobs_get_distinct_gpus_and_a_third_waits(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    a = _holder(repo, "0,1", tmp_path, 3)
    b = _holder(repo, "0,1", tmp_path, 3)
    first = {a.stdout.readline().split()[0], b.stdout.readline().split()[0]}
    assert first == {"0", "1"}
    # both GPUs are held now: a third job in this process must wait, then time out
    with pytest.raises(TimeoutError, match="busy"):
        with gpu_slot(gpus=["0", "1"], lock_dir=tmp_path, poll_seconds=0.05, timeout_seconds=0.3):
            pass
    a.wait(10)
    b.wait(10)
    with gpu_slot(gpus=["0", "1"], lock_dir=tmp_path, timeout_seconds=1) as slot:
        assert slot.gpu == "0" and slot.device == "cuda"
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "0"


def test_lock_released_when_holder_is_killed(repo, tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    p = _holder(repo, "7", tmp_path, 60)
    assert p.stdout.readline().split() == ["7", "7"]
    with pytest.raises(TimeoutError):
        with gpu_slot(gpus=["7"], lock_dir=tmp_path, poll_seconds=0.05, timeout_seconds=0.2):
            pass
    p.send_signal(signal.SIGKILL)
    p.wait(10)
    with gpu_slot(gpus=["7"], lock_dir=tmp_path, timeout_seconds=1) as slot:
        assert slot.gpu == "7"


def test_environment_restored_and_cpu_fallback(tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    with gpu_slot(lock_dir=tmp_path) as slot:  # ids from CUDA_VISIBLE_DEVICES
        assert slot.gpu == "2" and os.environ["CUDA_VISIBLE_DEVICES"] == "2"
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "2,3"
    with gpu_slot(gpus=[], lock_dir=tmp_path) as slot:
        assert slot.device == "cpu" and slot.gpu is None
    assert list(tmp_path.iterdir()) == [tmp_path / "gpu2.lock"]


def test_slurm_pinning_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    with gpu_slot(gpus=["0", "1"], lock_dir=tmp_path) as slot:
        assert slot.source == "slurm" and slot.device == "cuda"
        assert os.environ["CUDA_VISIBLE_DEVICES"] == "0"
    assert not any(tmp_path.iterdir())


def test_visible_gpus_sources():
    assert visible_gpus({"HOLDOUT_GPUS": "0, 2", "CUDA_VISIBLE_DEVICES": "5"}) == ["0", "2"]
    assert visible_gpus({"CUDA_VISIBLE_DEVICES": "5,6"}) == ["5", "6"]
    assert visible_gpus({"CUDA_VISIBLE_DEVICES": "-1"}) == []


def test_command_line_wrapper(tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setenv("HOLDOUT_GPUS", "4")
    monkeypatch.setenv("HOLDOUT_GPU_LOCK_DIR", str(tmp_path))
    out = tmp_path / "seen"
    rc = main(["--", "sh", "-c", f'echo "$CUDA_VISIBLE_DEVICES" > {out}'])
    assert rc == 0 and out.read_text().strip() == "4"
    assert main([]) == 2


def test_several_jobs_per_gpu_fill_first_slots_first(tmp_path, monkeypatch):
    """jobs_per_gpu=2 on two GPUs: four slots, each GPU's first slot before any second one; a fifth waits."""
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    got = []
    with contextlib.ExitStack() as stack:
        for _ in range(4):
            s = stack.enter_context(gpu_slot(gpus=["0", "1"], lock_dir=tmp_path, jobs_per_gpu=2, poll_seconds=0.01))
            got.append(s.gpu)
        with (
            pytest.raises(TimeoutError),
            gpu_slot(gpus=["0", "1"], lock_dir=tmp_path, jobs_per_gpu=2, poll_seconds=0.01, timeout_seconds=0.05),
        ):
            pass
    assert got == ["0", "1", "0", "1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gpu0.lock",
        "gpu0.slot1.lock",
        "gpu1.lock",
        "gpu1.slot1.lock",
    ]
    monkeypatch.setenv("HOLDOUT_JOBS_PER_GPU", "0")
    with pytest.raises(ValueError, match="HOLDOUT_JOBS_PER_GPU"), gpu_slot(gpus=["0"], lock_dir=tmp_path):
        pass
