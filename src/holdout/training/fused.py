"""Many networks trained as one: the same-shape members of a search trained by one vectorised step.

A random search's draws are small networks that share a handful of shapes; trained one per process,
each pays the launch cost of a thousand small kernels per step. [`train_group`][holdout.training.fused.train_group]
trains the members of a group (same network, batch size, epochs and views,
[`fusion_key`][holdout.training.fused.fusion_key]) with one forward and one backward per step for all of
them: their weights and batch-norm buffers are stacked (``torch.func.stack_module_state``) and the
network is mapped over the stack with ``torch.func.vmap`` (PyTorch's model-ensembling recipe), which
turns each convolution into one grouped convolution over the members, as HFTA (Wang et al.,
MLSys 2021) does by hand.

What stays each member's own, so that a member trains as it would alone
([`holdout.training.loop.train`][holdout.training.loop.train] with its own settings):

- its initial weights, data order, augmentation draws and mixup lambdas (its seed's streams,
  [`holdout.training.run_state.set_up`][holdout.training.run_state.set_up]): the members never share
  a minibatch (Mania et al. measure how similar the models' predictions are; shared batches would
  make them more alike);
- its optimizer (SGD, momentum, Nesterov or Adam), learning rate, schedule, momentum, weight decay
  and augmentation switches: the stacked step only computes each member's gradient (the sum of
  the members' losses has, for each member's weights, that member's gradient alone); the member's
  own torch optimizer and scheduler then update its weights;
- its batch-norm statistics (stacked buffers, updated per member under ``vmap``);
- its checkpoints, log, resumable state and resume (the files of
  [`holdout.training.run_state`][holdout.training.run_state], in each member's own folders). A member
  whose saved state is ahead of the others (a group interrupted between two members' saves) sits out
  the epochs it has already trained.

The layers' own noise (shake-shake's alpha and beta, dropout) is drawn per member
(``randomness="different"``) from torch's global generator, not from each member's own stream as
alone: a fused network with such layers trains a statistically equal run, not the identical one.
ResNet-preact, the search's network, has none.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

from holdout.training.augment import AugmentedBatch, augment_batch
from holdout.training.checkpoints import LOG_NAME, checkpoint_epochs, checkpoint_paths
from holdout.training.device import execution_plan
from holdout.training.evaluation import evaluate
from holdout.training.inputs import check_training_data, training_fingerprint
from holdout.training.optim import TrainConfig, training_loss
from holdout.training.progress import log_progress
from holdout.training.registry import describe_model
from holdout.training.run_state import Job, RunState, finish, resume, save_epoch, set_up

__all__ = ["Member", "fused_step", "fusion_key", "meta_copy", "train_group"]


@dataclass(frozen=True)
class Member:
    """One network of a fused group: its model and training configs and its own
    [`RunSettings`][holdout.training.loop.RunSettings] (folders, seed, checkpoints)."""

    model_config: Any
    config: TrainConfig
    settings: Any


def fusion_key(model_config: Any, config: TrainConfig) -> str:
    """What members of one group must share: the whole network configuration (one forward for all),
    the batch size, the epochs, the number of views (dual cutout forwards two) and the image size
    (``augment.window``). Everything else of the recipe may differ."""
    import json

    net = json.dumps(model_config.to_dict(), sort_keys=True, default=str)
    aug = config.augment
    return f"{net} | batch {config.batch_size} | epochs {config.epochs} | views {aug.num_views} | {aug.window or 32} px"


def fused_step(
    nets: Sequence[nn.Module],
    optimizers: Sequence[torch.optim.Optimizer],
    batches: Sequence[AugmentedBatch],
    alphas: Sequence[float],
    device_type: str,
    autocast: bool,
    base: nn.Module | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One optimisation step of every member at once: the stacked forward and backward of all
    members on their own batches, then each member's own optimizer step. Returns each member's loss
    (M) and its first view's logits (M x B x classes). ``base``: the network's structure
    ([`meta_copy`][holdout.training.fused.meta_copy] of a member; made here when not given)."""
    params, buffers = stack_module_state(list(nets))
    base = meta_copy(nets[0]) if base is None else base
    views = tuple(torch.stack([b.views[k] for b in batches]) for k in range(len(batches[0].views)))
    targets = torch.stack([b.targets for b in batches])
    alpha = torch.tensor(list(alphas), dtype=torch.float32, device=targets.device)

    def one(p: dict[str, torch.Tensor], buf: dict[str, torch.Tensor], *args: torch.Tensor) -> Any:
        *xs, t, a = args
        logits = [functional_call(base, (p, buf), (x,)) for x in xs]
        return training_loss(logits, t, a), logits[0]

    with torch.autocast(device_type, dtype=torch.bfloat16, enabled=autocast):
        losses, logits = vmap(one, randomness="different")(params, buffers, *views, targets, alpha)
    losses.sum().backward()
    for i, (net, opt) in enumerate(zip(nets, optimizers, strict=True)):
        opt.zero_grad(set_to_none=True)
        for name, p in net.named_parameters():
            p.grad = params[name].grad[i]
        opt.step()
        names, own = zip(*net.named_buffers(), strict=True)
        with torch.no_grad():
            torch._foreach_copy_(list(own), [buffers[name][i] for name in names])
    return losses.detach(), logits.detach()


