"""The constants of [`holdout.adversarial.synthetic.kernel.exp_f64`][holdout.adversarial.synthetic.kernel.exp_f64]
(Cody-Waite reduction and a
Taylor polynomial), shared by the numpy reference and the numba kernel so both compute the same bits."""

from __future__ import annotations

import math

_INV_LN2 = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 split in two (Cody & Waite): k * _LN2_HI is exact for |k| < 2^20
_LN2_LO = 1.9082149292705877e-10
#: Taylor coefficients 1/j! of exp(r) on |r| <= ln(2)/2, highest first (relative error < 1e-11,
#: far below float32's 6e-8: the sigmoid is rounded to float32)
_EXP_COEF = tuple(1.0 / math.factorial(j) for j in range(9, -1, -1))
_EXP_CLAMP = 200.0  # exp(+-200) is far outside float32's range, so the clamp changes no sigmoid
