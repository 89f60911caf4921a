"""The CPU kernels of lgamma, digamma, polygamma, erfinv, i0, logit and special_entr /
special_ndtri / special_i0e / special_i1 / special_i1e, the Bessel functions of
math_cephes_bessel.py (bessel_y0 / y1, modified_bessel_*, scaled_modified_bessel_k0 / k1,
spherical_bessel_j0), airy_ai (math_cephes_airy.py) and erfcx / log_ndtr (math_erfcx.py).

Mirrors their entries in `aten/src/ATen/native/cpu/UnaryOpsKernel.cpp` (lgamma is
IMPLEMENT_FLOAT_KERNEL's std::lgamma; polygamma is digamma for n = 0, trigamma for n = 1 and
calc_polygamma above; logit takes eps < 0 for "no eps" and otherwise clamps to [eps, 1 - eps])
and `aten/src/ATen/native/cpu/UnarySpecialOpsKernel.cpp` (i0e, i1, i1e, ndtri, entr): each is
AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half) over one function of Math.h
(aten/native/math_cephes.py), evaluated in double and rounded to the dtype (the float kernels of
i1 / i1e use Math.h's shorter float tables).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np

from tensortrace.aten.native import math_cephes as cephes
from tensortrace.aten.native import math_cephes_airy as airy
from tensortrace.aten.native import math_cephes_bessel as bessel
from tensortrace.aten.native import math_erfcx
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.tensor_factories_windows import kaiser_window_stub
from tensortrace.aten.native.unary_special_ops import STUBS
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.trace import traced

UNARY = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"
SPECIAL = "aten/src/ATen/native/cpu/UnarySpecialOpsKernel.cpp"

Scalar1 = Callable[[float], float]


def _map(fn: Scalar1, a: np.ndarray) -> np.ndarray:
    """fn over every element, in double, rounded to a's dtype."""
    flat = [fn(float(v)) for v in a.astype(np.float64).ravel()]
    with np.errstate(over="ignore"):
        return np.asarray(flat, dtype=np.float64).reshape(a.shape).astype(a.dtype)


# Math.h's airy_ai / bessel_y* / modified_bessel_* / spherical_bessel_j0 forwards, by op name
BESSEL_FORWARDS: dict[str, Scalar1] = {
    "airy_ai": airy.airy_ai_forward,
    "bessel_y0": bessel.bessel_y0_forward,
    "bessel_y1": bessel.bessel_y1_forward,
    "modified_bessel_i0": bessel.modified_bessel_i0_forward,
    "modified_bessel_i1": bessel.modified_bessel_i1_forward,
    "modified_bessel_k0": bessel.modified_bessel_k0_forward,
    "modified_bessel_k1": bessel.modified_bessel_k1_forward,
    "scaled_modified_bessel_k0": bessel.scaled_modified_bessel_k0_forward,
    "scaled_modified_bessel_k1": bessel.scaled_modified_bessel_k1_forward,
    "spherical_bessel_j0": bessel.spherical_bessel_j0_forward,
}
_FLOAT_AND_DOUBLE_ONLY = frozenset(
    {
        "bessel_j0_cpu",
        "bessel_j1_cpu",
        "erfcx_cpu",
        "log_ndtr_cpu",
        *(f"{n}_cpu" for n in BESSEL_FORWARDS),
    }
)


def _loop(
    dispatch_name: str, it: TensorIteratorBase, fn: Callable[[np.ndarray], np.ndarray]
) -> None:
    dtype = it.common_dtype()
    if dispatch_name in _FLOAT_AND_DOUBLE_ONLY:  # AT_DISPATCH_FLOATING_TYPES: no Half
        AT_DISPATCH_CHECK(dispatch_name, dtype, dtype in (ScalarType.Float, ScalarType.Double))
    AT_DISPATCH_CHECK(dispatch_name, dtype, isFloatingType(dtype))

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        out[...] = fn(a)

    cpu_kernel(it, loop)


def digamma(a: np.ndarray) -> np.ndarray:
    """calc_digamma over an array, in its own dtype (Math.h's float overload computes in float:
    a double computation rounded to float differs by up to ~4e-5 relative): reflection for
    x < 0, recurrence up to 10, then the asymptotic series."""
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
        for coef in cephes.DIGAMMA_A:
            poly = poly * z + t(coef)
        y = np.where(x < t(1.0e17), z * poly, t(0))
        series = result + np.log(x) - (t(0.5) / x) - y
        out[...] = np.where(x == 10, result + t(cephes.PSI_10), series) - reflection
        out[zero] = np.copysign(np.inf, -a[zero])
        out[neg_int] = np.nan
    return out


def _single(a: np.ndarray) -> bool:
    """Whether Math.h's float (not double) overload runs: every dtype but double."""
    return bool(a.dtype != np.float64)


