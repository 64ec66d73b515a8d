"""Item discrimination: does getting the item right go with being a better model?

The point-biserial correlation of classical test theory (Lord & Novick 1968, "Statistical theories of
mental test scores", Sec. 15.2) between a model's correctness on the item and its *rest score*, its
accuracy on the other n - 1 items (the item itself left out, so that it does not correlate with
itself). An item with negative discrimination is answered right more often by the weaker models: a
mis-keyed or ambiguous item, or one the strong models overthink.
"""

from __future__ import annotations

import numpy as np

from holdout.items.answers import AnswerMatrix, _chunks

__all__ = ["point_biserial", "rest_score_discrimination"]


def point_biserial(correct: np.ndarray) -> np.ndarray:
    """Point-biserial correlation of each item's correctness with the rest score, (K, n) bool -> (n,).

    NaN where the item or the rest scores do not vary (every model right, or every model wrong).
    """
    x = np.asarray(correct, dtype=float)
    k, n = x.shape
    total = x.sum(axis=1, keepdims=True)
    return _corr_columns(x, (total - x) / max(n - 1, 1))


def _corr_columns(x: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Pearson correlation of column i of ``x`` with column i of ``r``, every column at once."""
    xc = x - x.mean(axis=0)
    rc = r - r.mean(axis=0)
    num = (xc * rc).sum(axis=0)
    den = np.sqrt((xc * xc).sum(axis=0) * (rc * rc).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def rest_score_discrimination(m: AnswerMatrix) -> np.ndarray:
    """[`point_biserial`][holdout.items.discrimination.point_biserial] of the models' correctness against
    the key (no answer = wrong), by chunks of items so that memory stays linear in K x n."""
    k, n = m.num_models, m.num_items
    total = np.zeros(k)
    for s, e in _chunks(n, k + 1):
        total += (m.codes[:-1, s:e] == m.codes[-1, s:e]).sum(axis=1)
    out = np.empty(n)
    for s, e in _chunks(n, 4 * (k + 1)):
        x = (m.codes[:-1, s:e] == m.codes[-1, s:e]).astype(float)
        out[s:e] = _corr_columns(x, (total[:, None] - x) / max(n - 1, 1))
    return out
