"""What a training job costs on a GPU: a labelled projection range, or hours from a measured calibration.

One optimisation step of a job costs at least the larger of two times: the arithmetic
(``3 x forward FLOPs x batch x views`` over the sustained rate) and a per-step floor that grows with
the number of layers (each layer launches kernels forward and backward, whatever its width). Dual
cutout forwards and backwards two views, so it counts twice. A job's hours are
``steps x t_step + start-up`` with ``steps = epochs x (training images // batch)`` (the engine drops
the last incomplete batch). Evaluation and checkpoint predictions are separate workflow jobs, not
counted here.

- **Projection** ([`projected_step_seconds`][holdout.training.cost.projected_step_seconds]): no
  measurement; a range whose low end assumes half the arithmetic time or a floor of
  ``FLOOR_MS_PER_LAYER[0]`` per layer and view, and whose high end twice the arithmetic time or
  ``FLOOR_MS_PER_LAYER[1]``.
- **Calibrated** ([`StepTable`][holdout.training.cost.StepTable]): the seconds per step measured by
  ``python -m holdout.training.calibration measure`` on one GPU, per cell (network, batch, views,
  image size); a cell not timed takes the nearest timed batch size of the same network and views,
  or, for ResNet-preact networks, the measured floor per layer and view; each job says which.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = [
    "FLOOR_MS_PER_LAYER",
    "STARTUP_S",
    "Cell",
    "StepTable",
    "architecture_key",
    "cell_key",
    "count_layers",
    "count_network",
    "job_hours",
    "load_calibration",
    "projected_step_seconds",
]

#: Per-step floor per layer (convolution or linear) and view, in milliseconds: (low, high) of the
#: projection. Low: 4 ms for a 110-layer ResNet step (a launch-bound step with few, fused kernels;
#: an estimate, not a measurement). High: 0.5 ms, about what the eager engine measured per layer
#: on an H200 (config/calibration/).
FLOOR_MS_PER_LAYER = (0.036, 0.5)
#: The ``format`` of a calibration file (``python -m holdout.training.calibration measure``).
CALIBRATION_FORMAT = "holdout-calibration/1"
#: Start-up of one job (interpreter, imports, data to the device, first steps): an ASSUMPTION.
STARTUP_S = 60.0


@dataclass(frozen=True)
class Cell:
    """One (network, batch size, views, image size) combination whose step time a plan needs.

    ``model``: the network's config as a dict (``to_dict`` of a ResNet-preact config or a
    [`ModelSpec`][holdout.training.registry.ModelSpec]), without the switches that move activations
    only; ``train``: the TrainConfig (dict) of the first job with this cell, whose optimizer and
    augmentation the timing runs; ``jobs``: how many jobs of the plan use it.
    """

    key: str
    model: dict[str, Any]
    train: dict[str, Any]
    batch_size: int
    views: int
    image_size: int
    jobs: int = 1


def architecture_key(model_config: Any) -> Any:
    """What parameters and FLOPs depend on: a ResNet-preact config without its activation-order
    switches (``remove_first_relu``, ``preact_stage`` move ReLUs and BatchNorms, adding no parameter
    and no convolution), so 320 Table 2 draws need at most 16 counts."""
    from holdout.training.models import ResNetPreactConfig

    if isinstance(model_config, ResNetPreactConfig):
        return replace(model_config, remove_first_relu=False, preact_stage=(True, True, True))
    return model_config


def cell_key(model_config: Any, batch_size: int, views: int, image_size: int) -> str:
    """The key of a calibration cell, e.g. ``ResNet-preact-110 (basic, 16 ch) | batch 128 | views 1 | 32 px``."""
    from holdout.training.registry import describe_model

    return f"{describe_model(architecture_key(model_config))} | batch {batch_size} | views {views} | {image_size} px"


@functools.cache
def count_network(model_config: Any, image_size: int = 32) -> tuple[int, int, int]:
    """(trainable parameters, forward FLOPs of one image, convolution and linear layers) of a
    ResNet-preact config or ModelSpec; cached per distinct architecture and image size.

    FLOPs as ``torch.utils.flop_counter`` counts them (2 per multiply-add, so 2 x output elements x
    input channels per group x kernel area for a convolution, 2 x output elements x input features
    for a linear layer; BatchNorm, activations, pooling and additions count none), from hooks on
    those layers during one forward pass of a zero image on the CPU: about ten times faster than
    the flop counter on the meta device. The weights are built on the CPU with torch's global RNG
    saved and restored, so counting draws nothing from it.
    """
    import torch
    from torch import nn

    from holdout.training.registry import build_network

    with torch.random.fork_rng(devices=[]):
        net = build_network(model_config).eval()
    layers = [m for m in net.modules() if isinstance(m, nn.Conv2d | nn.Linear)]
    flops = [0]

    def count(module: nn.Module, _inputs: Any, out: torch.Tensor) -> None:
        per_output = module.weight[0].numel() if isinstance(module, nn.Conv2d) else module.in_features
        flops[0] += 2 * out.numel() * per_output

    handles = [m.register_forward_hook(count) for m in layers]
    with torch.no_grad():
        net(torch.zeros(1, model_config.in_channels, image_size, image_size))
    for handle in handles:
        handle.remove()
    params = sum(p.numel() for p in net.parameters() if p.requires_grad)
    return int(params), int(flops[0]), len(layers)


def count_layers(model_config: Any) -> int:
    """Convolution and linear layers of a network ([`count_network`][holdout.training.cost.count_network])."""
    return count_network(model_config, 32)[2]  # any image size: 32 px shares the plan's counts


def projected_step_seconds(
    gflops_per_image: float, batch: int, views: int, layers: int, tflops: float
) -> tuple[float, float]:
    """(low, high) seconds of one step: max(arithmetic, floor) with the arithmetic at twice and half
    ``tflops`` and the floor at ``FLOOR_MS_PER_LAYER`` (a projection, not a measurement)."""
    compute = 3.0 * gflops_per_image * 1e9 * batch * views / (tflops * 1e12)
    low = max(compute / 2.0, FLOOR_MS_PER_LAYER[0] * 1e-3 * layers * views)
    high = max(compute * 2.0, FLOOR_MS_PER_LAYER[1] * 1e-3 * layers * views)
    return low, high


def job_hours(steps: int, step_seconds: float, startup_s: float = STARTUP_S) -> float:
    """``steps x step_seconds + startup_s`` in hours."""
    return (steps * step_seconds + startup_s) / 3600.0


def load_calibration(path: str | Path) -> dict[str, Any]:
    """A calibration JSON written by ``measure``, checked: its format and a timing per cell."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"calibration file {p}: unreadable ({exc}); pass the JSON that `measure` wrote") from exc
    if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT or not data.get("cells"):
        raise ValueError(f"calibration file {p}: not a {CALIBRATION_FORMAT} file with timed cells")
    if not isinstance(data["cells"], dict):
        raise ValueError(
            f"calibration file {p}: 'cells' is a {type(data['cells']).__name__}, not a mapping of cell keys to "
            "timings; pass the JSON that `measure` wrote"
        )
    for key, cell in data["cells"].items():
        problem = _cell_problem(key, cell)
        if problem:
            raise ValueError(f"calibration file {p}: cell {key!r}: {problem}; measure it again or remove the cell")
    return data


