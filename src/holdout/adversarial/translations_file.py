"""The translations file: K models' predictions on translated test images, and the
translational AEGs of Werpachowski et al. (2019, Sec. 5.1, Appendix B) computed from it
without the models.

The attacks and their exact densities (eqs. 8, 9) only need, per image and window offset u,
whether the model misclassifies the translated image and (for ``strongest``) its excess
logit ``max_i l_i - l_y``. A file holding the predicted class of every model on every
needed translation of every test image therefore replaces the model: this module reads
and checks such a file and runs the same attack code
([`holdout.adversarial.translation`][holdout.adversarial.translation],
stages A-C and the densities) on a lookup table instead of a network. Pure numpy; only
[`make_translations_file`][holdout.adversarial.translations_file.make_translations_file] imports torch (inside the
function).

Format (``.npz``, see ``docs`` for the user-facing description)
-------------------------------------------------------------
- ``predictions``: int, K x n x P; class predicted by model k on image i translated by
  ``vectors[p]``; -1 = not evaluated (allowed where no attack needs it).
- ``vectors``: int, P x 2, distinct offsets ``(v_row, v_col)`` (down, right) in pixels;
  must contain ``(0, 0)`` (the original image).
- ``labels``: int, n (0-based classes).
- ``models``: str, K model names.
- ``eps`` (float) and ``norm`` (``max``, ``l2`` or ``l1``): the translation set V_eps.
- optional ``excess_logits``: float, K x n x P, ``max_i l_i - l_y`` (needed by ``strongest``).
- optional ``indices``: int, n, the images' indices in their data set (seed the random AEGs).

Coverage: the random AEGs need every offset of ``{0} u V u (V + V)``, the deterministic ones
(``nearest``, ``strongest``) every offset of ``V + V + V`` (within 3 eps, Appendix B.1).
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from holdout.adversarial.translation import (
    ATTACKS,
    DETERMINISTIC_ATTACKS,
    TranslationAttackResult,
    TranslationSet,
    _outcome,
    _stage_a,
    _stage_b,
    _stage_c,
    centre_origin,
    check_canvas,
    translation_set,
)

if TYPE_CHECKING:
    import torch

__all__ = [
    "TranslationsData",
    "TranslationsFileError",
    "attacks_from_translations",
    "available_attacks",
    "check_matches",
    "labels_fingerprint",
    "make_translations_file",
    "read_translations",
    "required_offsets",
    "write_translations",
]


class TranslationsFileError(ValueError):
    """A translations file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class TranslationsData:
    """The content of a translations file (see the module docstring)."""

    predictions: np.ndarray
    vectors: np.ndarray
    labels: np.ndarray
    models: tuple[str, ...]
    eps: float
    norm: str
    excess_logits: np.ndarray | None = None
    indices: np.ndarray | None = None
    source: str = "<memory>"

    @property
    def translations(self) -> TranslationSet:
        return translation_set(self.eps, self.norm)

    @property
    def num_models(self) -> int:
        return int(self.predictions.shape[0])

    @property
    def num_examples(self) -> int:
        return int(self.predictions.shape[1])


def required_offsets(V: TranslationSet, steps: int) -> set[tuple[int, int]]:
    """Every offset reachable from (0, 0) in at most ``steps`` translations of V (with (0, 0))."""
    reach = {(0, 0)}
    moves = [tuple(int(x) for x in v) for v in V.offsets]
    for _ in range(steps):
        reach |= {(a + c, b + d) for a, b in reach for c, d in moves}
    return reach


def available_attacks(data: TranslationsData) -> dict[str, str]:
    """Per AEG of `ATTACKS`: "" when the file allows it, else why not (one phrase)."""
    have = {tuple(int(x) for x in v) for v in data.vectors}
    V = data.translations
    out = {}
    for a in ATTACKS:
        steps = 3 if a in DETERMINISTIC_ATTACKS else 2
        missing = required_offsets(V, steps) - have
        if missing:
            out[a] = f"needs {len(missing)} more offsets within {steps} eps (e.g. {sorted(missing)[0]})"
        elif a == "strongest" and data.excess_logits is None:
            out[a] = "needs excess_logits (max logit - logit of the label)"
        else:
            out[a] = ""
    return out