def meta_copy(net: nn.Module) -> nn.Module:
    """A weightless copy of ``net`` (on the meta device): the structure ``functional_call`` runs."""
    return copy.deepcopy(net).to("meta")


def _jobs(members: Sequence[Member], images: Any, labels: Any, test: tuple[Any, Any], log: logging.Logger) -> list[Job]:
    """Each member's checked job; the data is checked and moved to the device once, for the first."""
    from holdout.training.loop import _capped, _capped_data

    first = members[0]
    s0 = first.settings
    plan = execution_plan(first.model_config, s0.device, s0.channels_last, s0.autocast, False, log)
    jobs, data = [], None
    for m in members:
        recipe, config = _capped(m.config, m.settings, log)
        key = (m.settings.seed, m.settings.num_checkpoints)
        if data is None:
            data = check_training_data(m.model_config, config, key, images, labels, *test, plan.device)
            own = data
        else:
            fp = training_fingerprint(m.model_config, config, *key, data.images.cpu(), data.labels.cpu())
            own = dataclasses.replace(data, fingerprint=fp)
        if recipe is not None:
            own = _capped_data(own, m.settings.cap)
        paths = checkpoint_paths(m.settings.out_dir, m.settings.num_checkpoints)
        epochs = checkpoint_epochs(config.epochs, m.settings.num_checkpoints)
        jobs.append(Job(m.model_config, config, m.settings, plan, own, epochs, paths, recipe))
    if len({j.data.steps_per_epoch for j in jobs}) != 1:
        raise ValueError("train_group: the members' work caps give them different steps per epoch")
    return jobs


def _epoch(jobs: Sequence[Job], runs: Sequence[RunState], active: Sequence[int], bar: Any) -> list[dict[str, float]]:
    """One epoch of the ``active`` members, each on its own permutation and augmentation draws."""
    job0 = jobs[0]
    plan, data, steps, bs = job0.plan, job0.data, job0.data.steps_per_epoch, job0.config.batch_size
    t0 = time.perf_counter()
    lrs = [float(runs[i].optimizer.param_groups[0]["lr"]) for i in active]
    perms = [
        torch.randperm(data.images.shape[0], generator=runs[i].order_gen)[: steps * bs].to(plan.device) for i in active
    ]
    base = meta_copy(runs[active[0]].net)
    loss_sum = torch.zeros(len(active), device=plan.device, dtype=torch.float64)
    correct = torch.zeros(len(active), device=plan.device, dtype=torch.int64)
    for step in range(steps):
        batches = []
        for k, i in enumerate(active):
            idx = perms[k][step * bs : (step + 1) * bs]
            aug = jobs[i].config.augment
            batches.append(
                augment_batch(
                    data.images[idx],
                    data.labels[idx],
                    aug,
                    jobs[i].model_config.num_classes,
                    runs[i].aug_gen,
                    runs[i].mix_rng,
                    plan.memory_format,
                )
            )
        losses, logits = fused_step(
            [runs[i].net for i in active],
            [runs[i].optimizer for i in active],
            batches,
            [jobs[i].config.augment.dual_cutout_alpha for i in active],
            plan.device.type,
            plan.autocast,
            base,
        )
        for i in active:
            runs[i].scheduler.step()
        loss_sum += losses.double() * bs
        correct += (logits.argmax(-1) == torch.stack([b.hard_labels for b in batches])).sum(-1)
        bar.update(bs * len(active))
    seconds = time.perf_counter() - t0
    seen = steps * bs
    rows = []
    for k in range(len(active)):
        row = {"train_loss": float(loss_sum[k]) / seen, "train_accuracy": int(correct[k]) / seen, "lr": lrs[k]}
        rows.append({**row, "images_per_s": seen / seconds, "epoch_time_s": seconds})
    return rows


