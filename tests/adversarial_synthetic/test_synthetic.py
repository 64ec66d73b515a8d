"""The synthetic experiment of Werpachowski et al. (2019), Sec. 4 and Appendix A:
the mixture density, the attack's exact density h_g, and the batched trainer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special
from scipy import stats as sps

from holdout.adversarial import synthetic as syn
from holdout.adversarial.stats import pairwise_test


# ---------------------------------------------------------------------------
# direct (vector-space) reference implementations
# ---------------------------------------------------------------------------
def direct_log_density(spec: syn.Mixture, v: np.ndarray) -> float:
    """ln rho(v) evaluated coordinate by coordinate with scipy (log space)."""
    a = (spec.margin - spec.mean) / spec.std
    rest = sps.norm.logpdf(v[1:], 0.0, spec.std).sum()
    comps = []
    for sign in (1.0, -1.0):
        t = sign * v[0]
        comps.append(math.log(0.5) + sps.truncnorm.logpdf(t, a, np.inf, loc=spec.mean, scale=spec.std) + rest)
    return float(special.logsumexp(comps))


def direct_attack(spec, x, y, w, b, eps):
    """T_i, L, L' and h_g(g(x)) for one model and one point, from full vectors."""
    u = w / np.linalg.norm(w)

    def f(v):
        return 1.0 if v @ w + b > 0 else -1.0

    def fstar(v):
        return 1.0 if v[0] > 0 else -1.0

    loss = float(f(x) != y)
    xp = x - eps * y * u
    g = xp if (loss == 0 and fstar(xp) == y) else x
    adv_loss = float(f(g) != y)
    h = np.nan
    if adv_loss:
        pre = g + eps * fstar(g) * u  # the only point other than g that g can map to g
        ind = f(pre) == fstar(pre) and fstar(pre) == fstar(g)
        lg = direct_log_density(spec, g)
        lp = direct_log_density(spec, pre) if ind else -np.inf
        h = float(np.exp(lg - np.logaddexp(lg, lp)))
    t = (adv_loss * h if adv_loss else 0.0) - loss
    return t, loss, adv_loss, h


def test_log_density_against_scipy():
    spec = syn.Mixture()
    rng = np.random.default_rng(0)
    x, y = syn.sample_mixture(spec, 20, rng)
    assert np.all(np.sign(x[:, 0]) == y) and np.all(np.abs(x[:, 0]) > spec.margin)
    ours = syn.log_density(spec, x)
    ref = np.array([direct_log_density(spec, v) for v in x])
    np.testing.assert_allclose(ours, ref, rtol=1e-12)
    assert np.all(ours < -2000)  # rho itself underflows: only log space works in R^500
    inside = x[0].copy()
    inside[0] = 0.01
    assert syn.log_density(spec, inside[None])[0] == -np.inf


def test_sampler_matches_truncated_normal():
    spec = syn.Mixture(dim=3, std=2.0)
    x, y = syn.sample_mixture(spec, 40_000, np.random.default_rng(1))
    t = y * x[:, 0]
    a = (spec.margin - spec.mean) / spec.std
    assert sps.kstest(t, sps.truncnorm(a, np.inf, loc=spec.mean, scale=spec.std).cdf).pvalue > 1e-3
    assert abs(y.mean()) < 0.02
    assert abs(x[:, 1:].std() - spec.std) < 0.03


