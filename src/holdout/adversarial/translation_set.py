"""What the translation attacks of Werpachowski et al. (2019) take and return: the set V_eps of
translations (Sec. 5.1), the canvas geometry they need, and the result types (Appendix B).

The attack itself is
[`holdout.adversarial.translation.translation_attacks`][holdout.adversarial.translation.translation_attacks].
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

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
    "translation_set",
]

#: the four AEGs of Appendix B, in the paper's order
ATTACKS: tuple[str, ...] = ("strongest", "nearest", "random", "random2")
#: the deterministic ones (density by eq. 8; they need the 3 eps neighbourhood)
DETERMINISTIC_ATTACKS: tuple[str, ...] = ("strongest", "nearest")
_NORMS = {"max": "max", "inf": "max", "linf": "max", "l2": "l2", "2": "l2", "l1": "l1", "1": "l1"}


class CanvasError(ValueError):
    """A canvas is too small for the translations the attacks and densities need."""


# ---------------------------------------------------------------------------
# the translation set V_eps
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TranslationSet:
    """V_eps = {v in Z^2 : v != 0, ||v|| <= eps} (Sec. 5.1), in row-major order.

    ``offsets[k] = (v_row, v_col)``, sorted by ``v_row`` then ``v_col`` (top to
    bottom, left to right: the tie-breaking order of Appendix B). ``radius`` is the
    largest coordinate, ``floor(eps)`` for every norm.
    """

    eps: float
    norm: str
    offsets: np.ndarray
    radius: int

    def __len__(self) -> int:
        return int(self.offsets.shape[0])

    @property
    def squared_l2(self) -> np.ndarray:
        """``||v||_2^2`` per offset (integers: exact ties for ``nearest``)."""
        return (self.offsets**2).sum(axis=1)


def translation_set(eps: float, norm: str = "max") -> TranslationSet:
    """Build V_eps for ``norm`` in {"max" (default; the paper's squares), "l2", "l1"}."""
    key = _NORMS.get(str(norm).lower())
    if key is None:
        raise ValueError(f"norm must be one of 'max', 'l2', 'l1' (got {norm!r})")
    eps = float(eps)
    if not math.isfinite(eps) or eps < 1.0:
        raise ValueError(f"eps must be >= 1 pixel (V_eps is empty below 1), got {eps!r}")
    r = int(math.floor(eps))
    rows, cols = np.meshgrid(np.arange(-r, r + 1), np.arange(-r, r + 1), indexing="ij")
    grid = np.stack([rows.ravel(), cols.ravel()], axis=1).astype(np.int64)  # row-major
    if key == "max":
        keep = np.abs(grid).max(axis=1) <= eps
    elif key == "l2":
        keep = (grid**2).sum(axis=1) <= eps * eps
    else:
        keep = np.abs(grid).sum(axis=1) <= eps
    keep &= np.any(grid != 0, axis=1)
    offsets = grid[keep]
    offsets.setflags(write=False)
    return TranslationSet(eps=eps, norm=key, offsets=offsets, radius=r)


# ---------------------------------------------------------------------------
# canvas / window geometry
# ---------------------------------------------------------------------------
def required_margin(eps: float) -> int:
    """Pixels needed around the window on every side: ``3 floor(eps)`` (App. B.1, Fig. 9)."""
    return 3 * int(math.floor(float(eps)))


def largest_eps(margin: int) -> int:
    """The largest (integer) eps whose attacks and densities fit in ``margin`` pixels."""
    return max(int(margin), 0) // 3


def centre_origin(canvas_hw: tuple[int, int], window_hw: tuple[int, int]) -> tuple[int, int]:
    """Top-left corner of the central window, rounded like ``torchvision``'s CenterCrop."""
    (H, W), (h, w) = canvas_hw, window_hw
    return int(round((H - h) / 2.0)), int(round((W - w) / 2.0))


def _margin(canvas_hw, window_hw, origin) -> int:
    (H, W), (h, w), (top, left) = canvas_hw, window_hw, origin
    return int(min(top, left, H - h - top, W - w - left))


def check_canvas(
    canvas_hw: tuple[int, int],
    window_hw: tuple[int, int],
    origin: tuple[int, int],
    eps: float,
    *,
    name: str = "canvas",
) -> None:
    """Refuse a canvas that cannot hold every window within ``3 floor(eps)`` of ``origin``.

    The message gives the largest eps that canvas allows.
    """
    margin = _margin(canvas_hw, window_hw, origin)
    need = required_margin(eps)
    if margin < need:
        (H, W), (h, w), (top, left) = canvas_hw, window_hw, origin
        best = largest_eps(margin)
        allows = (
            f"the largest eps this canvas allows is {best}"
            if best >= 1
            else "this canvas allows no eps >= 1 (enlarge the canvas or shrink the window)"
        )
        raise CanvasError(
            f"{name}: a {H}x{W} canvas with a {h}x{w} window at (top={top}, left={left}) "
            f"leaves {max(margin, 0)} pixel(s) around the window, but eps={eps:g} needs "
            f"{need} (3 floor(eps): the attack, its density and the neighbours' attacks "
            f"reach 3 eps from the window, Werpachowski et al. Appendix B.1, Figure 9); {allows}"
        )


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AttackOutcome:
    """One AEG on m images (arrays of length m; the inputs of ``stats.t_statistic``).

    - ``offsets[i]``: the translation v with g(x_i) = tau_v(x_i) ((0, 0): unchanged);
    - ``adv_losses[i]``: L(f, g(x_i)) (0 or 1);
    - ``n_neighbours[i]``: n(g(x_i)) of eqs. (8)/(9), NaN where not needed;
    - ``densities[i]``: h_g(g(x_i)) = 1 / (1 + n), NaN where ``adv_losses[i] == 0``.
    """

    attack: str
    offsets: np.ndarray
    adv_losses: np.ndarray
    n_neighbours: np.ndarray
    densities: np.ndarray


@dataclass(frozen=True)
class TranslationAttackResult:
    """Translation attacks on m images (Werpachowski et al. Sec. 5.1, Appendix B).

    ``losses[i]`` = L(f, x_i); ``outcomes[attack]`` per AEG; ``forward_passes[i]``:
    windows of image i evaluated by the model (each exactly once); ``indices``: the
    images' global indices (they seed the random attacks).
    """

    labels: np.ndarray
    losses: np.ndarray
    outcomes: Mapping[str, AttackOutcome]
    forward_passes: np.ndarray
    indices: np.ndarray
    translations: TranslationSet
    seed: int

    @property
    def m(self) -> int:
        return int(self.losses.shape[0])

    def t_statistic(self, attack: str) -> np.ndarray:
        """T_i of eq. (5) for ``attack`` (via ``holdout.adversarial.stats``)."""
        from holdout.adversarial.stats import t_statistic

        out = self.outcomes[attack]
        return t_statistic(self.losses, out.adv_losses, out.densities)


def concatenate_results(results: Sequence[TranslationAttackResult]) -> TranslationAttackResult:
    """Join results computed on consecutive chunks of a data set."""
    if not results:
        raise ValueError("concatenate_results needs at least one result")
    first = results[0]
    for r in results[1:]:
        if r.translations.eps != first.translations.eps or r.translations.norm != first.translations.norm:
            raise ValueError("cannot concatenate results computed with different V_eps")
        if r.seed != first.seed or tuple(r.outcomes) != tuple(first.outcomes):
            raise ValueError("cannot concatenate results with different seeds or attacks")
    cat = np.concatenate
    outcomes = {
        a: AttackOutcome(
            attack=a,
            offsets=cat([r.outcomes[a].offsets for r in results]),
            adv_losses=cat([r.outcomes[a].adv_losses for r in results]),
            n_neighbours=cat([r.outcomes[a].n_neighbours for r in results]),
            densities=cat([r.outcomes[a].densities for r in results]),
        )
        for a in first.outcomes
    }
    return TranslationAttackResult(
        labels=cat([r.labels for r in results]),
        losses=cat([r.losses for r in results]),
        outcomes=outcomes,
        forward_passes=cat([r.forward_passes for r in results]),
        indices=cat([r.indices for r in results]),
        translations=first.translations,
        seed=first.seed,
    )
