"""Translational adversarial example generators (AEGs) with exact densities.

Werpachowski, György & Szepesvári (2019), *Detecting overfitting via adversarial
examples*, Sec. 5.1 and Appendix B, for any PyTorch image classifier.

The image model
---------------
An image is a ``h x w`` crop *window* of a larger *canvas* (``C x H x W``), its
top-left corner at ``origin = (top, left)``. Translating the image by
``v = (v_row, v_col) in Z^2`` moves the window by ``v`` pixels (down, right); nothing
is padded or lost as long as the window stays inside the canvas. All positions are
offsets ``u`` of the window from ``origin``; the original image is ``u = (0, 0)``.

The translation set (Sec. 5.1)
------------------------------
``V_eps = {v in Z^2 : v != 0, ||v|| <= eps}``. The paper leaves the norm unwritten;
its Figure 9 draws the translation sets as squares, so the default is the max-norm
(``norm="max"``: ``(2 floor(eps) + 1)^2 - 1`` translations, 120 for eps = 5);
``"l2"`` and ``"l1"`` are available. Every set is symmetric (``-V = V``).

The attacks (Appendix B)
------------------------
For a correctly classified image x with label y the candidates are
``G(x) = {tau_v(x) : v in V_eps} u {x}``; misclassified images stay in place (G2).

* ``strongest``: among the misclassified translations, the one with the largest
  excess logit ``l_exc = max_i l_i - l_y``; x itself when no translation is
  misclassified.
* ``nearest``: the misclassified translation with the smallest ``||v||_2``; x itself
  when none is misclassified.
* ``random``: uniform on ``G(x) \\ {x}`` (whether or not the translation succeeds).
* ``random2``: uniform on ``G(x)``.

Ties (equal excess logits, equal distances) go to the first translation in
row-major order of the candidate windows: top to bottom (smallest ``v_row``), then
left to right (smallest ``v_col``). An image is misclassified when
``argmax_i l_i != y`` with ``argmax`` taking the first maximal logit (torch's rule).

Densities (eqs. 8 and 9)
------------------------
Only needed where the adversarial point x' = g(x) is misclassified (the density
multiplies the zero-one loss in eqs. 2 and 5). With
``n(x') = sum_{v in V_eps} P(g(tau_{-v}(x')) = x')``, ``h_g(x') = 1 / (1 + n(x'))``:

* deterministic attacks (eq. 8): the count of neighbours ``x'' = tau_{-v}(x')``
  that the attack maps onto x'. A misclassified neighbour stays in place and never
  counts; a correctly classified one counts when its own attack picks x', which
  needs the model on the neighbour's own translations;
* ``random`` (eq. 9): every correctly classified neighbour picks x' with
  probability ``1 / |V_eps|``; ``random2``: with probability ``1 / (|V_eps| + 1)``.

So the attack on x needs the model on ``x + V``; the density of x' on ``x' + V``
(within 2 eps of x); for the deterministic attacks also on ``x'' + V`` for the
correctly classified neighbours ``x''`` (within 3 eps of x, Appendix B.1 and
Figure 9). [`check_canvas`][holdout.adversarial.translation.check_canvas] refuses canvases without that margin.

Cost
----
The model is evaluated **once** per (image, window position) that is needed, in
large batches that mix images, and the logits (reduced to the two numbers every
attack needs: misclassified or not, and the excess logit) are reused by all four
attacks and every density. Stages: (A) ``{0} u V`` for every image; (B) ``x' + V``
for the images whose adversarial point (under any requested attack) is
misclassified; (C) ``x'' + V`` for their correctly classified neighbours (the
deterministic attacks only). A correctly classified image without a successful
attack costs ``|V| + 1`` forward passes (121 at eps = 5, max-norm); at most
``(6 floor(eps) + 1)^2`` (961).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from holdout.adversarial.translation_set import (
    ATTACKS,
    DETERMINISTIC_ATTACKS,
    AttackOutcome,
    CanvasError,
    TranslationAttackResult,
    TranslationSet,
    centre_origin,
    check_canvas,
    concatenate_results,
    largest_eps,
    required_margin,
    translation_set,
)

if TYPE_CHECKING:  # torch is imported where the model runs, so that the constants and
    import torch  # result types serve torch-free analysis environments too

__all__ = [
    "ATTACKS",
    "DETERMINISTIC_ATTACKS",
    "AttackOutcome",
    "CanvasError",
    "TranslationAttackResult",
    "TranslationSet",
    "centre_origin",
    "check_canvas",
    "concatenate_results",
    "largest_eps",
    "required_margin",
    "translation_attacks",
    "translation_set",
]

#: independent random streams per random attack (seeded with [seed, stream, index])
_RANDOM_STREAM = {"random": 1, "random2": 2}


# ---------------------------------------------------------------------------
# the logit cache: one model evaluation per (image, window position)
# ---------------------------------------------------------------------------
class _WindowCache:
    """Per image, on a ``(2R+1)^2`` grid of window offsets (R = 3 floor(eps)):
    ``mis`` (-1 not evaluated, 0 correct, 1 misclassified) and ``exc`` (excess logit).
    """

    def __init__(self, model, canvases, labels, origins, window, R, batch_size, device):
        import torch

        self.model = model
        self.canvases = canvases
        self.labels = labels
        self.labels_t = torch.as_tensor(labels, dtype=torch.long, device=device)
        self.origins = origins
        self.h, self.w = window
        self.R = R
        self.S = 2 * R + 1
        self.batch_size = batch_size
        n = len(canvases)
        self.mis = np.full((n, self.S, self.S), -1, dtype=np.int8)
        self.exc = np.full((n, self.S, self.S), np.nan, dtype=np.float64)
        self.calls = 0

    def ensure(self, img: np.ndarray, pos: np.ndarray) -> int:
        """Evaluate every requested (image, offset) not evaluated yet; return how many."""
        img = np.asarray(img, dtype=np.int64).ravel()
        pos = np.asarray(pos, dtype=np.int64).reshape(-1, 2)
        if img.size == 0:
            return 0
        if np.abs(pos).max() > self.R:
            raise RuntimeError("internal error: a window offset beyond 3 eps was requested")
        flat = (img * self.S + pos[:, 0] + self.R) * self.S + pos[:, 1] + self.R
        flat = np.unique(flat)
        flat = flat[self.mis.reshape(-1)[flat] < 0]
        for start in range(0, flat.size, self.batch_size):
            self._evaluate(flat[start : start + self.batch_size])
        return int(flat.size)

    def _evaluate(self, flat: np.ndarray) -> None:
        import torch

        S, R, h, w = self.S, self.R, self.h, self.w
        i, rest = np.divmod(flat, S * S)
        r, c = np.divmod(rest, S)
        crops = []
        for ii, rr, cc in zip(i.tolist(), r.tolist(), c.tolist()):
            top = self.origins[ii, 0] + rr - R
            left = self.origins[ii, 1] + cc - R
            crops.append(self.canvases[ii][:, top : top + h, left : left + w])
        batch = torch.stack(crops)
        logits = self.model(batch)
        self.calls += 1
        if logits.ndim != 2 or logits.shape[0] != batch.shape[0]:
            raise ValueError(
                f"the model must return logits of shape (batch, classes); got {tuple(logits.shape)} "
                f"for a batch of {batch.shape[0]} windows"
            )
        y = self.labels_t[torch.as_tensor(i, device=self.labels_t.device)]
        if int(y.max()) >= logits.shape[1]:
            raise ValueError(f"a label ({int(y.max())}) is out of range for a model with {logits.shape[1]} classes")
        top_val = logits.max(dim=1).values
        pred = logits.argmax(dim=1)  # the first maximal logit on ties
        own = logits.gather(1, y[:, None])[:, 0]
        self.mis[i, r, c] = (pred != y).to(torch.int8).cpu().numpy()
        self.exc[i, r, c] = (top_val - own).double().cpu().numpy()

    def lookup(self, table: np.ndarray, img: np.ndarray, pos: np.ndarray) -> np.ndarray:
        return table[img, pos[..., 0] + self.R, pos[..., 1] + self.R]


def _deterministic_targets(
    cache: _WindowCache, attack: str, V: TranslationSet, img: np.ndarray, pos: np.ndarray
) -> np.ndarray:
    """g(x) for the windows ``pos`` (k, 2) of images ``img`` (k,), vectorised.

    Misclassified windows stay (G2); otherwise the first (row-major) misclassified
    translation with the largest excess logit (``strongest``) or the smallest
    ``||v||_2`` (``nearest``); the window itself when no translation is misclassified.
    """
    own = cache.lookup(cache.mis, img, pos)
    if np.any(own < 0):
        raise RuntimeError("internal error: attack on a window that was not evaluated")
    cand = pos[:, None, :] + V.offsets[None, :, :]  # (k, |V|, 2), row-major per row
    cmis = cache.lookup(cache.mis, img[:, None], cand)
    active = own == 0
    if np.any(cmis[active] < 0):
        raise RuntimeError("internal error: a candidate translation was not evaluated")
    cmis = cmis == 1
    if attack == "strongest":
        key = np.where(cmis, cache.lookup(cache.exc, img[:, None], cand), -np.inf)
        j = np.argmax(key, axis=1)  # first maximum = row-major tie-break
    elif attack == "nearest":
        key = np.where(cmis, V.squared_l2[None, :].astype(np.float64), np.inf)
        j = np.argmin(key, axis=1)
    else:  # pragma: no cover - guarded by the caller
        raise ValueError(attack)
    move = active & cmis.any(axis=1)
    out = pos.copy()
    out[move] = cand[move, j[move]]
    return out


def _random_offsets(attack: str, V: TranslationSet, seed: int, indices: np.ndarray) -> np.ndarray:
    """Draw v for every image: uniform on V (``random``) or on V u {0} (``random2``).

    Each image has its own stream ``SeedSequence([seed, stream, index])``, so the
    draws do not depend on chunking or batch sizes. For ``random2`` the draw
    ``k = |V|`` means "stay".
    """
    n = len(V)
    size = n if attack == "random" else n + 1
    out = np.zeros((indices.size, 2), dtype=np.int64)
    for row, idx in enumerate(indices.tolist()):
        rng = np.random.default_rng([int(seed), _RANDOM_STREAM[attack], int(idx)])
        k = int(rng.integers(size))
        if k < n:
            out[row] = V.offsets[k]
    return out


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
def _as_canvases(canvases) -> list[torch.Tensor]:
    import torch

    if isinstance(canvases, torch.Tensor):
        if canvases.ndim != 4:
            raise ValueError(f"canvases must have shape (n, C, H, W), got {tuple(canvases.shape)}")
        return list(canvases.unbind(0))
    out = list(canvases)
    for k, c in enumerate(out):
        if not isinstance(c, torch.Tensor) or c.ndim != 3:
            raise ValueError(f"canvas {k} must be a (C, H, W) tensor")
    return out


def translation_attacks(
    model: torch.nn.Module,
    canvases: torch.Tensor | Sequence[torch.Tensor],
    labels: Sequence[int] | np.ndarray,
    *,
    window: tuple[int, int],
    eps: float,
    norm: str = "max",
    origins: Sequence[tuple[int, int]] | np.ndarray | None = None,
    attacks: Sequence[str] = ATTACKS,
    seed: int = 0,
    indices: Sequence[int] | np.ndarray | None = None,
    batch_size: int = 256,
    device: str | torch.device | None = None,
    log: logging.Logger | None = None,
) -> TranslationAttackResult:
    """Run the translational AEGs of Appendix B and compute their exact densities.

    Parameters
    ----------
    model : maps a batch ``(B, C, h, w)`` to logits ``(B, K)``. It is switched to
        ``eval()`` for the run (the AEG needs a deterministic f); every submodule's
        mode is restored after.
    canvases : ``(n, C, H, W)`` tensor or a sequence of ``(C, H_i, W_i)`` tensors,
        already preprocessed (e.g. normalised) as the model expects.
    labels : true classes y_i.
    window : ``(h, w)`` of the model's input.
    eps, norm : the translation set V_eps (see [`translation_set`][holdout.adversarial.translation.translation_set]).
    origins : top-left corner of the original window per image (default: central,
        [`centre_origin`][holdout.adversarial.translation.centre_origin]).
    attacks : any of `ATTACKS`.
    seed, indices : the random attacks draw from ``SeedSequence([seed, stream,
        indices[i]])`` (default indices ``0..n-1``; pass global indices when the data
        set is processed in chunks).
    batch_size : windows per forward pass (windows of different images share batches).
    device : where the windows are evaluated; the model must already be there (default:
        the device of its first parameter, else CPU).
    """
    import torch

    with torch.no_grad():
        return _translation_attacks(
            model,
            canvases,
            labels,
            window=window,
            eps=eps,
            norm=norm,
            origins=origins,
            attacks=attacks,
            seed=seed,
            indices=indices,
            batch_size=batch_size,
            device=device,
            log=log,
        )


def _check_inputs(canvases, labels, window, eps, norm, origins, attacks, indices, batch_size):
    """Validated inputs: attacks, V, canvases, labels, window origins, indices, window (h, w)."""
    attacks = tuple(attacks)
    unknown = [a for a in attacks if a not in ATTACKS]
    if unknown or not attacks or len(set(attacks)) != len(attacks):
        raise ValueError(f"attacks must be distinct names from {ATTACKS}, got {attacks}")
    V = translation_set(eps, norm)
    canv = _as_canvases(canvases)
    n = len(canv)
    if n == 0:
        raise ValueError("translation_attacks needs at least one canvas")
    labels = np.asarray(labels, dtype=np.int64).ravel()
    if labels.shape[0] != n:
        raise ValueError(f"{labels.shape[0]} labels for {n} canvases")
    if n and labels.min() < 0:
        raise ValueError("labels must be non-negative class indices")
    h, w = (int(window[0]), int(window[1]))
    if origins is None:
        orig = np.array([centre_origin(tuple(c.shape[1:]), (h, w)) for c in canv], dtype=np.int64)
    else:
        orig = np.asarray(origins, dtype=np.int64).reshape(n, 2)
    idx = np.arange(n, dtype=np.int64) if indices is None else np.asarray(indices, dtype=np.int64)
    if idx.shape != (n,):
        raise ValueError(f"indices must have one entry per canvas ({n}), got shape {idx.shape}")
    for k, c in enumerate(canv):
        check_canvas(tuple(c.shape[1:]), (h, w), tuple(orig[k]), eps, name=f"canvas {int(idx[k])}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    return attacks, V, canv, labels, orig, idx, (h, w)


def _neighbours(points: np.ndarray, sel: np.ndarray, V: TranslationSet) -> tuple[np.ndarray, np.ndarray]:
    """(image, position) of every translation ``points[sel] + v``, v in V (``len(V)`` per image)."""
    return np.repeat(sel, len(V)), (points[sel][:, None, :] + V.offsets[None]).reshape(-1, 2)


def _stage_a(cache: _WindowCache, attacks, V: TranslationSet, seed: int, idx: np.ndarray):
    """Stage A: the original window and its translations, for every image; the loss, the target
    offset of every attack and its adversarial loss. Returns (forward passes, losses, targets, adv)."""
    n = idx.size
    all_img = np.arange(n, dtype=np.int64)
    zero_and_v = np.concatenate([np.zeros((1, 2), np.int64), V.offsets])
    n_a = cache.ensure(np.repeat(all_img, len(V) + 1), np.tile(zero_and_v, (n, 1)))
    zeros = np.zeros((n, 2), np.int64)
    losses = cache.lookup(cache.mis, all_img, zeros).astype(np.float64)
    targets: dict[str, np.ndarray] = {}
    for a in attacks:
        if a in DETERMINISTIC_ATTACKS:
            targets[a] = _deterministic_targets(cache, a, V, all_img, zeros)
        else:
            t = _random_offsets(a, V, seed, idx)
            t[losses == 1] = 0  # G2: misclassified images stay
            targets[a] = t
    adv = {a: cache.lookup(cache.mis, all_img, targets[a]).astype(np.float64) for a in attacks}
    return n_a, losses, targets, adv


def _stage_b(cache: _WindowCache, attacks, V: TranslationSet, targets, adv) -> int:
    """Stage B: the neighbourhood x' + V of every misclassified adversarial point."""
    pairs = [_neighbours(targets[a], np.flatnonzero(adv[a] == 1), V) for a in attacks]
    return cache.ensure(np.concatenate([i for i, _ in pairs]), np.concatenate([p for _, p in pairs]))