def labels_fingerprint(labels: np.ndarray) -> str:
    """Short fingerprint of a test set's labels (the first 12 hex digits of the sha256 of the int64
    labels in order): two files of the same test set, in the same order, share it."""
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(labels, dtype="<i8").tobytes()).hexdigest()[:12]


def check_matches(data: TranslationsData, model_names: Sequence[str], labels: np.ndarray, audited: str) -> None:
    """Refuse a translations file of other models or another test set than the audited ``audited``:
    the same model names (any order), the same n and the same labels (by
    [`labels_fingerprint`][holdout.adversarial.translations_file.labels_fingerprint]); the error
    names both sides."""
    ours, theirs = set(map(str, model_names)), set(map(str, data.models))
    if ours != theirs:
        missing, extra = sorted(ours - theirs), sorted(theirs - ours)
        raise _fail(
            data.source,
            f"holds models {_few(sorted(theirs))}, the audit of {audited} has {_few(sorted(ours))} "
            f"({len(missing)} missing, {len(extra)} not audited): the translations must be of the same models, by name",
        )
    labels = np.asarray(labels)
    if data.num_examples != labels.shape[0]:
        raise _fail(
            data.source,
            f"holds {data.num_examples} test images, the audit of {audited} has n = {labels.shape[0]}: "
            "the translations must be of the same test set",
        )
    fa, fb = labels_fingerprint(data.labels), labels_fingerprint(labels)
    if fa != fb:
        raise _fail(
            data.source,
            f"its labels (fingerprint {fa}) differ from those of {audited} (fingerprint {fb}) on the same "
            f"n = {labels.shape[0]}: the translations must be of the same test set, in the same order",
        )


def _few(names: Sequence[str]) -> str:
    return ", ".join(names[:4]) + (f" ... ({len(names)})" if len(names) > 4 else "")


def _fail(path: str, problem: str) -> TranslationsFileError:
    return TranslationsFileError(f"{path}: {problem}")


def _int_array(z: Any, key: str, ndim: int, path: str) -> np.ndarray:
    if key not in z:
        raise _fail(path, f"missing array {key!r} (needed: predictions, vectors, labels, models, eps)")
    arr = np.asarray(z[key])
    if arr.ndim != ndim or not np.issubdtype(arr.dtype, np.integer):
        raise _fail(path, f"{key} must be a {ndim}-D integer array, got {arr.dtype} with shape {arr.shape}")
    return arr.astype(np.int64)


