"""Whole-step CUDA graphs: forward, backward and optimizer step recorded once and replayed.

A ResNet-preact-110 step launches over a thousand small kernels; eagerly the GPU waits for the
Python that launches them. [`GraphStep`][holdout.training.graphs.GraphStep] records one whole
optimisation step (the forward of every view under bf16 autocast, the loss, the backward and the
optimizer's update) in a ``torch.cuda.CUDAGraph`` and replays it for every later step: one launch
per step (PyTorch, "CUDA Graphs", whole-network capture).

What makes the replay equal to the eager step:

- **Static shapes.** The graph reads fixed input buffers; each step's augmented batch is copied
  into them. Every step has the same shape because the engine drops the last incomplete batch of
  each epoch (``steps_per_epoch = n // batch_size``), as hysts' training loader does
  (``drop_last=True``, ``dataloader.py`` at commit 1d76092): nothing is captured for a partial
  batch.
- **The learning rate is a device tensor** (a 0-dim tensor in every parameter group,
  [`use_tensor_lr`][holdout.training.graphs.use_tensor_lr]): the scheduler writes the step's value
  into it in place before each replay, so no Python float is baked into the graph. Momentum,
  weight decay and Adam's betas are constant during a run. The optimizer is torch's fused SGD or
  Adam (the implementations that take a tensor learning rate without reading it back to the host).
- **Warm-up steps are real steps.** The first ``warmup`` steps run eagerly (on a side stream on
  CUDA) with the run's own batches; they create the momentum buffers and move the batch-norm
  statistics exactly as those steps would anyway. The step after them is captured and then
  replayed, so capture spends no data and no update.
- **Batch norm** updates its running statistics inside the graph (in-place updates of the same
  buffers); autocast's weight cache is off during capture.
- **Augmentation stays outside** the graph (its generators, mixup's host-side lambda): the batches
  are drawn exactly as in an eager run.
- **Resume unchanged.** The saved optimizer state is converted to the eager form
  ([`portable_optimizer_state`][holdout.training.graphs.portable_optimizer_state]); a graph run
  resumes an eager run's state and the other way round.

On a device without CUDA the switch falls back to the eager step with a log line
([`graphs_available`][holdout.training.graphs.graphs_available]); ``GraphStep`` itself still runs
there without capturing (the same step function), which is what the CPU tests compare.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import torch

from holdout.training.augment import AugmentedBatch
from holdout.training.optim import training_loss

__all__ = [
    "GraphStep",
    "graphs_available",
    "portable_optimizer_state",
    "portable_scheduler_state",
    "use_eager_lr",
    "use_tensor_lr",
]

#: Eager steps before the capture (PyTorch's examples warm up on a side stream for a few steps).
WARMUP_STEPS = 3


def graphs_available(device: torch.device, requested: bool | None, log: logging.Logger | None = None) -> bool:
    """Whether a run asking for CUDA graphs (``requested``) gets them: only on a CUDA device; elsewhere
    the eager step, with one log line saying so."""
    if not requested:
        return False
    if torch.device(device).type == "cuda":
        return True
    (log or logging.getLogger(__name__)).info(
        "cuda_graphs: CUDA graphs need a CUDA device; %s trains with the eager step", torch.device(device)
    )
    return False


def use_tensor_lr(optimizer: torch.optim.Optimizer, device: torch.device) -> None:
    """Make every group's learning rate a 0-dim float32 tensor on ``device`` and the update torch's
    fused kernel (which takes a tensor learning rate without a host read). The scheduler keeps
    writing the values (in place; its base rates stay Python floats)."""
    device = torch.device(device)
    for group in optimizer.param_groups:
        lr = group["lr"]
        group["lr"] = torch.tensor(float(lr), dtype=torch.float32, device=device)
        group["fused"], group["foreach"] = True, False
        if "capturable" in group:  # Adam refuses a capture unless its groups say capturable
            group["capturable"] = device.type == "cuda"
        for p in group["params"]:  # Adam's step count: on the device for the fused kernel
            st = optimizer.state.get(p, {})
            if isinstance(st.get("step"), torch.Tensor):
                st["step"] = st["step"].to(device=device, dtype=torch.float32)
    optimizer._step_supports_amp_scaling = True  # what torch sets for a fused optimizer
    optimizer._need_device_dtype_check_for_fused = True


def use_eager_lr(optimizer: torch.optim.Optimizer) -> None:
    """Undo [`use_tensor_lr`][holdout.training.graphs.use_tensor_lr]: Python-float learning rates, the
    default (foreach) update."""
    for group in optimizer.param_groups:
        if isinstance(group["lr"], torch.Tensor):
            group["lr"] = float(group["lr"])
        group["fused"], group["foreach"] = None, None
        if "capturable" in group:
            group["capturable"] = False


def portable_optimizer_state(state: dict[str, Any]) -> dict[str, Any]:
    """An optimizer ``state_dict`` in the eager form (float learning rates, no fused flag), so that a
    saved state resumes in either mode."""
    groups = []
    for group in state["param_groups"]:
        g = dict(group)
        if isinstance(g.get("lr"), torch.Tensor):
            g["lr"] = float(g["lr"])
        if "initial_lr" in g and isinstance(g["initial_lr"], torch.Tensor):
            g["initial_lr"] = float(g["initial_lr"])
        g["fused"], g["foreach"] = None, None
        if "capturable" in g:
            g["capturable"] = False
        groups.append(g)
    per_param = {
        k: {n: (v.cpu() if n == "step" and isinstance(v, torch.Tensor) else v) for n, v in st.items()}
        for k, st in state["state"].items()
    }
    return {"state": per_param, "param_groups": groups}


def portable_scheduler_state(state: dict[str, Any]) -> dict[str, Any]:
    """A scheduler ``state_dict`` with its last learning rates as Python floats (see
    [`portable_optimizer_state`][holdout.training.graphs.portable_optimizer_state])."""
    if "_last_lr" not in state:
        return state
    return {**state, "_last_lr": [float(v) for v in state["_last_lr"]]}


class GraphStep:
    """One optimisation step of ``forward`` + ``optimizer`` on fixed-shape batches, captured as a CUDA
    graph after ``warmup`` eager steps (module docstring); ``capture=False`` runs the same step
    function without a graph (CPU). Calling it with an [`AugmentedBatch`][holdout.training.augment.AugmentedBatch]
    takes one step and returns (loss, logits of each view), like
    [`training_step`][holdout.training.optim.training_step]; the returned tensors are the graph's
    static outputs, valid until the next call."""

    def __init__(
        self,
        forward: Callable[[torch.Tensor], torch.Tensor],
        optimizer: torch.optim.Optimizer,
        dual_cutout_alpha: float,
        device: torch.device,
        autocast: bool,
        *,
        capture: bool = True,
        warmup: int = WARMUP_STEPS,
    ) -> None:
        self.forward, self.optimizer, self.alpha = forward, optimizer, float(dual_cutout_alpha)
        self.device, self.autocast = torch.device(device), bool(autocast)
        self.capture = bool(capture) and self.device.type == "cuda"
        self.warmup = max(1, int(warmup)) if self.capture else 0
        self.calls = 0
        self.graph: torch.cuda.CUDAGraph | None = None
        self.static_views: tuple[torch.Tensor, ...] = ()
        self.static_targets: torch.Tensor | None = None
        self.out: tuple[torch.Tensor, list[torch.Tensor]] | None = None

    def _step(self, views: tuple[torch.Tensor, ...], targets: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """The step function the graph records: forward of every view, loss, backward, update."""
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast, cache_enabled=False):
            logits = [self.forward(v) for v in views]
        loss = training_loss(logits, targets, self.alpha)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss.detach(), [z.detach() for z in logits]

    def _load(self, batch: AugmentedBatch) -> None:
        """Copy ``batch`` into the static buffers (allocated on the first call, in its shapes)."""
        if self.static_targets is None:
            self.static_views = tuple(torch.empty_like(v) for v in batch.views)
            self.static_targets = torch.empty_like(batch.targets)
        if len(batch.views) != len(self.static_views) or batch.targets.shape != self.static_targets.shape:
            raise ValueError("GraphStep: every batch must have the shape of the first (static shapes)")
        for dst, src in zip(self.static_views, batch.views, strict=True):
            dst.copy_(src)
        self.static_targets.copy_(batch.targets)

    def __call__(self, batch: AugmentedBatch) -> tuple[torch.Tensor, list[torch.Tensor]]:
        self._load(batch)
        assert self.static_targets is not None
        self.calls += 1
        if not self.capture:
            return self._step(self.static_views, self.static_targets)
        if self.graph is None and self.calls <= self.warmup:
            side = torch.cuda.Stream(self.device)
            side.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(side):
                out = self._step(self.static_views, self.static_targets)
            torch.cuda.current_stream(self.device).wait_stream(side)
            return out
        if self.graph is None:
            self.graph = torch.cuda.CUDAGraph()
            self.optimizer.zero_grad(set_to_none=True)
            with torch.cuda.graph(self.graph):
                self.out = self._step(self.static_views, self.static_targets)
        self.graph.replay()
        assert self.out is not None
        return self.out