# name -> (its AT_DISPATCH name, the function of one element, the kernel's file)
KERNELS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray], str]] = {
    "lgamma": ("lgamma_vml_cpu", lambda a: _map(cephes.lgamma, a), UNARY),
    "digamma": ("digamma", lambda a: digamma(a), UNARY),
    "erfinv": ("erfinv_cpu", lambda a: _map(cephes.calc_erfinv, a), UNARY),
    "i0": ("i0_cpu", lambda a: _map(cephes.calc_i0, a), UNARY),
    "special_i0e": ("i0e_cpu", lambda a: _map(cephes.calc_i0e, a), SPECIAL),
    "special_i1": (
        "i1_cpu",
        lambda a: _map(lambda x: cephes.calc_i1(x, _single(a)), a),
        SPECIAL,
    ),
    "special_i1e": (
        "i1e_cpu",
        lambda a: _map(lambda x: cephes.calc_i1e(x, _single(a)), a),
        SPECIAL,
    ),
    "special_ndtri": ("ndtri_cpu", lambda a: _map(cephes.calc_ndtri, a), SPECIAL),
    "special_entr": ("entr_cpu", lambda a: _map(cephes.calc_entr, a), SPECIAL),
    "special_bessel_j0": ("bessel_j0_cpu", lambda a: _map(cephes.bessel_j0_forward, a), UNARY),
    "special_bessel_j1": ("bessel_j1_cpu", lambda a: _map(cephes.bessel_j1_forward, a), UNARY),
    "special_erfcx": ("erfcx_cpu", lambda a: _map(math_erfcx.calc_erfcx, a), SPECIAL),
    "special_log_ndtr": ("log_ndtr_cpu", lambda a: _map(math_erfcx.calc_log_ndtr, a), SPECIAL),
}
KERNELS.update(
    (f"special_{name}", (f"{name}_cpu", partial(_map, fn), UNARY))
    for name, fn in BESSEL_FORWARDS.items()
)


def _kernel(name: str) -> Callable[[TensorIteratorBase], None]:
    dispatch_name, fn, _ = KERNELS[name]

    def kernel(it: TensorIteratorBase) -> None:
        _loop(dispatch_name, it, fn)

    kernel.__name__ = f"{name.removeprefix('special_')}_kernel"
    return kernel


for _name, (_dispatch_name, _fn, _source) in KERNELS.items():
    _short = _name.removeprefix("special_")
    REGISTER_DISPATCH(
        STUBS[_name],
        traced("kernel", f"at::native::{_short}_kernel", _source, legacy=f"{_short}_kernel")(
            _kernel(_name)
        ),
    )


def polygamma_kernel(it: TensorIteratorBase, n: int) -> None:
    if n == 0:
        _loop("digamma", it, digamma)
    elif n == 1:
        _loop("trigamma", it, lambda a: _map(lambda x: cephes.trigamma(x, _single(a)), a))
    else:
        _loop("polygamma", it, lambda a: _map(lambda x: cephes.calc_polygamma(x, n), a))


def logit_kernel(it: TensorIteratorBase, eps_scalar: float | None) -> None:
    """eps None (passed as -1 by UnaryOps.cpp) takes x as it is; else x is clamped first."""
    eps = -1.0 if eps_scalar is None else float(eps_scalar)

    def logit(x: float) -> float:
        if eps >= 0:
            lo, hi = eps, 1.0 - eps
            x = lo if x < lo else (hi if x > hi else x)
        if x == 1.0:
            return math.inf
        try:
            return math.log(x / (1.0 - x))
        except ValueError:  # a negative ratio, or 0
            return -math.inf if x == 0.0 else math.nan

    _loop("logit_cpu", it, lambda a: _map(logit, a))


REGISTER_DISPATCH(
    STUBS["polygamma"],
    traced("kernel", "at::native::polygamma_kernel", UNARY, legacy="polygamma_kernel")(
        polygamma_kernel
    ),
)
REGISTER_DISPATCH(
    STUBS["logit"],
    traced("kernel", "at::native::logit_kernel", UNARY, legacy="logit_kernel")(logit_kernel),
)


def kaiser_window_kernel(it: TensorIteratorBase, window_length: int, beta: float) -> None:
    """I0(beta sqrt(|1 - ((n - alpha) / alpha)^2|)) / I0(beta), alpha = (N - 1) / 2."""
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("kaiser_window_cpu", dtype, isFloatingType(dtype))
    alpha = (window_length - 1) / 2.0
    i0_beta = cephes.calc_i0(beta)

    def kaiser(a: float) -> float:
        return cephes.calc_i0(beta * math.sqrt(abs(1 - ((a - alpha) / alpha) ** 2.0))) / i0_beta

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        out[...] = _map(kaiser, a)

    cpu_kernel(it, loop)


REGISTER_DISPATCH(
    kaiser_window_stub,
    traced("kernel", "at::native::kaiser_window_kernel", UNARY, legacy="kaiser_window_kernel")(
        kaiser_window_kernel
    ),
)