def check_translations(data: TranslationsData) -> TranslationsData:
    """Every shape, range and consistency rule of the format;
    [`TranslationsFileError`][holdout.adversarial.translations_file.TranslationsFileError] naming the file."""
    p = path = data.source
    K, n, P = data.predictions.shape
    if K < 1 or n < 1:
        raise _fail(p, f"predictions has shape {data.predictions.shape}: need at least one model and one image")
    if data.vectors.shape != (P, 2):
        raise _fail(path, f"vectors has shape {data.vectors.shape}, expected ({P}, 2): one offset per column")
    if len({tuple(v) for v in data.vectors.tolist()}) != P:
        raise _fail(path, "vectors holds a repeated offset")
    if not np.any(np.all(data.vectors == 0, axis=1)):
        raise _fail(path, "vectors lacks (0, 0): the original image's predictions are needed")
    if data.labels.shape != (n,):
        raise _fail(path, f"labels has shape {data.labels.shape}, expected ({n},) (one per image)")
    if len(data.models) != K or len(set(data.models)) != K:
        raise _fail(path, f"models must hold {K} distinct names (one per row of predictions), got {len(data.models)}")
    if data.labels.min() < 0:
        raise _fail(path, f"labels must be 0-based classes, got minimum {data.labels.min()}")
    if data.predictions.min() < -1:
        raise _fail(path, "predictions must be classes >= 0, or -1 where not evaluated")
    if data.excess_logits is not None:
        e = data.excess_logits
        if e.shape != data.predictions.shape:
            raise _fail(path, f"excess_logits has shape {e.shape}, predictions {data.predictions.shape}")
        ev = data.predictions >= 0
        if not np.all(np.isfinite(e[ev])) or e[ev].min(initial=0.0) < 0:
            raise _fail(path, "excess_logits must be finite and >= 0 wherever a prediction is given")
    if data.indices is not None and data.indices.shape != (n,):
        raise _fail(path, f"indices has shape {data.indices.shape}, expected ({n},)")
    e = int(data.eps) if np.isfinite(data.eps) and data.eps >= 1 else 0
    if 2 * e * e + 2 * e + 1 > P:  # the l1 ball of radius eps, inside every V_eps: not even V is in the file
        raise _fail(
            path,
            f"eps = {data.eps:g} pixels: V_eps has at least {2 * e * e + 2 * e + 1:,} offsets, the file holds {P} "
            "vectors: no attack can run (eps is the translation's size in pixels)",
        )
    try:
        data.translations  # noqa: B018 (validates eps and norm)
    except ValueError as exc:
        raise _fail(path, str(exc)) from None
    return data


def read_translations(path: str | Path) -> TranslationsData:
    """Read and check a translations file
    ([`TranslationsFileError`][holdout.adversarial.translations_file.TranslationsFileError] naming ``path`` on any
    problem)."""
    p = str(path)
    if Path(path).is_dir():
        raise _fail(p, "is a directory; --translations needs a .npz translations file")
    if not Path(path).is_file():
        raise _fail(p, "translations file not found")
    try:
        with np.load(path, allow_pickle=False) as npz:
            z = {k: _array(npz, k, p) for k in npz.files}
    except TranslationsFileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise _fail(p, f"not a readable .npz file ({type(exc).__name__}: {exc}); write it again") from None
    preds = _int_array(z, "predictions", 3, p)
    for key in ("models", "eps"):
        if key not in z:
            raise _fail(p, f"missing array {key!r}")
    exc_l = z.get("excess_logits")
    data = TranslationsData(
        predictions=preds,
        vectors=_int_array(z, "vectors", 2, p),
        labels=_int_array(z, "labels", 1, p),
        models=tuple(str(m) for m in np.atleast_1d(z["models"])),
        eps=_number(z["eps"], "eps", p),
        norm=str(z["norm"]) if "norm" in z else "max",
        excess_logits=None if exc_l is None else _float_array(exc_l, "excess_logits", p),
        indices=_int_array(z, "indices", 1, p) if "indices" in z else None,
        source=p,
    )
    return check_translations(data)


def _array(npz: Any, key: str, path: str) -> np.ndarray:
    """One array of the file, the field named when it cannot be read (a pickled object array)."""
    try:
        return npz[key]
    except ValueError as exc:
        raise _fail(path, f"field {key!r} is unreadable ({exc}): store plain numbers or strings") from None


def _number(arr: np.ndarray, key: str, path: str) -> float:
    if arr.ndim != 0 or arr.dtype.kind not in "iuf":
        raise _fail(path, f"{key} must be one number, got {arr.dtype} of shape {arr.shape}")
    return float(arr)


def _float_array(arr: np.ndarray, key: str, path: str) -> np.ndarray:
    if arr.dtype.kind not in "iuf":
        raise _fail(path, f"{key} must hold numbers, got dtype {arr.dtype}")
    return np.asarray(arr, dtype=np.float64)


