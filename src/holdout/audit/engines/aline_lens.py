"""``holdout audit PREDICTIONS --labels L --new-predictions NEW`` without ``--new-labels``: agreement
on the line.

The new predictions alone (no labels) give each model's new-set accuracy estimated by ALine-S and
ALine-D ([`aline`][holdout.contamination.aline], Baek et al. 2022): ``aline.csv`` with ``model``,
``accuracy_original``, ``aline_s``, ``aline_d`` (fractions) and, when the new labels are known
(``--new-labels``, or inside a ``.npz``), ``accuracy_new`` and the errors. A heuristic: right when
the pairs' agreement and the models' accuracy share their probit line, which the new labels alone
could confirm; the agreement line's R^2 is reported as the precondition. Where no line can be
fitted (fewer than 3 models, a new set of one item, identical models, every model right everywhere,
every pair agreeing equally) there is no estimate: the ``aline`` entry says why.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from holdout.audit.errors import AuditError
from holdout.contamination.aline import agreement_rates, aline
from holdout.data import DataError
from holdout.data.user import read_user_predictions
from holdout.predictions import Predictions

__all__ = ["degenerate_line", "read_unlabeled", "write_aline"]

#: ALine fits lines through pairs of models: fewer than this many models are not enough.
MIN_MODELS = 3


def read_unlabeled(path: str | Path, original: Predictions, model_names: list[str] | None) -> np.ndarray:
    """The new-set predictions of ``original``'s models (``.csv`` / ``.npy``, no labels), K x n in
    ``original``'s model order."""
    if _is_3d_npy(path):
        raise AuditError(
            f"--new-predictions {path}: a 3-D array (scores or top-k) is read with its labels: give "
            "--new-labels, or the K x n predicted classes"
        )
    try:
        preds, names = read_user_predictions(path, model_names)
    except DataError as exc:
        raise AuditError(f"--new-predictions {exc}") from None
    if sorted(names) != sorted(original.model_names):
        missing = sorted(set(original.model_names) ^ set(names))
        raise AuditError(
            f"--new-predictions {path}: the models differ from PREDICTIONS' ({missing[0]!r} is in one file only)"
        )
    if preds.shape[1] == 0:
        raise AuditError(f"--new-predictions {path}: no predictions (0 items)")
    order = [names.index(m) for m in original.model_names]
    return preds[order]


def _is_3d_npy(path: str | Path) -> bool:
    try:
        return Path(path).suffix.lower() == ".npy" and np.load(path, mmap_mode="r", allow_pickle=False).ndim == 3
    except (OSError, ValueError):
        return False  # the reader names the problem


def degenerate_line(original: Predictions, new: np.ndarray) -> str | None:
    """Why the agreement line cannot be fitted on these predictions (None when it can): a line on
    probit axes needs pairs of models that agree to different degrees, on both test sets."""
    k, n_new = original.num_models, int(new.shape[1])
    if k < MIN_MODELS:
        return f"agreement on the line needs at least {MIN_MODELS} models (the line runs through their pairs), got {k}"
    if n_new < 2:
        return f"the new set holds {n_new} item: every pair of models agrees on all of it or on none"
    p = np.asarray(original.predictions)
    if (p == np.asarray(original.labels)[None, :]).all():
        return "every model is right on every original test point, so every pair agrees on all of it"
    for name, rates in (("original", agreement_rates(p)), ("new", agreement_rates(new))):
        if np.ptp(rates) == 0:
            if rates[0] == 1:
                return f"the models make identical predictions on the {name} set"
            return f"every pair of models agrees on the same {100 * rates[0]:.1f}% of the {name} set"
    return None


def _skipped(why: str) -> dict:
    return {"skipped": why, "verdict": f"Agreement on the line: no estimate, because {why}."}


def write_aline(original: Predictions, new: np.ndarray, new_labels: np.ndarray | None, folder: Path) -> dict:
    """``aline.csv`` in ``folder`` and the ``aline`` entry of ``summary.json`` (returned); no file
    and the reason (``skipped``) where the line cannot be fitted
    ([`degenerate_line`][holdout.audit.engines.aline_lens.degenerate_line])."""
    why = degenerate_line(original, new)
    if why is not None:
        return _skipped(why)
    r = aline(original.model_names, original.predictions, original.labels, new, new_labels)
    if not (np.isfinite(r.agreement.r2) and np.isfinite(r.agreement.slope)):
        return _skipped(f"the agreement line is undefined (R^2 = {r.agreement.r2}) on these predictions")
    r.models.to_csv(folder / "aline.csv", index=False)
    entry: dict = {
        "models": len(r.models),
        "new_items": int(new.shape[1]),
        "agreement_line": {"slope": r.agreement.slope, "bias": r.agreement.bias, "r2": r.agreement.r2},
        "mean_aline_s": float(r.models["aline_s"].mean()),
        "mean_aline_d": float(r.models["aline_d"].mean()),
        "labels_used": "none (ALine reads only the predictions)",
        "verdict": (
            f"ALine-D predicts a mean new-set accuracy of {100 * r.models['aline_d'].mean():.1f}% (original "
            f"{100 * r.models['accuracy_original'].mean():.1f}%); agreement line R^2 = {r.agreement.r2:.3f} "
            "(heuristic, Baek et al. 2022: valid when agreement and accuracy share the line)"
        ),
    }
    if r.accuracy is not None:
        entry["accuracy_line"] = {"slope": r.accuracy.slope, "bias": r.accuracy.bias, "r2": r.accuracy.r2}
        entry["mae_points"] = {k: 100 * float(r.models[f"error_{k}"].abs().mean()) for k in ("s", "d", "naive")}
    return entry