def _stage_c(cache: _WindowCache, attacks, V: TranslationSet, targets, adv) -> int:
    """Stage C: translations x'' + V of the correctly classified neighbours x'' (the deterministic
    attacks' density needs g(x''))."""
    need_img, need_pos = [np.zeros(0, np.int64)], [np.zeros((0, 2), np.int64)]
    for a in attacks:
        if a not in DETERMINISTIC_ATTACKS:
            continue
        nb_img, nb_pos = _neighbours(targets[a], np.flatnonzero(adv[a] == 1), V)
        ok = cache.lookup(cache.mis, nb_img, nb_pos) == 0
        need_img.append(np.repeat(nb_img[ok], len(V)))
        need_pos.append((nb_pos[ok][:, None, :] + V.offsets[None]).reshape(-1, 2))
    return cache.ensure(np.concatenate(need_img), np.concatenate(need_pos))


def _outcome(
    cache: _WindowCache, a: str, V: TranslationSet, target: np.ndarray, adv: np.ndarray, losses: np.ndarray
) -> AttackOutcome:
    """The densities of eqs. (8) (deterministic attacks: how many neighbours the attack maps onto
    the adversarial point) and (9) (random attacks: the chance of landing there) of one attack."""
    nV = len(V)
    sel = np.flatnonzero(adv == 1)
    count = np.full(losses.size, np.nan)
    if sel.size:
        nb_img, nb_pos = _neighbours(target, sel, V)
        if a in DETERMINISTIC_ATTACKS:
            g_nb = _deterministic_targets(cache, a, V, nb_img, nb_pos)
            hits = np.all(g_nb == np.repeat(target[sel], nV, axis=0), axis=1)
            count[sel] = hits.reshape(-1, nV).sum(axis=1)
            succ = sel[losses[sel] == 0]
            if np.any(count[succ] < 1):
                raise RuntimeError("internal error: a successful adversarial point is not the image of its source")
        else:
            correct = cache.lookup(cache.mis, nb_img, nb_pos) == 0
            p = 1.0 / nV if a == "random" else 1.0 / (nV + 1)
            count[sel] = correct.reshape(-1, nV).sum(axis=1) * p
    dens = np.where(adv == 1, 1.0 / (1.0 + count), np.nan)
    return AttackOutcome(attack=a, offsets=target, adv_losses=adv, n_neighbours=count, densities=dens)


