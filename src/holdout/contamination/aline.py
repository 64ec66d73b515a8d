"""Agreement on the line (Baek et al., NeurIPS 2022): new-set accuracy without new-set labels.

For K models with predictions on a labeled original set and an unlabeled new set, the agreement
of a pair (the fraction of items where both predict the same class) needs no labels. Baek et al.
observe that whenever accuracies lie on a line on probit axes ("accuracy on the line", Miller et
al. 2021), the pairs' agreements lie on a line too, with nearly the same slope a and bias b
(their Sec. 3). Fitting the agreement line, Phi^-1(agr_new) = a Phi^-1(agr_orig) + b, then
predicts each model's new accuracy (their Sec. 4, Algorithm 1):

- ALine-S: Phi(a Phi^-1(acc_orig) + b);
- ALine-D: for every pair (i, j), (u_i + u_j) / 2 = Phi^-1(agr_new_ij)
  + a [(Phi^-1(acc_orig_i) + Phi^-1(acc_orig_j)) / 2 - Phi^-1(agr_orig_ij)], solved for the u by
  least squares over all pairs; the estimate is Phi(u_i).

Both are heuristics: they are right when agreement and accuracy share their line, which cannot be
checked without new-set labels. The agreement line's R^2 is the paper's precondition (a weak
agreement line means the method does not apply); with new labels the accuracy line is fitted too
and the two lines compared (slope and bias differences), and the errors measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["ALine", "ProbitLine", "agreement_rates", "aline", "aline_summary"]


@dataclass(frozen=True)
class ProbitLine:
    """Least squares of Phi^-1(new) on Phi^-1(original): ``slope``, ``bias``, ``r2``, ``points``."""

    slope: float
    bias: float
    r2: float
    points: int


@dataclass(frozen=True)
class ALine:
    """``models``: ``model``, ``accuracy_original``, ``aline_s``, ``aline_d`` (fractions) and, with
    new labels, ``accuracy_new``, ``error_s``, ``error_d``, ``error_naive`` (estimate - truth; naive:
    the original accuracy); ``pairs``: ``model_i``, ``model_j``, ``agreement_original``,
    ``agreement_new``; the agreement line and, with new labels, the accuracy line."""

    models: pd.DataFrame
    pairs: pd.DataFrame
    agreement: ProbitLine
    accuracy: ProbitLine | None


def agreement_rates(predictions: npt.ArrayLike) -> np.ndarray:
    """The K(K-1)/2 agreements, pairs i < j in ``np.triu_indices`` order: the fraction of items where
    models i and j predict the same class (``predictions``: K x n class indices)."""
    p = np.asarray(predictions)
    if p.ndim != 2 or p.shape[0] < 2:
        raise ValueError(f"predictions must be K x n with K >= 2, got shape {p.shape}")
    return np.concatenate([(p[i + 1 :] == p[i]).mean(axis=1) for i in range(p.shape[0] - 1)])


def _probit(p: np.ndarray, n: int) -> np.ndarray:
    from scipy.special import ndtri

    return ndtri(np.clip(p, 0.5 / n, 1 - 0.5 / n))


def _line(x: np.ndarray, y: np.ndarray) -> ProbitLine:
    slope, bias = np.polyfit(x, y, 1)
    resid = y - (slope * x + bias)
    total = float(np.sum((y - y.mean()) ** 2))
    r2 = 1 - float(np.sum(resid**2)) / total if total > 0 else float("nan")
    return ProbitLine(float(slope), float(bias), r2, int(x.size))


def _aline_d(z_acc: np.ndarray, z_orig: np.ndarray, z_new: np.ndarray, slope: float, k: int) -> np.ndarray:
    """Least-squares solution u of (u_i + u_j) / 2 = z_new_ij + slope ((z_i + z_j) / 2 - z_orig_ij)."""
    iu, ju = np.triu_indices(k, 1)
    design = np.zeros((iu.size, k))
    design[np.arange(iu.size), iu] = design[np.arange(iu.size), ju] = 0.5
    target = z_new + slope * ((z_acc[iu] + z_acc[ju]) / 2 - z_orig)
    return np.linalg.lstsq(design, target, rcond=None)[0]


def aline(
    models: npt.ArrayLike,
    original: npt.ArrayLike,
    labels: npt.ArrayLike,
    new: npt.ArrayLike,
    new_labels: npt.ArrayLike | None = None,
) -> ALine:
    """ALine-S and ALine-D estimates of every model's new-set accuracy (module docstring).

    ``original`` / ``new``: K x n_orig and K x n_new predicted classes of the same K >= 3 models in
    the same order; ``labels``: the original set's labels; ``new_labels`` (optional): only to
    measure the errors and fit the accuracy line, never used by the estimates.
    """
    from scipy.special import ndtr

    orig, nw = np.asarray(original), np.asarray(new)
    k = orig.shape[0]
    if k < 3 or nw.shape[0] != k:
        raise ValueError(f"need the same K >= 3 models on both sets, got {orig.shape[0]} and {nw.shape[0]}")
    n_o, n_n = orig.shape[1], nw.shape[1]
    acc = (orig == np.asarray(labels)[None, :]).mean(axis=1)
    agr_o, agr_n = agreement_rates(orig), agreement_rates(nw)
    z_acc, z_o, z_n = _probit(acc, n_o), _probit(agr_o, n_o), _probit(agr_n, n_n)
    line = _line(z_o, z_n)
    names = np.asarray(models, dtype=object)
    table = pd.DataFrame(
        {
            "model": names,
            "accuracy_original": acc,
            "aline_s": ndtr(line.slope * z_acc + line.bias),
            "aline_d": ndtr(_aline_d(z_acc, z_o, z_n, line.slope, k)),
        }
    )
    accuracy_line = None
    if new_labels is not None:
        truth = (nw == np.asarray(new_labels)[None, :]).mean(axis=1)
        table["accuracy_new"] = truth
        for col, est in (("error_s", "aline_s"), ("error_d", "aline_d"), ("error_naive", "accuracy_original")):
            table[col] = table[est] - truth
        accuracy_line = _line(z_acc, _probit(truth, n_n))
    iu, ju = np.triu_indices(k, 1)
    pairs = pd.DataFrame(
        {"model_i": names[iu], "model_j": names[ju], "agreement_original": agr_o, "agreement_new": agr_n}
    )
    return ALine(table, pairs, line, accuracy_line)


def aline_summary(results: dict[str, ALine]) -> pd.DataFrame:
    """One row per shift: models, both lines (slope, bias, R^2; the accuracy line only with new
    labels) and their differences, and the mean absolute errors of ALine-S, ALine-D and the naive
    'same as original' estimate (points)."""
    out = []
    for name, r in results.items():
        row = {"shift": name, "models": len(r.models)}
        row |= {f"agreement_{k}": getattr(r.agreement, k) for k in ("slope", "bias", "r2")}
        if r.accuracy is not None:
            row |= {f"accuracy_{k}": getattr(r.accuracy, k) for k in ("slope", "bias", "r2")}
            row["slope_difference"] = r.agreement.slope - r.accuracy.slope
            row["bias_difference"] = r.agreement.bias - r.accuracy.bias
            for col in ("error_s", "error_d", "error_naive"):
                row[f"mae_{col[6:]}_points"] = 100 * float(r.models[col].abs().mean())
        out.append(row)
    return pd.DataFrame(out)