def _cell_problem(key: str, cell: Any) -> str | None:
    """What is wrong with one cell of a calibration file (its key, its timings), or None. A step time
    must be a finite number of seconds > 0: a plan would otherwise drop the cell for a neighbour's
    time, or count a negative time into its hours."""
    try:
        _, batch, views, _ = _parse_key(key)
    except (ValueError, IndexError):
        batch = views = 0
    if batch < 1 or views < 1:
        return "the key is not 'NETWORK | batch B | views V | S px' with B and V >= 1"
    if not isinstance(cell, Mapping):
        return f"a {type(cell).__name__}, not a mapping with 'timings'"
    timings = cell.get("timings")
    if not isinstance(timings, list) or not timings:
        return "no 'timings' list"
    for i, timing in enumerate(timings):
        if not isinstance(timing, Mapping) or not isinstance(timing.get("compiled"), bool):
            return f"timings[{i}] is not a mapping with 'compiled': true or false"
        s = timing.get("seconds_per_step")
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or s <= 0:
            return f"timings[{i}].seconds_per_step is {s!r}, not a number of seconds > 0"
    return None


def _parse_key(key: str) -> tuple[str, int, int, str]:
    """(network, batch, views, size) of a cell key ``"NET | batch B | views V | S px"``."""
    net, batch, views, size = key.split(" | ")
    return net, int(batch.split()[1]), int(views.split()[1]), size


@dataclass(frozen=True)
class StepTable:
    """Measured eager seconds per step by cell, from one calibration file (its ``machine`` says where)."""

    seconds: Mapping[str, float]
    layers: Mapping[str, int]
    machine: Mapping[str, Any]
    source: str

    @classmethod
    def from_calibration(cls, data: Mapping[str, Any], source: str) -> StepTable:
        from holdout.training.registry import model_config_from_dict

        seconds, layers = {}, {}
        for key, cell in data["cells"].items():
            eager = [t["seconds_per_step"] for t in cell["timings"] if not t["compiled"]]
            if eager and math.isfinite(eager[0]) and eager[0] > 0:
                seconds[key] = float(eager[0])
                if "model" in cell:
                    layers[_parse_key(key)[0]] = count_layers(model_config_from_dict(cell["model"]))
        return cls(seconds, layers, dict(data.get("machine", {})), source)

    @functools.cached_property
    def floor_per_layer_view(self) -> float | None:
        """Median measured seconds per step over layers x views of the ResNet-preact cells."""
        ratios = sorted(
            s / (self.layers[net] * views)
            for key, s in self.seconds.items()
            for net, _, views, _ in [_parse_key(key)]
            if net.startswith("ResNet-preact") and net in self.layers
        )
        return ratios[len(ratios) // 2] if ratios else None

    def lookup(self, key: str, layers: int) -> tuple[float, str] | None:
        """(seconds per step, basis) of a cell, or None when the calibration cannot say."""
        if key in self.seconds:
            return self.seconds[key], "measured"
        net, batch, views, size = _parse_key(key)
        same = [
            (b, s) for k, s in self.seconds.items() for n, b, v, z in [_parse_key(k)] if (n, v, z) == (net, views, size)
        ]
        if same:
            b, s = min(same, key=lambda bs: (abs(math.log(bs[0] / batch)), -bs[1]))
            return s, f"nearest measured batch ({b})"
        floor = self.floor_per_layer_view
        if net.startswith("ResNet-preact") and floor is not None:
            return floor * layers * views, f"fit: {floor * 1e3:.3f} ms per layer and view (ResNet-preact cells)"
        return None
