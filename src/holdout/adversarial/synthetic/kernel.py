"""The RMSProp steps of the synthetic experiment's linear models (Werpachowski et al. 2019,
Appendix A.2), in one fixed floating-point order, twice: a compiled kernel (numba, optional) and
a plain numpy reference. Both give bit-identical results, on any CPU and any thread count.

One step of run r on batch k (rows ``order[r, k B : (k + 1) B]`` of x[r], B = batch size):

    z_i   = tree_sum(x_i * w) + b                 (pairwise tree over the P = 2^p padded columns)
    dz_i  = sigmoid(-y_i z_i) (-y_i) / B          (d mean-loss / d z_i; sigmoid in float64, rounded)
    g     = (...((dz_1 x_1) + dz_2 x_2) + ...)    (rows added in batch order), g_b = sum_i dz_i
    g_1  += 2 penalty w_1
    ms    = decay ms + (1 - decay) g^2
    theta = theta - lr g / sqrt(ms + eps)         (or / (sqrt(ms) + eps))

Every operation is a single IEEE operation in the parameters' dtype, no fused multiply-add and
no reassociation, so the result does not depend on the vector width (AVX2 or AVX-512), the BLAS
or the number of threads (runs are independent; one thread trains a whole run). The exponential
is [`exp_f64`][holdout.adversarial.synthetic.kernel.exp_f64], built from +, *, floor and exact powers of two for the
same reason.
"""

from __future__ import annotations

import importlib.util
from importlib import metadata

import numpy as np

from holdout.adversarial.synthetic.exp_constants import _EXP_CLAMP, _EXP_COEF, _INV_LN2, _LN2_HI, _LN2_LO

__all__ = ["HAVE_NUMBA", "exp_f64", "rmsprop_steps", "rmsprop_steps_numpy", "set_threads", "training_backend"]

#: numba installed (the ``fast`` extra); it is imported only when the kernel first runs
HAVE_NUMBA = importlib.util.find_spec("numba") is not None


def exp_f64(t: np.ndarray) -> np.ndarray:
    """exp(t) in float64 from +, *, floor and exact powers of two (Cody-Waite reduction,
    t = k ln 2 + r, and a degree-9 Taylor polynomial in r), t clamped to [-200, 200]: the same
    bits in numpy and in the compiled kernel, whatever the CPU's libm or SIMD width."""
    t = np.clip(np.asarray(t, dtype=np.float64), -_EXP_CLAMP, _EXP_CLAMP)
    k = np.floor(t * _INV_LN2 + 0.5)
    r = (t - k * _LN2_HI) - k * _LN2_LO
    p = np.zeros_like(r)
    for c in _EXP_COEF:
        p = p * r + c
    return np.ldexp(p, k.astype(np.int64))


def _tree_sum_last(p: np.ndarray) -> np.ndarray:
    """Pairwise sum over the last axis (a power of two long): halves added level by level."""
    h = p.shape[-1] // 2
    while h > 0:
        p = p[..., :h] + p[..., h : 2 * h]
        h //= 2
    return p[..., 0]


def rmsprop_steps_numpy(
    x: np.ndarray,
    ny: np.ndarray,
    order: np.ndarray,
    theta: np.ndarray,
    ms: np.ndarray,
    k0: int,
    n_steps: int,
    hyper: tuple[int, float, float, float, bool, float],
    block: int = 8,
) -> None:
    """Reference implementation of [`rmsprop_steps`][holdout.adversarial.synthetic.kernel.rmsprop_steps] in plain numpy,
    ``block`` runs at a time
    (their arrays stay in the CPU cache; the result does not depend on ``block``).

    x (R, n, P) with P a power of two (zero columns past D), ny = -y (R, n), order (R, n) the
    row order of each run, theta (R, P + 1) = (w, b) and ms (R, P + 1) updated in place from
    batch k0 on; ``hyper`` = (batch size, learning rate, decay, eps, eps inside sqrt, penalty)."""
    for r0 in range(0, x.shape[0], block):
        sl = slice(r0, r0 + block)
        xs = np.take_along_axis(x[sl], order[sl, :, None], axis=1)  # rows in the runs' order
        nys = np.take_along_axis(ny[sl], order[sl], axis=1)
        _steps_block_numpy(xs, nys, theta[sl], ms[sl], k0, n_steps, hyper)