def train_group(
    members: Sequence[Member],
    images: Any,
    labels: Any,
    *,
    test_images: Any = None,
    test_labels: Any = None,
    log: logging.Logger | None = None,
) -> list[Any]:
    """Train ``members`` (one [`fusion_key`][holdout.training.fused.fusion_key]) as one fused network
    and write each member's checkpoints, log and state as [`train`][holdout.training.loop.train] would.

    The device switches (``device``, ``channels_last``, ``autocast``, ``threads``) are the first
    member's settings; ``compile`` and ``cuda_graphs`` are not applied here. ``images_per_s`` in a
    member's log is that member's images per second (the group trained ``len(members)`` times as
    many). Returns each member's ``TrainResult``.
    """
    from holdout.training.loop import TrainResult

    log = log or logging.getLogger("holdout.training.fused")
    if not members:
        raise ValueError("train_group: no members")
    keys = sorted({fusion_key(m.model_config, m.config) for m in members})
    if len(keys) != 1:
        raise ValueError(f"train_group: the members do not share one network, batch, epochs and views: {keys}")
    if members[0].settings.threads is not None:
        torch.set_num_threads(int(members[0].settings.threads))
    jobs = _jobs(members, images, labels, (test_images, test_labels), log)
    runs = []
    for job in jobs:
        runs.append(set_up(job))
        resume(job, runs[-1], log)
    cfg, plan, data = jobs[0].config, jobs[0].plan, jobs[0].data
    log.info(
        "training %d x %s as one fused network: %d epochs x %d steps, batch %d, on %s (bf16 %s)",
        *(len(jobs), describe_model(jobs[0].model_config), cfg.epochs, data.steps_per_epoch, cfg.batch_size),
        *(plan.device, plan.autocast),
    )
    wall0 = time.perf_counter()
    start = min(r.start_epoch for r in runs)
    per_epoch = data.steps_per_epoch * cfg.batch_size
    done = sum(r.start_epoch for r in runs) * per_epoch
    for r in runs:
        r.net.train()
    with log_progress(log, cfg.epochs * per_epoch * len(runs), initial=done, desc="train group", unit="img") as bar:
        for epoch in range(start + 1, cfg.epochs + 1):
            active = [i for i, r in enumerate(runs) if r.start_epoch < epoch]
            for i, row in zip(active, _epoch(jobs, runs, active, bar), strict=True):
                row = {"epoch": epoch, **row}
                if data.test_images is not None and data.test_labels is not None:
                    args = (jobs[i].config.augment, 1024, plan.device, plan.memory_format, plan.autocast)
                    row["test_loss"], row["test_accuracy"] = evaluate(
                        runs[i].net, data.test_images, data.test_labels, *args
                    )
                previous = runs[i].history[-1]["wall_time_s"] if runs[i].history else 0.0
                row["wall_time_s"] = previous + (time.perf_counter() - wall0)
                runs[i].history.append(row)
                save_epoch(jobs[i], runs[i], epoch, row, log)
            wall0 = time.perf_counter()
    results = []
    for job, run in zip(jobs, runs, strict=True):
        finish(job, run)
        run.net.eval()
        paths = job.checkpoint_paths
        results.append(TrainResult(run.net, run.history, paths, job.settings.out_dir / LOG_NAME, run.start_epoch))
    return results
