"""Where a model runs and in which layout: device choice and the per-device execution plan.

One function picks the device for every study ([`select_device`][holdout.training.device.select_device]); one rule picks
the
memory format of the convolutions ([`memory_format_for`][holdout.training.device.memory_format_for]), because the fast
layout on
CPUs is not safe for every width of Mania et al.'s Table 2 on every CPU.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import torch

from holdout.training.models import ResNetPreactConfig

__all__ = [
    "ONEDNN_MIN_STRIDED_1X1_CHANNELS",
    "ExecutionPlan",
    "cpu_bf16_is_fast",
    "execution_plan",
    "memory_format_for",
    "select_device",
]

# oneDNN (torch 2.14.1) corrupts memory in the backward pass of a channels_last 1x1 convolution
# with stride 2 over fewer input channels than this, on CPUs whose best ISA is AVX2 (one AVX2
# register holds 8 floats). Measured: 1-7 input channels crash (SIGSEGV / "double free"), 8-32 do not.
ONEDNN_MIN_STRIDED_1X1_CHANNELS = 8


def select_device(device: str | torch.device | None = None, *, key: str | None = None) -> torch.device:
    """``device`` if given, else (``None`` or ``"auto"``) the best available: cuda, then mps, then cpu.

    A named cuda or mps device that this machine lacks raises ``ValueError``, naming the config
    ``key`` the value came from when given (e.g. ``"adversarial_imagenet.device"``).
    """
    if device is None or str(device) == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except RuntimeError as exc:
        raise ValueError(f"{key or 'device'}: {device!r} is not a device name ({exc})") from exc
    missing = (dev.type == "cuda" and not torch.cuda.is_available()) or (dev.type == "mps" and not _mps_available())
    if missing:
        where = f"{key} is {device!r}" if key else f"device {device!r} requested"
        raise ValueError(f"{where} but {dev.type.upper()} is not available on this machine")
    return dev


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return mps is not None and mps.is_available()


def memory_format_for(device: torch.device, model_config: object) -> torch.memory_format:
    """The memory format to train ``model_config`` in on ``device``.

    - CUDA: ``channels_last`` (tensor-core convolutions).
    - CPU: ``channels_last`` (oneDNN's NHWC kernels: 1.15-1.5x more images per CPU-second than
      NCHW for every Table 2 width, on AVX-512 and on AVX2; ``benchmarks/bench_training.py``) unless
      the network has a 1x1
      convolution with stride 2 over fewer than `ONEDNN_MIN_STRIDED_1X1_CHANNELS` input
      channels: then NCHW. Reason: torch 2.14.1's oneDNN crashes or hangs in the backward pass of
      such a convolution in channels_last on x86 CPUs without AVX-512 (SIGSEGV, glibc
      "double free or corruption"; reproduced with ``ONEDNN_MAX_CPU_ISA=AVX2``); NCHW, 8 or more
      input channels, other kernel sizes/strides and the forward pass are unaffected. In the
      ResNet-preact these convolutions are the shortcuts of the first unit of stages 2 and 3,
      reading ``stage_channels[0]`` (= ``base_channels``) and ``stage_channels[1]`` channels, so
      the rule is: NCHW for Table 2's 4 base channels, channels_last for 8, 16 and 32 (either
      block type). The rule does not depend on the CPU, so one configuration trains in the same
      layout on every machine.
    - Other devices (mps): NCHW.
    """
    if device.type == "cuda":
        return torch.channels_last
    if device.type == "cpu":
        if isinstance(model_config, ResNetPreactConfig):
            narrowest = min(model_config.stage_channels[:2])
        else:  # the other registry families (WRN, shake-shake, VGG): look at the built network
            narrowest = narrowest_strided_1x1_channels(model_config)
        return torch.channels_last if narrowest >= ONEDNN_MIN_STRIDED_1X1_CHANNELS else torch.contiguous_format
    return torch.contiguous_format


def narrowest_strided_1x1_channels(model_config: object) -> float:
    """The fewest input channels of any 1x1 convolution with stride > 1 in the network that
    [`holdout.training.registry.build_network`][holdout.training.registry.build_network] builds from ``model_config``
    (inf if none):
    the convolutions behind the oneDNN fault described in
    [`memory_format_for`][holdout.training.device.memory_format_for]."""
    from holdout.training.registry import build_network  # the registry imports every family

    with torch.device("meta"):
        net = build_network(model_config)  # type: ignore[arg-type]
    widths = [
        m.in_channels
        for m in net.modules()
        if isinstance(m, torch.nn.Conv2d) and tuple(m.kernel_size) == (1, 1) and max(m.stride) > 1
    ]
    return float(min(widths)) if widths else float("inf")


def cpu_bf16_is_fast() -> bool:
    """True when oneDNN has native bf16 kernels on this CPU (AVX512-BF16 or AMX; honours
    ``ONEDNN_MAX_CPU_ISA``). Without them bf16 autocast is emulated: measured 33 against 316
    training images per CPU-second in float32 for ResNet-preact-20 under ``ONEDNN_MAX_CPU_ISA=AVX2``."""
    check = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    try:
        return bool(check()) if check is not None else False
    except RuntimeError:
        return False


@dataclass(frozen=True)
class ExecutionPlan:
    """How one run executes: device, memory format, bf16 autocast, ``torch.compile``."""

    device: torch.device
    memory_format: torch.memory_format
    autocast: bool
    compile: bool

    @property
    def channels_last(self) -> bool:
        return self.memory_format == torch.channels_last


def execution_plan(
    model_config: ResNetPreactConfig,
    device: str | torch.device | None = None,
    channels_last: bool | None = None,
    autocast: bool | None = None,
    compile: bool | None = None,
    log: logging.Logger | None = None,
) -> ExecutionPlan:
    """Resolve [`holdout.training.train`][holdout.training.train]'s device switches; ``None`` means the device's
    default.

    ``channels_last``: [`memory_format_for`][holdout.training.device.memory_format_for]; ``autocast`` (bf16): on
    for CUDA only; ``compile``: off unless asked (measured on an H200 with torch 2.11, the default
    ``torch.compile`` made ResNet-preact-110's training step 1.34x slower than eager, after 72 s of
    compilation per job: ``config/calibration/``). An explicit ``channels_last=True`` that the rule would
    refuse is honoured with a warning.
    """
    dev = select_device(device)
    safe = memory_format_for(dev, model_config)
    if channels_last is None:
        fmt = safe
    else:
        fmt = torch.channels_last if channels_last else torch.contiguous_format
        if channels_last and dev.type == "cpu" and safe != torch.channels_last:
            (log or logging.getLogger(__name__)).warning(
                "channels_last=True with a 1x1 stride-2 convolution over fewer than %d channels: oneDNN "
                "(torch 2.14.1) may crash in the backward pass on CPUs without AVX-512; leave channels_last unset "
                "to train in NCHW",
                ONEDNN_MIN_STRIDED_1X1_CHANNELS,
            )
    on_cuda = dev.type == "cuda"
    if autocast and dev.type == "cpu" and not cpu_bf16_is_fast():
        (log or logging.getLogger(__name__)).warning(
            "autocast=True (bf16) on a CPU without native bf16 (AVX512-BF16 / AMX): oneDNN emulates it, "
            "8-10x slower than float32 (benchmarks/bench_training.py); leave autocast unset on this CPU"
        )
    return ExecutionPlan(
        device=dev,
        memory_format=fmt,
        autocast=on_cuda if autocast is None else bool(autocast),
        compile=bool(compile),  # None: off
    )
