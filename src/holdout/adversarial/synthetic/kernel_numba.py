"""The compiled (numba) version of
[`holdout.adversarial.synthetic.kernel.rmsprop_steps_numpy`][holdout.adversarial.synthetic.kernel.rmsprop_steps_numpy]:
the same operations in the same order, one thread per run. Imported only when it first runs,
so that importing [`holdout.adversarial.synthetic`][holdout.adversarial.synthetic] does not import numba."""

from __future__ import annotations

import math

import numba
import numpy as np

from holdout.adversarial.synthetic.exp_constants import _EXP_CLAMP, _EXP_COEF, _INV_LN2, _LN2_HI, _LN2_LO

__all__ = ["steps_all_runs", "steps_one_run"]


@numba.njit(cache=True, fastmath=False)
def steps_one_run(x, ny, order, w, m, k0, n_steps, bs, lr, decay, eps, inside, two_pen, inv_bs, one_m):
    """The steps of one run (compiled); same operations, same order as `rmsprop_steps_numpy`.
    Three passes per step (the rows' z, their dz, the gradient) so that the rows' dot products and
    exponentials are independent of each other and overlap in the CPU."""
    nb = x.shape[0] // bs
    dim = x.shape[1]
    g = np.zeros(dim + 1, dtype=x.dtype)
    p = np.zeros(dim, dtype=x.dtype)
    ym = np.zeros(bs, dtype=x.dtype)
    dz = np.zeros(bs, dtype=x.dtype)
    for s in range(n_steps):
        k = (k0 + s) % nb
        rows = order[k * bs : (k + 1) * bs]
        for i in range(bs):  # -y_i z_i
            xi = x[rows[i]]
            h = dim // 2
            for j in range(h):  # products and the tree's first level in one pass
                p[j] = xi[j] * w[j] + xi[j + h] * w[j + h]
            h //= 2
            while h > 0:
                lo, hi = p[:h], p[h : 2 * h]  # two views: the compiler sees no overlap and vectorises
                for j in range(h):
                    lo[j] = lo[j] + hi[j]
                h //= 2
            ym[i] = ny[rows[i]] * (p[0] + w[dim])
        for i in range(bs):  # dz_i = sigmoid(-y_i z_i) (-y_i) / B, with exp_f64 written out
            t = min(max(-np.float64(ym[i]), -_EXP_CLAMP), _EXP_CLAMP)
            kk = math.floor(t * _INV_LN2 + 0.5)
            r = (t - kk * _LN2_HI) - kk * _LN2_LO
            e = 0.0
            for c in _EXP_COEF:
                e = e * r + c
            e = e * 2.0 ** int(kk)
            dz[i] = 1.0 / (1.0 + e)  # rounded to the parameters' dtype
            dz[i] = dz[i] * ny[rows[i]] * inv_bs
        xi = x[rows[0]]
        for j in range(dim):  # the gradient, rows added in batch order
            g[j] = dz[0] * xi[j]
        g[dim] = dz[0]
        for i in range(1, bs):
            xi = x[rows[i]]
            di = dz[i]
            for j in range(dim):
                g[j] = g[j] + di * xi[j]
            g[dim] = g[dim] + di
        g[0] = g[0] + two_pen * w[0]
        for j in range(dim + 1):
            m[j] = decay * m[j] + one_m * (g[j] * g[j])
        if inside:
            for j in range(dim + 1):
                w[j] = w[j] - lr * g[j] / np.sqrt(m[j] + eps)
        else:
            for j in range(dim + 1):
                w[j] = w[j] - lr * g[j] / (np.sqrt(m[j]) + eps)


@numba.njit(cache=True, fastmath=False, parallel=True)
def steps_all_runs(x, ny, order, theta, ms, k0, n_steps, bs, lr, decay, eps, inside, two_pen, inv_bs, one_m):
    """All runs, one thread per run (numba.prange)."""
    for r in numba.prange(x.shape[0]):
        steps_one_run(
            x[r], ny[r], order[r], theta[r], ms[r], k0, n_steps, bs, lr, decay, eps, inside, two_pen, inv_bs, one_m
        )
