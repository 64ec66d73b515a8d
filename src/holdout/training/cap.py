"""The work cap of a dress rehearsal: the workflow at full architectures and recipes, less work.

``training.cap`` (all null by default: off) cuts only the AMOUNT of work of every training and
prediction job, never a network or a recipe: at most ``steps_per_epoch`` optimizer steps of at most
``batch_size`` images per epoch, ``max(epochs, K)`` epochs for a job with K checkpoints (so the
checkpoint names stay those of the real run), at most ``images`` images in every training subset and
every CIFAR-10 test set predicted, only the Table 2 draws ``search_draws`` (indices of the sampled
configurations) and the cross-validation ``folds``. A capped run's learning-rate milestones are
rescaled to its epochs; its checkpoints record the recipe (``train_config``), the cap (``work_cap``)
and what ran (``run_train_config``). The rehearsal of ``config/paper.yaml`` on a CPU uses it
(``config/rehearsal.yaml``), and so does a first GPU session, before it spends GPU-hours.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["WorkCap", "cap_schedule"]


def cap_schedule(milestones: Sequence[int], epochs: int, run_epochs: int) -> tuple[int, ...]:
    """Milestones of an ``epochs`` schedule moved onto ``run_epochs`` (``round(m * run / epochs)``,
    at least 1, each kept once, only those inside the run)."""
    moved = {max(1, round(m * run_epochs / epochs)) for m in milestones}
    return tuple(sorted(m for m in moved if m <= run_epochs))


@dataclass(frozen=True)
class WorkCap:
    """``training.cap`` of the config (module docstring); ``None`` fields cut nothing."""

    steps_per_epoch: int | None = None
    epochs: int | None = None
    batch_size: int | None = None
    images: int | None = None
    search_draws: tuple[int, ...] | None = None
    folds: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("steps_per_epoch", "epochs", "batch_size", "images"):
            value = getattr(self, name)
            if value is not None and int(value) < 1:
                raise ValueError(f"training.cap.{name} must be >= 1 or null, got {value}")
        for name in ("search_draws", "folds"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(int(v) for v in value))

    @classmethod
    def from_config(cls, cap: Mapping[str, Any] | None) -> WorkCap:
        """From the ``training.cap`` mapping (missing keys: no cut)."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(cap or {}) - known
        if unknown:
            raise ValueError(f"training.cap: unknown keys {sorted(unknown)} (known: {', '.join(sorted(known))})")
        return cls(**dict(cap or {}))

    @property
    def active(self) -> bool:
        return any(getattr(self, f.name) is not None for f in dataclasses.fields(self))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    def size(self, n: int | None) -> int | None:
        """A training-subset or test-set size under the cap (``None``: all images, capped)."""
        if self.images is None:
            return n
        return self.images if n is None else min(int(n), self.images)

    def per_class(self, train_per_class: int | None, classes: int = 10) -> int | None:
        """Images per class of a retraining run under the cap (``images // classes``, at least 1)."""
        if self.images is None:
            return train_per_class
        cut = max(1, self.images // classes)
        return cut if train_per_class is None else min(int(train_per_class), cut)

    def run_epochs(self, epochs: int, num_checkpoints: int) -> int:
        """Epochs a capped run trains: ``min(epochs, max(cap.epochs, num_checkpoints))``."""
        return epochs if self.epochs is None else min(epochs, max(self.epochs, num_checkpoints))

    def apply(self, train: Any, num_checkpoints: int) -> Any:
        """The [`TrainConfig`][holdout.training.optim.TrainConfig] a capped run executes: fewer
        epochs (milestones rescaled, [`cap_schedule`][holdout.training.cap.cap_schedule]) and at
        most ``batch_size`` images per step; everything else is the recipe."""
        epochs = self.run_epochs(train.epochs, num_checkpoints)
        batch = train.batch_size if self.batch_size is None else min(train.batch_size, self.batch_size)
        milestones = cap_schedule(train.milestones, train.epochs, epochs)
        return dataclasses.replace(train, epochs=epochs, batch_size=batch, milestones=milestones)

    def steps(self, steps_per_epoch: int) -> int:
        return steps_per_epoch if self.steps_per_epoch is None else min(steps_per_epoch, self.steps_per_epoch)