def write_translations(path: str | Path, data: TranslationsData) -> Path:
    """Write ``data`` (checked first) as a compressed ``.npz``; predictions as int16 (int32 beyond 32767 classes)."""
    check_translations(data)
    big = data.predictions.max() > np.iinfo(np.int16).max
    arrays: dict[str, Any] = {
        "predictions": data.predictions.astype(np.int32 if big else np.int16),
        "vectors": data.vectors.astype(np.int16),
        "labels": data.labels.astype(np.int64),
        "models": np.array(data.models, dtype=str),
        "eps": np.float64(data.eps),
        "norm": np.array(data.norm),
    }
    if data.excess_logits is not None:
        arrays["excess_logits"] = data.excess_logits.astype(np.float32)
    if data.indices is not None:
        arrays["indices"] = data.indices.astype(np.int64)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    return path


# ---------------------------------------------------------------------------
# the attacks from the table
# ---------------------------------------------------------------------------
class _TableCache:
    """The interface of ``translation._WindowCache`` (``mis``, ``exc``, ``R``, ``ensure``,
    ``lookup``) filled from a file: ``ensure`` evaluates nothing, it checks that every
    requested (image, offset) is in the file and names the first one that is not."""

    def __init__(self, data: TranslationsData, k: int, R: int) -> None:
        n = data.num_examples
        self.R, self.S, self.source, self.model = R, 2 * R + 1, data.source, data.models[k]
        self.mis = np.full((n, self.S, self.S), -1, dtype=np.int8)
        self.exc = np.full((n, self.S, self.S), np.nan, dtype=np.float64)
        inside = np.abs(data.vectors).max(axis=1) <= R
        vec = data.vectors[inside]
        pred = data.predictions[k][:, inside]
        ok = pred >= 0
        mis = np.where(ok, (pred != data.labels[:, None]).astype(np.int8), -1)
        self.mis[:, vec[:, 0] + R, vec[:, 1] + R] = mis
        if data.excess_logits is not None:
            self.exc[:, vec[:, 0] + R, vec[:, 1] + R] = np.where(ok, data.excess_logits[k][:, inside], np.nan)
        self.calls = 0

    def ensure(self, img: np.ndarray, pos: np.ndarray) -> int:
        img = np.asarray(img, dtype=np.int64).ravel()
        pos = np.asarray(pos, dtype=np.int64).reshape(-1, 2)
        if img.size == 0:
            return 0
        bad = (np.abs(pos).max(axis=1) > self.R) | (self.lookup(self.mis, img, np.clip(pos, -self.R, self.R)) < 0)
        if np.any(bad):
            j = int(np.flatnonzero(bad)[0])
            raise TranslationsFileError(
                f"{self.source}: model {self.model} has no prediction for image {int(img[j])} translated by "
                f"{tuple(int(x) for x in pos[j])}, which the attacks need (-1 or offset missing)"
            )
        return 0

    def lookup(self, table: np.ndarray, img: np.ndarray, pos: np.ndarray) -> np.ndarray:
        return table[img, pos[..., 0] + self.R, pos[..., 1] + self.R]


def attacks_from_translations(
    data: TranslationsData, model: int | str, attacks: Sequence[str] | None = None, seed: int = 0
) -> TranslationAttackResult:
    """The translational AEGs of Appendix B with exact densities (eqs. 8, 9) for one model of the
    file, by the same code as
    [`holdout.adversarial.translation.translation_attacks`][holdout.adversarial.translation.translation_attacks] with
    the
    file in place of the network. ``attacks`` None: every AEG the file allows
    ([`available_attacks`][holdout.adversarial.translations_file.available_attacks])."""
    k = data.models.index(model) if isinstance(model, str) else int(model)
    why = available_attacks(data)
    attacks = tuple(a for a in ATTACKS if not why[a]) if attacks is None else tuple(attacks)
    refused = {a: why.get(a, "unknown AEG") for a in attacks if why.get(a, "unknown AEG")}
    if refused or not attacks:
        raise TranslationsFileError(f"{data.source}: cannot run AEG(s) {refused or 'none available'}")
    V = data.translations
    R = 3 * V.radius if any(a in DETERMINISTIC_ATTACKS for a in attacks) else 2 * V.radius
    cache = _TableCache(data, k, R)
    idx = np.arange(data.num_examples, dtype=np.int64) if data.indices is None else data.indices
    _, losses, targets, adv = _stage_a(cache, attacks, V, seed, idx)  # type: ignore[arg-type]
    _stage_b(cache, attacks, V, targets, adv)  # type: ignore[arg-type]
    _stage_c(cache, attacks, V, targets, adv)  # type: ignore[arg-type]
    outcomes = {a: _outcome(cache, a, V, targets[a], adv[a], losses) for a in attacks}  # type: ignore[arg-type]
    return TranslationAttackResult(
        labels=data.labels,
        losses=losses,
        outcomes=outcomes,
        forward_passes=np.zeros(data.num_examples, dtype=np.int64),
        indices=idx,
        translations=V,
        seed=int(seed),
    )