def _translation_attacks(
    model, canvases, labels, *, window, eps, norm, origins, attacks, seed, indices, batch_size, device, log
) -> TranslationAttackResult:
    import torch

    attacks, V, canv, labels, orig, idx, hw = _check_inputs(
        canvases, labels, window, eps, norm, origins, attacks, indices, batch_size
    )
    n = len(canv)
    if device is None:
        param = next(iter(model.parameters()), None)
        device = param.device if param is not None else torch.device("cpu")
    device = torch.device(device)
    canv = [c.to(device) for c in canv]
    modes = [(mod, mod.training) for mod in model.modules()]  # restored one by one after
    model.eval()
    t0 = time.perf_counter()
    try:
        cache = _WindowCache(model, canv, labels, orig, hw, required_margin(eps), batch_size, device)
        n_a, losses, targets, adv = _stage_a(cache, attacks, V, seed, idx)
        n_b = _stage_b(cache, attacks, V, targets, adv)
        n_c = _stage_c(cache, attacks, V, targets, adv)
        outcomes = {a: _outcome(cache, a, V, targets[a], adv[a], losses) for a in attacks}
        forward = (cache.mis >= 0).reshape(n, -1).sum(axis=1).astype(np.int64)
    finally:
        for mod, mode in modes:
            mod.training = mode
    if log is not None:
        log.info(
            "translation attacks on %d images (eps=%g, %s-norm, |V|=%d): %d forward passes "
            "(stage A %d, B %d, C %d; %.1f per image) in %d batches, %.2f s",
            n,
            V.eps,
            V.norm,
            len(V),
            n_a + n_b + n_c,
            n_a,
            n_b,
            n_c,
            (n_a + n_b + n_c) / max(n, 1),
            cache.calls,
            time.perf_counter() - t0,
        )
    return TranslationAttackResult(
        labels=labels,
        losses=losses,
        outcomes=outcomes,
        forward_passes=forward,
        indices=idx,
        translations=V,
        seed=int(seed),
    )
