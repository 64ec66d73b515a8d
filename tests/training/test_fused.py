"""holdout.training.fused: a fused group trains each member as it would train alone."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from holdout.training.augment import AugmentConfig
from holdout.training.fused import Member, fusion_key, train_group
from holdout.training.loop import RunSettings, TrainConfig, train
from holdout.training.models import ResNetPreactConfig

NET = ResNetPreactConfig(depth=8, base_channels=4)
#: Four recipes of one fusion key: every optimizer of Table 2, their own lr, schedule, momentum,
#: weight decay and augmentation switches.
RECIPES = [
    TrainConfig(epochs=4, batch_size=16, optimizer="nesterov", base_lr=0.1, milestones=(2, 3)),
    TrainConfig(
        epochs=4,
        batch_size=16,
        optimizer="adam",
        base_lr=2e-3,
        weight_decay=1e-3,
        scheduler="cosine",
        augment=AugmentConfig(mixup=True, label_smoothing=True),
    ),
    TrainConfig(
        epochs=4,
        batch_size=16,
        optimizer="momentum",
        momentum=0.6,
        base_lr=0.05,
        weight_decay_bn=False,
        augment=AugmentConfig(random_crop=False, cutout=True, cutout_size=8),
    ),
    TrainConfig(
        epochs=4,
        batch_size=16,
        optimizer="sgd",
        base_lr=0.2,
        weight_decay=1e-2,
        scheduler="cosine",
        augment=AugmentConfig(random_erasing=True, horizontal_flip=False),
    ),
]


def _members(tmp, name, k=4):
    return [
        Member(
            NET, cfg, RunSettings(tmp / name / f"m{i}", tmp / f"{name}_state" / f"m{i}", seed=10 + i, num_checkpoints=2)
        )
        for i, cfg in enumerate(RECIPES[:k])
    ]


def _assert_same_weights(a, b, rel=5e-3):
    """Equal within float rounding, tensor by tensor: ``||p - q|| <= rel ||p||``. One fused step's
    gradients agree with a member's own to about 1e-6 (the grouped convolution sums in another order;
    ``test_one_fused_step_has_each_members_own_gradient``); 20 steps at lr 0.1 on batches of 16
    amplify that to about 2e-3 of a batch-norm bias (measured); members with other seeds differ by O(1)."""
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        p, q = p.double(), q.double()
        assert torch.linalg.norm(p - q) <= rel * max(float(torch.linalg.norm(p)), 1e-6), name


def test_one_fused_step_has_each_members_own_gradient(synthetic):
    """The stacked step's gradient of each member equals that member's own (two members, each on its
    own batch), to float rounding."""
    from holdout.training.augment import augment_batch
    from holdout.training.fused import fused_step
    from holdout.training.models import build_resnet_preact
    from holdout.training.optim import training_step

    x, y = synthetic(32)
    aug = AugmentConfig(cutout=True, cutout_size=8)
    gen, rng = torch.Generator().manual_seed(0), np.random.default_rng(0)
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    batches = [augment_batch(xt[i * 16 : (i + 1) * 16], yt[i * 16 : (i + 1) * 16], aug, 10, gen, rng) for i in (0, 1)]
    nets = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        nets.append(build_resnet_preact(NET).train())
    alone = [copy.deepcopy(n) for n in nets]
    zero = [torch.optim.SGD(n.parameters(), lr=0.0) for n in nets + alone]
    fused_step(nets, zero[:2], batches, [0.1, 0.1], "cpu", False)
    for net, own, opt, batch in zip(nets, alone, zero[2:], batches, strict=True):
        training_step(own, opt, batch, 0.1, "cpu", False)
        for (name, p), q in zip(own.named_parameters(), net.parameters(), strict=True):
            assert torch.linalg.norm(p.grad - q.grad) <= 1e-5 * torch.linalg.norm(p.grad), name
        _assert_same_weights(own, net, rel=1e-6)  # batch-norm statistics too


def test_fused_group_of_four_trains_each_member_as_alone(tmp_path, synthetic):
    """20 steps (4 epochs x 5) of a fused group of 4 give each member the weights, batch-norm
    statistics, losses and checkpoints of training it alone with its own settings."""
    x, y = synthetic(80)
    assert len({fusion_key(NET, c) for c in RECIPES}) == 1
    fused = train_group(_members(tmp_path, "fused"), x, y, test_images=x[:32], test_labels=y[:32])
    for m, res in zip(_members(tmp_path, "alone"), fused, strict=True):
        alone = train(m.model_config, m.config, x, y, m.settings, test_images=x[:32], test_labels=y[:32])
        _assert_same_weights(alone.model, res.model)
        for r, s in zip(alone.history, res.history, strict=True):
            assert r["lr"] == s["lr"]
            np.testing.assert_allclose(r["train_loss"], s["train_loss"], rtol=1e-4)
            assert r["train_accuracy"] == s["train_accuracy"] and r["test_accuracy"] == s["test_accuracy"]
        assert [p.name for p in res.checkpoints] == [p.name for p in alone.checkpoints]
        assert all(p.exists() for p in res.checkpoints) and res.log_path.exists()
    # the members differ from one another: no shared minibatches, no shared weights
    w = [next(r.model.parameters()).detach().flatten() for r in fused]
    assert all(not torch.allclose(w[0], v) for v in w[1:])


@pytest.mark.slow  # over a second of the fast loop; the lines it checks stay covered by fast tests beside it
def test_interrupted_group_resumes_each_member(tmp_path, synthetic, monkeypatch):
    """A group stopped after member 2 saved epoch 2 (member 3 still at epoch 1) resumes: the
    members behind catch up, and every member ends with the weights of the uninterrupted group."""
    from holdout.training import fused as fused_mod

    x, y = synthetic(80)
    whole = train_group(_members(tmp_path, "whole", 3), x, y)
    real, saves = fused_mod.save_epoch, []

    def crash(job, run, epoch, row, log):
        real(job, run, epoch, row, log)
        saves.append(epoch)
        if saves.count(2) == 2:
            raise KeyboardInterrupt("stopped between two members' saves")

    monkeypatch.setattr(fused_mod, "save_epoch", crash)
    members = _members(tmp_path, "cut", 3)
    with pytest.raises(KeyboardInterrupt):
        train_group(members, x, y)
    monkeypatch.setattr(fused_mod, "save_epoch", real)
    resumed = train_group(members, x, y)
    assert [r.resumed_from_epoch for r in resumed] == [2, 2, 1]
    for a, b in zip(whole, resumed, strict=True):
        _assert_same_weights(a.model, b.model)


def test_members_of_different_networks_are_refused(tmp_path, synthetic):
    x, y = synthetic(32)
    other = Member(
        ResNetPreactConfig(depth=8, base_channels=8),
        RECIPES[0],
        RunSettings(tmp_path / "b", tmp_path / "bs", num_checkpoints=2),
    )
    with pytest.raises(ValueError, match="do not share one network"):
        train_group([_members(tmp_path, "a")[0], other], x, y)


@pytest.mark.slow
def test_fused_members_are_as_similar_as_separately_trained_models(tmp_path, synthetic):
    """Mania et al.'s similarity (the fraction of test points two models predict alike), over the 15
    pairs of 6 models of one recipe: fused members (seeds 0-5) and models trained one at a time
    (seeds 100-105) agree equally within noise (3 standard errors of the difference of the two
    means, plus 0.02). Shared minibatches would make the fused members more alike."""
    from holdout.training.evaluation import predict

    x, y = synthetic(640, noise=120.0)
    xt, yt = synthetic(1000, noise=120.0, seed=7)
    cfg = TrainConfig(epochs=6, batch_size=32, base_lr=0.05)

    def settings(name, seed):
        return RunSettings(tmp_path / name, tmp_path / f"{name}_state", seed=seed, num_checkpoints=1)

    fused = train_group([Member(NET, cfg, settings(f"f{i}", i)) for i in range(6)], x, y)
    alone = [train(NET, cfg, x, y, settings(f"a{i}", 100 + i)) for i in range(6)]

    def pairwise(results):
        preds = [predict(r.model, xt, 500)[0] for r in results]
        return np.array([np.mean(preds[i] == preds[j]) for i in range(6) for j in range(i + 1, 6)])

    f, a = pairwise(fused), pairwise(alone)
    accuracy = np.mean(predict(fused[0].model, xt, 500)[0] == yt)
    assert 0.3 < accuracy < 0.98, accuracy  # neither chance nor trivially perfect: agreement is informative
    se = np.sqrt(f.var(ddof=1) / len(f) + a.var(ddof=1) / len(a))
    assert abs(f.mean() - a.mean()) <= 3 * se + 0.02, (f.mean(), a.mean(), se)
