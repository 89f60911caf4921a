"""The CPU kernels of lgamma, digamma and polygamma (trigamma for n = 1).

Mirrors `lgamma_kernel`, `digamma_kernel`, `trigamma_kernel` and `polygamma_kernel` in
`aten/src/ATen/native/cpu/UnaryOpsKernel.cpp`, whose scalar math is `calc_digamma`,
`calc_trigamma` and `calc_polygamma` / `zeta` in `aten/src/ATen/native/Math.h` (Cephes). Each
runs here as NumPy array code in the tensor's own dtype (float math for float, as the `float`
overloads of Math.h do); lgamma is libm's, element by element.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.cpu.unary_ops_kernel import unary_loop
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.unary_ops_special import digamma_stub, lgamma_stub, polygamma_stub
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"

PSI_10 = 2.25175258906672110764
# calc_digamma's asymptotic series, highest power first (polevl's order)
_DIGAMMA_A = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)
# zeta's Euler-Maclaurin coefficients
_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)
MACHEP = 1.11022302462515654042e-16


def _lgamma_one(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole: libm returns +inf
        return math.inf


_lgamma = np.frompyfunc(_lgamma_one, 1, 1)


def lgamma(a: np.ndarray) -> np.ndarray:
    """std::lgamma per element (+inf at the poles, as libm)."""
    with np.errstate(all="ignore"):
        return np.asarray(_lgamma(a.astype(np.float64)), dtype=np.float64).astype(a.dtype)


def digamma(a: np.ndarray) -> np.ndarray:
    """calc_digamma: reflection for x < 0, recurrence up to 10, then the asymptotic series."""
    t = a.dtype.type
    x = a.copy()
    out = np.zeros_like(a)
    with np.errstate(all="ignore"):
        zero = x == 0
        neg = x < 0
        neg_int = neg & (x == np.trunc(x))
        # r = modf(x): tan(pi * r) is more accurate than tan(pi * x) for |x| > 1
        r = np.fmod(x.astype(np.float64), 1.0)
        reflection = np.where(neg, (math.pi / np.tan(math.pi * r)).astype(a.dtype), t(0))
        x = np.where(neg, t(1) - x, x)
        result = np.zeros_like(a)
        small = x < 10
        while small.any():
            result = np.where(small, result - t(1) / x, result)
            x = np.where(small, x + t(1), x)
            small = x < 10
        z = t(1) / (x * x)
        poly = np.zeros_like(a)
        for coef in _DIGAMMA_A:
            poly = poly * z + t(coef)
        y = np.where(x < t(1.0e17), z * poly, t(0))
        series = result + np.log(x) - (t(0.5) / x) - y
        out[...] = np.where(x == 10, result + t(PSI_10), series) - reflection
        out[zero] = np.copysign(np.inf, -a[zero])
        out[neg_int] = np.nan
    return out


def trigamma(a: np.ndarray) -> np.ndarray:
    """calc_trigamma: reflection below 0.5, six recurrence steps, then the series."""
    t = a.dtype.type
    with np.errstate(all="ignore"):
        x = a.copy()
        reflect = x < t(0.5)
        sin_pi_x = np.sin(t(math.pi) * x)
        pi = t(math.pi)
        result = np.where(reflect, -(pi * pi) / (sin_pi_x * sin_pi_x), t(0))
        x = np.where(reflect, t(1) - x, x)
        for _ in range(6):
            result = result + t(1) / (x * x)
            x = x + t(1)
        ixx = t(1) / (x * x)
        tail = t(1) / 6 - ixx * (t(1) / 30 - ixx * (t(1) / 42))
        result = result + (t(1) + t(1) / (t(2) * x) + ixx * tail) / x
        return np.where(reflect, -result, result).astype(a.dtype)


def _zeta_one(x: float, q: float) -> float:
    """zeta(x, q), the Hurwitz zeta function (Cephes), in double."""
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s = q**-x
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a**-x
        s += b
        if -MACHEP * s < b < MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for coef in _ZETA_A:
        a *= x + k
        b /= w
        term = a * b / coef
        s += term
        if abs(term / s) < MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


def polygamma(a: np.ndarray, n: int) -> np.ndarray:
    """calc_polygamma: (-1)**(n+1) * n! * zeta(n + 1, x) for n >= 2."""
    if n == 0:
        return digamma(a)
    if n == 1:
        return trigamma(a)
    sign = 1.0 if n % 2 else -1.0
    factorial = math.exp(math.lgamma(n + 1.0))
    values = [sign * factorial * _zeta_one(float(n + 1), v) for v in a.ravel().tolist()]
    return np.array(values, dtype=np.float64).reshape(a.shape).astype(a.dtype)


def _float_kernel(name: str, fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., None]:
    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        AT_DISPATCH_CHECK(name, dtype, isFloatingType(dtype))
        cpu_kernel_vec(it, unary_loop(fn))

    return kernel


lgamma_kernel = traced("kernel", "at::native::lgamma_kernel", SOURCE, legacy="lgamma_kernel")(
    _float_kernel("lgamma_vml_cpu", lgamma)
)
digamma_kernel = traced("kernel", "at::native::digamma_kernel", SOURCE, legacy="digamma_kernel")(
    _float_kernel("digamma", digamma)
)


@traced("kernel", "at::native::polygamma_kernel", SOURCE, legacy="polygamma_kernel")
def polygamma_kernel(it: TensorIteratorBase, n: int) -> None:
    dtype = it.common_dtype()
    name = "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma"
    AT_DISPATCH_CHECK(name, dtype, isFloatingType(dtype))
    cpu_kernel_vec(it, unary_loop(lambda a: polygamma(a, n)))


REGISTER_DISPATCH(lgamma_stub, lgamma_kernel)
REGISTER_DISPATCH(digamma_stub, digamma_kernel)
REGISTER_DISPATCH(polygamma_stub, polygamma_kernel)