# ---------------------------------------------------------------------------
# the helper that makes the file from torch models
# ---------------------------------------------------------------------------
def make_translations_file(
    models: torch.nn.Module | Sequence[torch.nn.Module],
    canvases: Any,
    labels: Sequence[int] | np.ndarray,
    *,
    window: tuple[int, int],
    eps: float,
    norm: str = "max",
    model_names: Sequence[str] | None = None,
    steps: int = 3,
    indices: Sequence[int] | np.ndarray | None = None,
    batch_size: int = 256,
    device: str | torch.device = "cpu",
    path: str | Path | None = None,
) -> TranslationsData:
    """Evaluate ``models`` on every translation the AEGs need and return (and write to ``path``)
    the translations file: each model on the centre ``window`` of each canvas ``(n, C, H, W)``
    (preprocessed as the model expects), moved by every offset within ``steps`` eps (3: all four
    AEGs; 2: the random ones). Records the predicted class and the excess logit."""
    import torch

    nets = [models] if isinstance(models, torch.nn.Module) else list(models)
    names = tuple(model_names) if model_names is not None else tuple(f"model_{k}" for k in range(len(nets)))
    canv = torch.as_tensor(canvases)
    if canv.ndim != 4:
        raise ValueError(f"canvases must have shape (n, C, H, W), got {tuple(canv.shape)}")
    y = np.asarray(labels, dtype=np.int64)
    h, w = int(window[0]), int(window[1])
    top, left = centre_origin(tuple(canv.shape[2:]), (h, w))
    check_canvas(tuple(canv.shape[2:]), (h, w), (top, left), eps, name="canvases")
    V = translation_set(eps, norm)
    vec = np.array(sorted(required_offsets(V, steps)), dtype=np.int64)
    n, P = canv.shape[0], len(vec)
    preds = np.empty((len(nets), n, P), dtype=np.int64)
    excess = np.empty((len(nets), n, P), dtype=np.float64)
    y_t = torch.as_tensor(y, device=device)
    with torch.no_grad():
        for k, net in enumerate(nets):
            net.eval()
            for p, (dr, dc) in enumerate(vec.tolist()):
                for s in range(0, n, int(batch_size)):
                    crop = canv[s : s + batch_size, :, top + dr : top + dr + h, left + dc : left + dc + w]
                    logits = net(crop.to(device)).float()
                    own = logits.gather(1, y_t[s : s + batch_size, None])[:, 0]
                    preds[k, s : s + batch_size, p] = logits.argmax(dim=1).cpu().numpy()
                    excess[k, s : s + batch_size, p] = (logits.max(dim=1).values - own).double().cpu().numpy()
    data = TranslationsData(
        predictions=preds,
        vectors=vec,
        labels=y,
        models=names,
        eps=float(eps),
        norm=V.norm,
        excess_logits=excess,
        indices=None if indices is None else np.asarray(indices, dtype=np.int64),
        source=str(path) if path is not None else "<memory>",
    )
    check_translations(data)
    if path is not None:
        write_translations(path, data)
    return data
