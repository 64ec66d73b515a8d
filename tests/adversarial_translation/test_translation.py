"""Translation AEGs and their exact densities (Werpachowski et al. 2019, Sec. 5.1,
Appendix B, eqs. 8 and 9) on hand-built classifiers whose errors sit at known
window offsets, so that g and n(x) are known by hand.

Geometry of most tests: a 10 x 10 canvas, a 4 x 4 window at (3, 3), eps = 1 in
the max-norm: V = the 8 neighbours, and the canvas holds exactly 3 eps = 3 pixels
around the window. Offsets below are relative to the original window.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from holdout.adversarial.translation import (
    ATTACKS,
    CanvasError,
    centre_origin,
    check_canvas,
    concatenate_results,
    largest_eps,
    translation_attacks,
    translation_set,
)

CANVAS = (10, 10)
WINDOW = (4, 4)
ORIGIN = (3, 3)


def _setup(hand, errors, n=1):
    """A table with errors {offset: excess} for every image (label 0)."""
    table = hand.correct_table(n, CANVAS)
    for k in range(n):
        for (dr, dc), excess in errors.items():
            hand.set_error(table, k, (ORIGIN[0] + dr, ORIGIN[1] + dc), excess)
    return hand.position_canvases(n, CANVAS), hand.PositionClassifier(table)


def _run(hand, errors, n=1, attacks=ATTACKS, **kw):
    canv, model = _setup(hand, errors, n)
    res = translation_attacks(model, canv, np.zeros(n, int), window=WINDOW, eps=kw.pop("eps", 1), attacks=attacks, **kw)
    return res, model


# ---------------------------------------------------------------------------
# V_eps and the canvas
# ---------------------------------------------------------------------------
def test_translation_set_sizes_norms_and_row_major_order():
    v = translation_set(1)
    assert v.norm == "max" and len(v) == 8
    assert [tuple(o) for o in v.offsets] == [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
    assert len(translation_set(5)) == 120  # the paper's eps = 5: an 11 x 11 square minus 0
    assert len(translation_set(1, "l2")) == 4
    assert len(translation_set(1.5, "l2")) == 8
    assert len(translation_set(2, "l1")) == 12
    assert translation_set(2.9).radius == 2 and len(translation_set(2.9)) == 24
    off = translation_set(3, "l2").offsets
    assert sorted(map(tuple, off)) == list(map(tuple, off))  # row-major
    assert all((off == -o).all(axis=1).any() for o in off)  # symmetric
    with pytest.raises(ValueError, match="eps must be >= 1"):
        translation_set(0.5)
    with pytest.raises(ValueError, match="norm must be"):
        translation_set(1, "l3")


def test_canvas_check_gives_the_largest_eps():
    check_canvas(CANVAS, WINDOW, ORIGIN, 1)
    with pytest.raises(CanvasError, match="needs 6 .* largest eps this canvas allows is 1"):
        check_canvas(CANVAS, WINDOW, ORIGIN, 2)
    with pytest.raises(CanvasError, match="allows no eps >= 1"):
        check_canvas((9, 10), WINDOW, (3, 3), 1)
    # ImageNet (Sec. 5.2): shorter side 256, 224 windows: 16 pixels, eps up to 16 // 3 = 5
    origin = centre_origin((256, 341), (224, 224))
    assert origin == (16, 58)
    check_canvas((256, 341), (224, 224), origin, 5)
    with pytest.raises(CanvasError, match="largest eps this canvas allows is 5"):
        check_canvas((256, 341), (224, 224), origin, 6)
    assert largest_eps(16) == 5


def test_attacks_refuse_a_small_canvas(hand):
    canv, model = _setup(hand, {})
    with pytest.raises(CanvasError, match="canvas 0: a 10x10 canvas .* largest eps this canvas allows is 1"):
        translation_attacks(model, canv, [0], window=WINDOW, eps=2)
    assert model.calls == 0


# ---------------------------------------------------------------------------
# the attacks' choices
# ---------------------------------------------------------------------------
def test_strongest_and_nearest_choices(hand):
    # errors at (-1,-1) with excess 3 and (0, 1) with excess 1
    res, _ = _run(hand, {(-1, -1): 3.0, (0, 1): 1.0})
    assert res.losses[0] == 0
    assert tuple(res.outcomes["strongest"].offsets[0]) == (-1, -1)  # largest excess logit
    assert tuple(res.outcomes["nearest"].offsets[0]) == (0, 1)  # smallest ||v||_2
    assert res.outcomes["strongest"].adv_losses[0] == 1
    assert res.outcomes["nearest"].adv_losses[0] == 1


def test_ties_go_to_the_first_translation_in_row_major_order(hand):
    # equal excess at (0, 1) and (1, -1): row-major (top to bottom first) picks (0, 1);
    # column-major would pick (1, -1)
    res, _ = _run(hand, {(0, 1): 1.0, (1, -1): 1.0})
    assert tuple(res.outcomes["strongest"].offsets[0]) == (0, 1)
    # nearest: (-1, 0), (0, -1), (1, 0) all at distance 1 -> (-1, 0); (-1, -1) is farther
    res, _ = _run(hand, {(1, 0): 1.0, (0, -1): 1.0, (-1, 0): 1.0, (-1, -1): 5.0})
    assert tuple(res.outcomes["nearest"].offsets[0]) == (-1, 0)
    assert tuple(res.outcomes["strongest"].offsets[0]) == (-1, -1)
    # same row: left before right
    res, _ = _run(hand, {(1, 1): 1.0, (1, -1): 1.0})
    assert tuple(res.outcomes["strongest"].offsets[0]) == (1, -1)
    assert tuple(res.outcomes["nearest"].offsets[0]) == (1, -1)


def test_no_successful_translation_leaves_the_image_in_place(hand):
    res, _ = _run(hand, {})
    for a in ("strongest", "nearest"):
        assert tuple(res.outcomes[a].offsets[0]) == (0, 0)
        assert res.outcomes[a].adv_losses[0] == 0
        assert np.isnan(res.outcomes[a].densities[0])


def test_misclassified_images_stay_in_place_g2(hand):
    res, _ = _run(hand, {(0, 0): 1.0, (0, 1): 4.0, (1, 1): 4.0}, n=20)
    assert np.all(res.losses == 1)
    for a in ATTACKS:
        assert np.all(res.outcomes[a].offsets == 0)
        assert np.all(res.outcomes[a].adv_losses == 1)


@pytest.mark.slow  # over a second of the fast loop (the whole suite runs it)
def test_random_attacks_are_uniform_seeded_and_chunk_invariant(hand):
    n = 2700
    res, _ = _run(hand, {}, n=n, attacks=("random", "random2"), seed=3)
    v = translation_set(1)
    for a, size in (("random", 8), ("random2", 9)):
        off = res.outcomes[a].offsets
        counts = [(off == o).all(axis=1).sum() for o in v.offsets]
        stay = (off == 0).all(axis=1).sum()
        if a == "random":
            assert stay == 0  # uniform on G(x) minus x
        else:
            counts.append(stay)  # uniform on G(x)
        expected = n / size
        chi2 = sum((c - expected) ** 2 / expected for c in counts)
        assert chi2 < 26.1  # chi-square, 8 dof, p = 0.001
    again, _ = _run(hand, {}, n=n, attacks=("random", "random2"), seed=3)
    other, _ = _run(hand, {}, n=n, attacks=("random", "random2"), seed=4)
    assert np.array_equal(again.outcomes["random"].offsets, res.outcomes["random"].offsets)
    assert not np.array_equal(other.outcomes["random"].offsets, res.outcomes["random"].offsets)
    # chunks with global indices reproduce the single run
    canv, model = _setup(hand, {}, n=10)
    whole = translation_attacks(model, canv, np.zeros(10, int), window=WINDOW, eps=1, seed=3)
    parts = concatenate_results(
        [
            translation_attacks(model, canv[:4], np.zeros(4, int), window=WINDOW, eps=1, seed=3, indices=np.arange(4)),
            translation_attacks(
                model, canv[4:], np.zeros(6, int), window=WINDOW, eps=1, seed=3, indices=np.arange(4, 10)
            ),
        ]
    )
    for a in ATTACKS:
        assert np.array_equal(whole.outcomes[a].offsets, parts.outcomes[a].offsets)


# ---------------------------------------------------------------------------
# densities, eq. (8) (deterministic) and eq. (9) (random)
# ---------------------------------------------------------------------------
def test_density_of_a_successful_adversarial_point(hand):
    # the only error at (1, 1) (excess 1) and a stronger one at (3, 3), 3 eps away.
    # x' = (1, 1) for both deterministic attacks. Its 8 neighbours are correct;
    # strongest: (2, 2) sees (3, 3) (excess 2) and goes there, the 7 others map
    # onto x' -> n = 7, h = 1/8. nearest: (2, 2) sees (1, 1) and (3, 3) both at
    # ||v||^2 = 2, the tie goes to (-1, -1) = (1, 1) -> n = 8, h = 1/9.
    res, _ = _run(hand, {(1, 1): 1.0, (3, 3): 2.0})
    s, nn = res.outcomes["strongest"], res.outcomes["nearest"]
    assert tuple(s.offsets[0]) == (1, 1) and tuple(nn.offsets[0]) == (1, 1)
    assert s.n_neighbours[0] == 7 and s.densities[0] == pytest.approx(1 / 8, abs=0)
    assert nn.n_neighbours[0] == 8 and nn.densities[0] == pytest.approx(1 / 9, abs=0)
    # h_g <= 1/2 at every successful point of a deterministic AEG (Sec. 5.1)
    assert s.densities[0] <= 0.5 and nn.densities[0] <= 0.5


def test_density_of_a_misclassified_original(hand):
    # errors at (0, 0) (the original, excess 1) and (0, 1) (excess 2)
    # strongest: neighbours that reach (0, 0) but not (0, 1): (-1,-1), (0,-1), (1,-1) -> n = 3
    # nearest: also (-1, 0) and (1, 0), closer to (0, 0) than to (0, 1) -> n = 5
    # random: 7 correct neighbours, each 1/8 -> n = 7/8; random2: 7/9
    res, _ = _run(hand, {(0, 0): 1.0, (0, 1): 2.0})
    o = res.outcomes
    assert res.losses[0] == 1
    assert o["strongest"].n_neighbours[0] == 3 and o["strongest"].densities[0] == 1 / 4
    assert o["nearest"].n_neighbours[0] == 5 and o["nearest"].densities[0] == 1 / 6
    assert o["random"].n_neighbours[0] == pytest.approx(7 / 8, abs=1e-15)
    assert o["random"].densities[0] == pytest.approx(8 / 15, abs=1e-15)
    assert o["random2"].n_neighbours[0] == pytest.approx(7 / 9, abs=1e-15)
    assert o["random2"].densities[0] == pytest.approx(9 / 16, abs=1e-15)


def test_density_counts_a_neighbour_won_by_row_major_tie(hand):
    # errors at (0, 0) and (0, 2) with equal excess: (-1, 1), (0, 1), (1, 1) see both
    # and the row-major tie-break sends them to (0, 0): n = 8 (5 with the opposite rule)
    res, _ = _run(hand, {(0, 0): 1.0, (0, 2): 1.0}, attacks=("strongest", "nearest"))
    assert res.outcomes["strongest"].n_neighbours[0] == 8
    assert res.outcomes["nearest"].n_neighbours[0] == 8
    res, _ = _run(hand, {(0, 0): 1.0, (0, 2): 1.5}, attacks=("strongest",))
    assert res.outcomes["strongest"].n_neighbours[0] == 5


def test_random_densities_at_successful_points(hand):
    # the only error at (1, 1): a random draw landing there is misclassified; its 8
    # neighbours are correct, so n = 8 * 1/8 = 1 (h = 1/2) for random and
    # 8/9 (h = 9/17) for random2; every other landing is correct (density unused)
    n = 300
    res, _ = _run(hand, {(1, 1): 1.0}, n=n, attacks=("random", "random2"))
    for a, h in (("random", 1 / 2), ("random2", 9 / 17)):
        o = res.outcomes[a]
        hit = (o.offsets == 1).all(axis=1)
        assert 0 < hit.sum() < n
        assert np.array_equal(o.adv_losses == 1, hit)
        np.testing.assert_allclose(o.densities[hit], h, rtol=0, atol=1e-15)
        assert np.isnan(o.densities[~hit]).all()


# ---------------------------------------------------------------------------
# a literal reference: eq. (8) / (9) with one model call per window (memoised)
# ---------------------------------------------------------------------------
def _reference(table, labels, origin, V, offsets_random):
    """Per image: losses, deterministic targets, n(x') for every attack, by definition."""
    tab = table.numpy()

    def mis(k, p):
        row = tab[k, origin[0] + p[0], origin[1] + p[1]]
        return int(np.argmax(row)) != labels[k]

    def exc(k, p):
        row = tab[k, origin[0] + p[0], origin[1] + p[1]]
        return float(row.max() - row[labels[k]])

    def g(k, p, attack):
        if mis(k, p):
            return p
        best, best_key = None, None
        for v in V.offsets:  # row-major
            q = (p[0] + v[0], p[1] + v[1])
            if not mis(k, q):
                continue
            key = -exc(k, q) if attack == "strongest" else float(v @ v)
            if best is None or key < best_key:  # strict: the first wins ties
                best, best_key = q, key
        return p if best is None else best

    out = []
    for k in range(tab.shape[0]):
        rec = {"loss": float(mis(k, (0, 0)))}
        for a in ATTACKS:
            if a in ("strongest", "nearest"):
                t = g(k, (0, 0), a)
            else:
                t = (0, 0) if mis(k, (0, 0)) else tuple(offsets_random[a][k])
            rec[a, "target"] = t
            rec[a, "adv"] = float(mis(k, t))
            if not mis(k, t):
                continue
            total = 0.0
            for v in V.offsets:
                src = (t[0] - v[0], t[1] - v[1])  # x'' = tau_{-v}(x')
                if a in ("strongest", "nearest"):
                    total += float(g(k, src, a) == t)
                elif not mis(k, src):
                    total += 1 / len(V) if a == "random" else 1 / (len(V) + 1)
            rec[a, "n"] = total
        out.append(rec)
    return out


@pytest.mark.parametrize("eps,norm", [(1, "max"), (2, "max"), (2, "l2"), (1.5, "l1")])
def test_matches_the_literal_definition_on_random_classifiers(hand, eps, norm):
    rng = np.random.default_rng(7)
    n, size, classes = 12, (20, 20), 4
    window = (6, 6)
    table = torch.as_tensor(rng.normal(size=(n, *size, classes)), dtype=torch.float32)
    labels = rng.integers(classes, size=n)
    # make most windows correct so that attacks succeed only sometimes
    for k in range(n):
        boost = rng.random(size) < 0.8
        table[k, ..., labels[k]] += torch.as_tensor(boost * 3.0, dtype=torch.float32)
    # integer-valued copies make ties likely
    table[: n // 2] = torch.round(table[: n // 2])
    origin = centre_origin(size, window)
    model = hand.PositionClassifier(table)
    canv = hand.position_canvases(n, size)
    res = translation_attacks(model, canv, labels, window=window, eps=eps, norm=norm, seed=11, batch_size=37)
    V = translation_set(eps, norm)
    ref = _reference(table, labels, origin, V, {a: res.outcomes[a].offsets for a in ("random", "random2")})
    assert any(r["strongest", "adv"] and not r["loss"] for r in ref)  # some successes
    for k, r in enumerate(ref):
        assert res.losses[k] == r["loss"]
        for a in ATTACKS:
            o = res.outcomes[a]
            assert tuple(o.offsets[k]) == tuple(r[a, "target"]), (k, a)
            assert o.adv_losses[k] == r[a, "adv"]
            if r[a, "adv"]:
                assert o.n_neighbours[k] == pytest.approx(r[a, "n"], abs=1e-12), (k, a)
                assert o.densities[k] == pytest.approx(1 / (1 + r[a, "n"]), abs=1e-12)
            else:
                assert np.isnan(o.densities[k])
    # each needed window evaluated once, never beyond 3 eps
    assert len(model.seen) == len(set(model.seen)) == res.forward_passes.sum()
    reach = 3 * math.floor(eps)
    for _k, top, left in model.seen:
        assert abs(top - origin[0]) <= reach and abs(left - origin[1]) <= reach


# ---------------------------------------------------------------------------
# cost: each needed window once, in shared batches
# ---------------------------------------------------------------------------
def test_each_needed_window_is_evaluated_once(hand):
    # nothing misclassified: only the original and its 8 translations (|V| + 1 = 9)
    res, model = _run(hand, {}, n=5)
    assert np.all(res.forward_passes == 9)
    assert sorted(model.seen) == sorted(
        (k, ORIGIN[0] + dr, ORIGIN[1] + dc) for k in range(5) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
    )
    assert model.calls == 1  # 45 windows of 5 images in one batch
    # one successful point at (1, 1), strongest only: x + V (9), x' + V (5 new), and
    # the neighbours' translations: the 5 x 5 square from (-1, -1) to (3, 3) = 25
    res, model = _run(hand, {(1, 1): 1.0}, n=3, attacks=("strongest",), batch_size=4)
    assert np.all(res.forward_passes == 25)
    assert sorted(model.seen) == sorted(
        (k, ORIGIN[0] + dr, ORIGIN[1] + dc) for k in range(3) for dr in range(-1, 4) for dc in range(-1, 4)
    )
    assert len(model.seen) == len(set(model.seen)) == 75
    assert max(model.batch_sizes) == 4
    # all four attacks share the windows: the same 25 per image
    res, model = _run(hand, {(1, 1): 1.0}, n=3, batch_size=1000)
    assert len(model.seen) == len(set(model.seen)) == res.forward_passes.sum() <= 75
    assert model.calls <= 3  # stages A, B, C, each one batch across images
    # misclassified original, no other error: the 5 x 5 square around it
    res, model = _run(hand, {(0, 0): 1.0}, n=2, attacks=("strongest", "nearest"))
    assert np.all(res.forward_passes == 25)


def test_real_network_on_real_crops():
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(8, 5),
    )
    canv = torch.randn(6, 3, 23, 25)
    labels = np.arange(6) % 5
    net.train()
    net[0].eval()  # mixed modes: each is restored as it was
    res = translation_attacks(net, canv, labels, window=(11, 11), eps=2, batch_size=50)
    assert net.training and not net[0].training and net[4].training
    net.eval()
    top, left = centre_origin((23, 25), (11, 11))
    with torch.no_grad():
        logits = net(canv[:, :, top : top + 11, left : left + 11])
        np.testing.assert_array_equal(res.losses, (logits.argmax(1).numpy() != labels).astype(float))
        for k in range(6):
            dr, dc = res.outcomes["strongest"].offsets[k]
            crop = canv[k : k + 1, :, top + dr : top + dr + 11, left + dc : left + dc + 11]
            assert res.outcomes["strongest"].adv_losses[k] == float(net(crop).argmax(1).item() != labels[k])


def test_feeds_the_statistics(hand):
    res, _ = _run(hand, {(0, 0): 1.0, (0, 1): 2.0})
    t = res.t_statistic("strongest")
    assert t.shape == (1,) and t[0] == pytest.approx(1 / 4 - 1)


def test_bad_inputs_are_refused_before_any_model_call(hand):
    canv, model = _setup(hand, {}, n=2)
    with pytest.raises(ValueError, match="attacks must be distinct names"):
        translation_attacks(model, canv, [0, 0], window=WINDOW, eps=1, attacks=("strongest", "fgsm"))
    with pytest.raises(ValueError, match="1 labels for 2 canvases"):
        translation_attacks(model, canv, [0], window=WINDOW, eps=1)
    with pytest.raises(ValueError, match="one entry per canvas"):
        translation_attacks(model, canv, [0, 0], window=WINDOW, eps=1, indices=[0])
    assert model.calls == 0
