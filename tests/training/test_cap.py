"""The dress rehearsal's work cap (``training.cap``, holdout.training.cap): less work, the same
networks and recipes; the checkpoints say both."""

from __future__ import annotations

import pytest
import yaml

from holdout.training.cap import WorkCap, cap_schedule
from holdout.training.search import DISCRETE, sample_configs


def test_cap_schedule_moves_milestones_onto_the_capped_run():
    assert cap_schedule((60, 120, 160), 200, 10) == (3, 6, 8)
    assert cap_schedule((80, 120), 160, 1) == (1,)
    assert cap_schedule((), 200, 10) == ()


def test_workcap_sizes_and_epochs():
    cap = WorkCap(epochs=1, images=50, batch_size=8, steps_per_epoch=1)
    assert cap.active and not WorkCap().active
    assert cap.size(None) == 50 and cap.size(10_000) == 50 and cap.size(20) == 20 and WorkCap().size(None) is None
    assert cap.run_epochs(200, 10) == 10 and cap.run_epochs(160, 1) == 1 and cap.run_epochs(4, 10) == 4
    assert cap.per_class(None) == 5 and cap.per_class(3) == 3 and WorkCap().per_class(None) is None
    assert cap.steps(390) == 1
    with pytest.raises(ValueError, match="training.cap: unknown keys \\['step'\\]"):
        WorkCap.from_config({"step": 1})
    with pytest.raises(ValueError, match="training.cap.images must be >= 1"):
        WorkCap(images=0)


def test_apply_keeps_the_recipe_but_epochs_batch_and_milestones():
    pytest.importorskip("torch")
    from holdout.training.optim import TrainConfig

    recipe = TrainConfig(epochs=200, batch_size=64, milestones=(60, 120, 160), lr_decay=0.2, weight_decay=5e-4)
    run = WorkCap(epochs=1, batch_size=8).apply(recipe, num_checkpoints=10)
    assert (run.epochs, run.batch_size, run.milestones) == (10, 8, (3, 6, 8))
    assert run.to_dict() | {"epochs": 200, "batch_size": 64, "milestones": [60, 120, 160]} == recipe.to_dict()


def test_capped_training_records_recipe_cap_and_what_ran(tmp_path):
    torch = pytest.importorskip("torch")
    import numpy as np

    from holdout.training.loop import RunSettings, TrainConfig, train
    from holdout.training.models import ResNetPreactConfig

    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 256, (40, 3, 32, 32), dtype=np.uint8), rng.integers(0, 10, 40)
    recipe = TrainConfig(epochs=200, batch_size=16, milestones=(80, 120))
    cap = WorkCap(steps_per_epoch=1, epochs=1, batch_size=4)
    res = train(
        ResNetPreactConfig(depth=8, base_channels=4),
        recipe,
        x,
        y,
        RunSettings(out_dir=tmp_path / "out", state_dir=tmp_path / "state", num_checkpoints=3, cap=cap),
    )
    assert [c.name for c in res.checkpoints] == ["checkpoint_01.pt", "checkpoint_02.pt", "checkpoint_03.pt"]
    assert len(res.history) == 3  # max(cap.epochs, K) epochs
    meta = torch.load(res.checkpoints[-1], weights_only=False)
    assert meta["train_config"] == recipe.to_dict() and meta["work_cap"] == cap.to_dict()
    assert meta["run_train_config"]["epochs"] == 3 and meta["run_train_config"]["batch_size"] == 4
    assert res.history[-1]["images_per_s"] > 0  # one step of 4 images per epoch


def _branches(row) -> set:
    out = {("residual_block_type", row["residual_block_type"]), ("optimizer", row["optimizer"])}
    out |= {("number_of_base_channels", int(row["number_of_base_channels"]))}
    out |= {("learning_rate_schedule", row["learning_rate_schedule"])}
    out |= {(k, bool(row[k])) for k, v in DISCRETE.items() if v == (True, False)}
    return out


def test_rehearsal_draws_cover_every_branch(repo):
    """config/rehearsal.yaml's draws of the paper sample (seed 0) cover basic and bottleneck, 4 and 32
    channels, every optimizer and schedule, each augmentation and architecture switch both ways."""
    draws = yaml.safe_load((repo / "config/rehearsal.yaml").read_text())["training"]["cap"]["search_draws"]
    table = sample_configs(320, 0)
    covered = set().union(*(_branches(table.iloc[i]) for i in draws))
    needed = {("residual_block_type", b) for b in ("basic", "bottleneck")}
    needed |= {("number_of_base_channels", 4), ("number_of_base_channels", 32)}
    needed |= {("optimizer", o) for o in DISCRETE["optimizer"]}
    needed |= {("learning_rate_schedule", s) for s in DISCRETE["learning_rate_schedule"]}
    needed |= {(k, v) for k, vals in DISCRETE.items() if vals == (True, False) for v in vals}
    assert needed <= covered, needed - covered
    assert len(draws) <= 6