def _steps_block_numpy(
    xs: np.ndarray,
    nys: np.ndarray,
    w: np.ndarray,
    m: np.ndarray,
    k0: int,
    n_steps: int,
    hyper: tuple[int, float, float, float, bool, float],
) -> None:
    """The steps of [`rmsprop_steps_numpy`][holdout.adversarial.synthetic.kernel.rmsprop_steps_numpy] for runs whose
    rows are already in batch order."""
    bs, lr, decay, eps, inside, penalty = hyper
    f = xs.dtype.type
    lr, decay, eps, two_pen, inv_bs, one_m = f(lr), f(decay), f(eps), f(2.0 * penalty), f(1.0 / bs), f(1.0 - decay)
    nb = xs.shape[1] // bs
    dim = xs.shape[2]
    h = dim // 2
    p = np.empty(xs.shape[:1] + (bs, h), dtype=xs.dtype)
    tmp = np.empty_like(p)
    prod = np.empty(xs.shape[:1] + (bs, dim), dtype=xs.dtype)
    g = np.empty_like(w)
    for s in range(n_steps):
        k = (k0 + s) % nb
        xb = xs[:, k * bs : (k + 1) * bs]
        nyb = nys[:, k * bs : (k + 1) * bs]
        np.multiply(xb[..., :h], w[:, None, :h], out=p)  # products and the tree's first level
        np.add(p, np.multiply(xb[..., h:], w[:, None, h:dim], out=tmp), out=p)
        z = _tree_sum_last(p) + w[:, dim : dim + 1]
        sig = (1.0 / (1.0 + exp_f64(-(nyb * z).astype(np.float64)))).astype(xs.dtype)
        dz = sig * nyb * inv_bs
        # rows added in batch order: numpy reduces a non-contiguous axis sequentially
        np.add.reduce(np.multiply(dz[:, :, None], xb, out=prod), axis=1, out=g[:, :dim])
        g[:, dim] = np.add.accumulate(dz, axis=1)[:, -1]  # sequential (reduce would sum pairwise)
        g[:, 0] += two_pen * w[:, 0]
        m[:] = decay * m + one_m * (g * g)
        denom = np.sqrt(m + eps) if inside else np.sqrt(m) + eps
        w[:] = w - lr * g / denom


def set_threads(threads: int) -> None:
    """Threads of the compiled kernel (one run per thread; no effect on the result or on numpy)."""
    if HAVE_NUMBA:
        import numba

        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def training_backend() -> str:
    """Which implementation ``backend="auto"`` uses here, for the log."""
    if HAVE_NUMBA:
        return f"numba {metadata.version('numba')} kernel"
    return "numpy reference (numba not installed: pip install '.[fast]' for the compiled kernel)"


def rmsprop_steps(
    x: np.ndarray,
    ny: np.ndarray,
    order: np.ndarray,
    theta: np.ndarray,
    ms: np.ndarray,
    k0: int,
    n_steps: int,
    hyper: tuple[int, float, float, float, bool, float],
    *,
    backend: str = "auto",
) -> None:
    """``n_steps`` RMSProp steps of every run from batch ``k0`` on, theta and ms updated in place
    (arguments as [`rmsprop_steps_numpy`][holdout.adversarial.synthetic.kernel.rmsprop_steps_numpy]). ``backend``:
    ``numba`` (the compiled kernel),
    ``numpy`` (the reference) or ``auto`` (numba when installed); both give the same bits."""
    if backend not in ("auto", "numba", "numpy"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'numpy', got {backend!r}")
    if backend == "numba" and not HAVE_NUMBA:
        raise ImportError("backend='numba' needs numba: pip install '.[fast]'")
    if backend == "numpy" or not HAVE_NUMBA:
        rmsprop_steps_numpy(x, ny, order, theta, ms, k0, n_steps, hyper)
        return
    from holdout.adversarial.synthetic.kernel_numba import steps_all_runs

    bs, lr, decay, eps, inside, penalty = hyper
    f = x.dtype.type
    steps_all_runs(
        x, ny, order, theta, ms, int(k0), int(n_steps), int(bs),
        f(lr), f(decay), f(eps), bool(inside), f(2.0 * penalty), f(1.0 / bs), f(1.0 - decay),
    )  # fmt: skip