@pytest.mark.parametrize("dim,std", [(4, 1.0), (500, math.sqrt(500.0))])
def test_attack_density_against_direct_evaluation(dim, std):
    """h_g(x') = rho(x') / (rho(x') + rho(x)(1 - L(f, x)) 1{f*(x) = f*(x')}) with the exact preimage,
    our per-example-scalar, log-space version vs direct evaluation on the vectors."""
    spec = syn.Mixture(dim=dim, std=std)
    rng = np.random.default_rng(dim)
    x, y = syn.sample_mixture(spec, 60, rng)
    w = rng.standard_normal((4, dim))
    w[:, 0] *= 3.0 * std / math.sqrt(dim)  # let the models use x_1 so all cases occur
    b = rng.normal(0, 0.3 * std, 4)
    n_cases = {"mis_with_preimage": 0, "mis_alone": 0, "successful": 0}
    for eps in (0.05, 0.5, 2.0, 3.0 * std):
        ev = syn.evaluate_attack(spec, x, y, w, b, eps)
        for r in range(w.shape[0]):
            for i in range(len(y)):
                t, loss, adv_loss, h = direct_attack(spec, x[i], y[i], w[r], b[r], eps)
                assert ev.loss[r, i] == loss and ev.adv_loss[r, i] == adv_loss
                assert ev.t[r, i] == pytest.approx(t, rel=1e-9, abs=1e-12)
                if adv_loss:
                    assert ev.density[r, i] == pytest.approx(h, rel=1e-9, abs=1e-300)
                    if ev.successful[r, i]:
                        n_cases["successful"] += 1
                    elif h < 1:
                        n_cases["mis_with_preimage"] += 1
                    else:
                        n_cases["mis_alone"] += 1
    assert all(v > 0 for v in n_cases.values()), n_cases
    # with dim 4 some successful adversarial points have h_g > 1/2: U = 3/2 would not hold
    if dim == 4:
        ev = syn.evaluate_attack(spec, x, y, w, b, 0.5)
        assert np.nanmax(np.where(ev.successful, ev.density, np.nan)) > 0.5


@pytest.mark.slow  # 200,000 test points x 3 eps: > 2 s on the 2-core AVX2 machine
def test_density_bounded_and_unbiased_under_independence():
    """h_g <= 1 on errors, and E[R_g] = R(f) for an independent test set (Sec. 2.2):
    averaged over many fresh test points R_g and R_S agree with the exact risk."""
    spec = syn.Mixture(dim=6, std=1.5)
    rng = np.random.default_rng(5)
    w = np.array([[1.0, 0.8, -0.5, 0.3, 0.0, 0.2]])
    b = np.array([0.1])
    x, y = syn.sample_mixture(spec, 200_000, rng)
    risk = syn.true_risk(spec, w, b)[0]
    for eps in (0.1, 1.0, 3.0):
        ev = syn.evaluate_attack(spec, x, y, w, b, eps)
        d = ev.density[ev.adv_loss]
        assert np.all((d >= 0) & (d <= 1))
        r_s = ev.loss.mean()
        r_g = np.where(ev.adv_loss, np.nan_to_num(ev.density), 0).mean()
        se = math.sqrt(risk * (1 - risk) / y.size)
        assert abs(r_s - risk) < 4 * se
        assert abs(r_g - risk) < 4 * se
        assert pairwise_test(ev.t[0], 2.0).p_value > 0.05  # not rejected


@pytest.mark.slow  # 400,000 Monte Carlo points: > 2 s on the 2-core AVX2 machine
def test_true_risk_against_monte_carlo():
    spec = syn.Mixture(dim=5, std=2.0)
    w = np.array([[0.7, 1.0, 0.0, -0.4, 0.1], [0.0, 1.0, 1.0, 0.0, 0.0]])
    b = np.array([0.3, -0.2])
    x, y = syn.sample_mixture(spec, 400_000, np.random.default_rng(9))
    mc = ((y[None] * (w @ x.T + b[:, None])) <= 0).mean(axis=1)
    np.testing.assert_allclose(syn.true_risk(spec, w, b), mc, atol=4e-3)
    assert syn.true_risk(spec, w[1:], b[1:])[0] == pytest.approx(0.5, abs=1e-12)  # ignores x_1


