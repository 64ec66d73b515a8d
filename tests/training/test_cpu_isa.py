"""Every Table 2 width trains on every x86 CPU (issue 12 part 1): the memory-format rule and its proof.

torch 2.14.1's oneDNN crashes or hangs in the backward pass of a channels_last 1x1 stride-2
convolution over fewer than 8 channels on CPUs without AVX-512. ``ONEDNN_MAX_CPU_ISA=AVX2``
selects that code path on an AVX-512 machine, so the subprocess test below reproduces such a
CPU anywhere; a crash or a hang of the child is a test failure, not a dead test run.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from holdout.training import ResNetPreactConfig, execution_plan, memory_format_for, select_device
from holdout.training.loop import log_progress
from holdout.training.progress import LogStream

REPO = Path(__file__).resolve().parents[2]
CPU = torch.device("cpu")


@pytest.mark.parametrize("block", ["basic", "bottleneck"])
@pytest.mark.parametrize(
    ("width", "expected"),
    [(4, torch.contiguous_format), (8, torch.channels_last), (16, torch.channels_last), (32, torch.channels_last)],
)
def test_cpu_memory_format_rule_per_width(block, width, expected):
    cfg = ResNetPreactConfig(depth=11 if block == "bottleneck" else 8, base_channels=width, block_type=block)
    assert memory_format_for(CPU, cfg) == expected
    assert memory_format_for(torch.device("cuda"), cfg) == torch.channels_last
    assert memory_format_for(torch.device("mps"), cfg) == torch.contiguous_format


def test_execution_plan_defaults_and_explicit_override(caplog):
    narrow = ResNetPreactConfig(depth=8, base_channels=4)
    plan = execution_plan(narrow, "cpu")
    assert plan.memory_format == torch.contiguous_format and not plan.autocast and not plan.compile
    assert execution_plan(ResNetPreactConfig(depth=8, base_channels=8), "cpu").channels_last
    with caplog.at_level(logging.WARNING):
        forced = execution_plan(narrow, "cpu", channels_last=True, autocast=True)
    assert forced.channels_last and forced.autocast and "may crash" in caplog.text


def test_select_device_names_the_key():
    assert select_device("cpu") == CPU and select_device("auto").type in ("cuda", "mps", "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="adversarial_imagenet.device is 'cuda' but CUDA is not available"):
            select_device("cuda", key="adversarial_imagenet.device")
    with pytest.raises(ValueError, match="my.key"):
        select_device("no-such-device", key="my.key")


def test_progress_bar_lines_go_to_the_log(caplog):
    log = logging.getLogger("holdout.test.progress")
    with caplog.at_level(logging.INFO, logger=log.name), log_progress(log, 100, initial=20, unit="img") as bar:
        bar.set_postfix_str("epoch 2/5", refresh=False)
        bar.update(30)
    lines = [r.getMessage() for r in caplog.records]
    assert any("50/100" in m and "epoch 2/5" in m for m in lines) and all("\r" not in m for m in lines)
    assert LogStream(log).write("\r   \n") == 5 and len(caplog.records) == len(lines)


_CHILD = textwrap.dedent(
    """
    import sys, tempfile, numpy as np
    from holdout.training import ResNetPreactConfig, RunSettings, TrainConfig, predict, train
    width, block, switches = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "switches"
    channels_last = {"auto": None, "force": True}[sys.argv[4]] if len(sys.argv) > 4 else None  # "force": the old rule
    extra = dict(remove_first_relu=True, add_last_bn=True, preact_stage=(False, True, False)) if switches else {}
    cfg = ResNetPreactConfig(depth=11 if block == "bottleneck" else 8, base_channels=width, block_type=block, **extra)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (32 * 5, 3, 32, 32), dtype=np.uint8)
    y = rng.integers(0, 10, len(x))
    with tempfile.TemporaryDirectory() as d:
        settings = RunSettings(out_dir=d + "/o", state_dir=d + "/s", num_checkpoints=1, device="cpu", threads=1,
                               channels_last=channels_last)
        res = train(cfg, TrainConfig(epochs=2, batch_size=32), x, y, settings)
    labels, logits = predict(res.model, x[:64], batch_size=32)
    assert np.isfinite(res.history[-1]["train_loss"]) and logits.shape == (64, 10)
    print("trained", width, block, switches)
    """
)

_CASES = [(w, b, "plain") for w in (4, 8, 16, 32) for b in ("basic", "bottleneck")]
_CASES += [(4, "basic", "switches"), (4, "bottleneck", "switches")]


@pytest.mark.slow
@pytest.mark.parametrize(("width", "block", "switches"), _CASES)
def test_every_table2_width_trains_under_avx2_onednn(tmp_path, width, block, switches):
    """Ten steps of training and a prediction, in a child limited to AVX2 (the crashing path)."""
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "ONEDNN_MAX_CPU_ISA": "AVX2"}
    try:
        proc = subprocess.run(
            [sys.executable, str(script), str(width), block, switches],
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{width} channels, {block}, {switches}: training hung for 240 s under ONEDNN_MAX_CPU_ISA=AVX2")
    assert proc.returncode == 0, (
        f"{width} channels, {block}, {switches}: exit {proc.returncode} under ONEDNN_MAX_CPU_ISA=AVX2\n"
        f"{proc.stderr[-3000:]}"
    )
    assert f"trained {width} {block}" in proc.stdout
