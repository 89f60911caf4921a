"""calc_erfcx (the scaled complementary error function exp(x^2) erfc(x)) and calc_log_ndtr
(log of the standard normal CDF), one element at a time.

Mirrors `erfcx_y100`, `calc_erfcx` and `calc_log_ndtr` of `aten/src/ATen/native/Math.h`: erfcx
for x >= 0 is a Chebyshev polynomial of y = 4 / (4 + x) on 100 subintervals (up to 50), then a
continued-fraction expansion; for x < 0 it is 2 exp(x^2) - erfcx(-x). log_ndtr uses erfcx below
-1, where log(erfc) would underflow.
"""

from __future__ import annotations

import math

from tensortrace.aten.native.math_erfcx_table import ERFCX_Y100

INF = math.inf
_ISPI = 0.56418958354775628694807945156  # 1 / sqrt(pi)
_FRAC_SQRT_2 = 0.707106781186547524400844362104849039


def erfcx_y100(y100: float) -> float:
    k = int(y100)
    if not 0 <= k < len(ERFCX_Y100):
        # only y = 1, i.e. |x| < 4 eps: erfcx is within 1e-15 of 1
        return 1.0
    coefficients = ERFCX_Y100[k]
    t = 2 * y100 - (2 * k + 1)
    result = coefficients[-1]
    for c in coefficients[-2::-1]:
        result = c + result * t
    return result


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def calc_erfcx(x: float) -> float:
    if math.isnan(x):
        return x
    if x >= 0:
        if x > 50:  # the continued-fraction expansion is faster
            if x > 5e7:  # 1-term expansion, important to avoid overflow
                return _ISPI / x
            # 5-term expansion, simplified from ispi / (x+0.5/(x+1/(x+1.5/(x+2/x))))
            return _ISPI * ((x * x) * (x * x + 4.5) + 2) / (x * ((x * x) * (x * x + 5) + 3.75))
        return erfcx_y100(400 / (4 + x))
    if x < -26.7:
        return INF
    if x < -6.1:
        return 2 * _exp(x * x)
    return 2 * _exp(x * x) - erfcx_y100(400 / (4 - x))


def calc_log_ndtr(x: float) -> float:
    t = x * _FRAC_SQRT_2
    if x < -1.0:
        value = calc_erfcx(-t) / 2
        return (math.log(value) if value > 0 else -INF) - t * t
    return math.log1p(-math.erfc(t) / 2)