# ---------------------------------------------------------------------------
# batched trainer vs a plain single-run reference
# ---------------------------------------------------------------------------
def reference_train(x, y, spec: syn.TrainSpec, seed: int):
    """One run, float64 numpy, written out step by step (Appendix A.2 + our RMSProp variant)."""
    rng = np.random.default_rng(seed)
    n, dim = x.shape
    w, b = syn.initial_parameters(spec, dim, rng)
    w = w.copy()
    order = rng.permutation(n)
    opt = spec.optimizer
    ms_w = np.full(dim, opt.accumulator_init)
    ms_b = opt.accumulator_init
    nb = n // spec.batch_size
    for step in range(spec.steps):
        k = step % nb
        if k == 0 and step > 0 and spec.reshuffle_each_epoch:
            order = rng.permutation(n)
        idx = order[k * spec.batch_size : (k + 1) * spec.batch_size]
        xb, yb = x[idx], y[idx]
        z = xb @ w + b
        # d/dz of mean ln(1 + exp(-y z)) = -y sigmoid(-y z) / B
        dz = -yb * special.expit(-yb * z) / spec.batch_size
        gw = xb.T @ dz
        gw[0] += 2 * spec.penalty * w[0]
        gb = dz.sum()
        ms_w = opt.decay * ms_w + (1 - opt.decay) * gw**2
        ms_b = opt.decay * ms_b + (1 - opt.decay) * gb**2
        if opt.epsilon_inside_sqrt:
            w = w - opt.learning_rate * gw / np.sqrt(ms_w + opt.epsilon)
            b = b - opt.learning_rate * gb / np.sqrt(ms_b + opt.epsilon)
        else:
            w = w - opt.learning_rate * gw / (np.sqrt(ms_w) + opt.epsilon)
            b = b - opt.learning_rate * gb / (np.sqrt(ms_b) + opt.epsilon)
    return w, b


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(penalty=50.0, reshuffle_each_epoch=True),
        dict(
            init="zeros",
            optimizer=syn.RMSProp(
                epsilon=1e-8, epsilon_inside_sqrt=False, accumulator_init=0.0, decay=0.99, learning_rate=0.05
            ),
        ),
    ],
)
def test_batched_trainer_matches_single_run_reference(kwargs):
    mix = syn.Mixture(dim=7, std=2.0)
    n_runs, n = 4, 30
    seeds = [11, 12, 13, 14]
    x, y = syn.make_training_sets(mix, "independent", n_runs, n, seeds, np.empty((0, 7)), np.empty(0))
    spec = syn.TrainSpec(steps=60, batch_size=10, dtype="float64", **kwargs)
    got = syn.train_linear_batched(x, y, spec, seeds, threads=1)
    for r in range(n_runs):
        w_ref, b_ref = reference_train(x[r], y[r], spec, seeds[r])
        np.testing.assert_allclose(got.w[r], w_ref, rtol=1e-10, atol=1e-12)
        assert got.b[r] == pytest.approx(b_ref, rel=1e-10, abs=1e-12)
    # a run trained alone gives the same model as inside the batch
    alone = syn.train_linear_batched(x[2:3], y[2:3], spec, seeds[2:3], threads=1)
    np.testing.assert_allclose(alone.w[0], got.w[2], rtol=1e-12, atol=1e-14)
    # float32 (the default) stays close to the float64 reference
    got32 = syn.train_linear_batched(x, y, syn.TrainSpec(steps=60, batch_size=10, **kwargs), seeds, threads=1)
    np.testing.assert_allclose(got32.w, got.w, rtol=1e-2, atol=1e-3)


def test_dependent_training_sets():
    mix = syn.Mixture(dim=3)
    tx, ty = syn.sample_mixture(mix, 10, np.random.default_rng(0))
    x, y = syn.make_training_sets(mix, "dependent", 2, 4, [1, 2], tx, ty, dependent_mode="replace")
    assert x.shape == (2, 5, 3) and np.array_equal(x[0], tx[:5]) and np.array_equal(x[1], tx[:5])
    x, y = syn.make_training_sets(mix, "dependent", 2, 4, [1, 2], tx, ty, dependent_mode="join")
    assert x.shape == (2, 9, 3) and np.array_equal(x[1, :5], tx[:5])
    assert not np.array_equal(x[0, 5:], x[1, 5:])  # own points differ per run
    with pytest.raises(ValueError, match="dependent_mode"):
        syn.make_training_sets(mix, "dependent", 2, 4, [1, 2], tx, ty, dependent_mode="both")


def test_n_model_groups_and_eps_grid():
    t = np.zeros((10, 5))
    t[:, 0] = 0.5
    assert syn.n_model_p_values(t, 2, 2.0).shape == (5,)
    assert syn.n_model_p_values(t, 3, 2.0).shape == (3,)
    with pytest.raises(ValueError, match="only 10 runs"):
        syn.n_model_p_values(t, 11, 2.0)
    cfg = {"eps_grid": {"min": 0.01, "max": 100.0, "num": 17}, "eps_extra": [5.0, 6.0, 10.0]}
    grid = syn.eps_grid(cfg)
    assert grid.size == 19 and grid[0] == pytest.approx(0.01) and grid[-1] == pytest.approx(100.0)
    assert syn.find_eps(grid, 6.0, "x") == 6.0
    with pytest.raises(ValueError, match="adversarial.synthetic.figure8: eps = 7 is not on the eps grid"):
        syn.find_eps(grid, 7.0, "figure8")
