"""The CPU kernels of floor, ceil, trunc, round (and round with decimals), tan, log2, log10,
exp2, rsqrt, erf, erfc, sinc and signbit.

Mirrors their entries in `aten/src/ATen/native/cpu/UnaryOpsKernel.cpp` (the *_vml_cpu kernels,
cpu_kernel_vec with Vectorized<T>, SLEEF underneath: the transcendental ones may differ from
NumPy's libm in the last bit). round is std::nearbyint (half to even); round_decimals_kernel
scales by 10**decimals in opmath, rounds, and scales back; sinc is sin(pi*x)/(pi*x), 1 at 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.cpu.unary_ops_kernel import unary_loop
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.unary_ops_math import STUBS
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import isComplexType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _special(fn: np.ufunc) -> Callable[[np.ndarray], np.ndarray]:
    def compute(a: np.ndarray) -> np.ndarray:
        return np.asarray(fn(a.astype(np.float64)), dtype=np.float64).astype(a.dtype)

    return compute


def _rsqrt(a: np.ndarray) -> np.ndarray:
    one = a.dtype.type(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return one / np.sqrt(a)


def _sinc(a: np.ndarray) -> np.ndarray:
    product = a.dtype.type(np.pi) * a
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.sin(product) / product
    return np.where(a == 0, a.dtype.type(1), result)


def _exp2(a: np.ndarray) -> np.ndarray:
    return np.power(a.dtype.type(2), a) if np.iscomplexobj(a) else np.exp2(a)


# name -> (the kernel's AT_DISPATCH name, its function, whether complex dtypes dispatch)
KERNELS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray], bool]] = {
    "floor": ("floor_vml_cpu", np.floor, False),
    "ceil": ("ceil_vml_cpu", np.ceil, False),
    "trunc": ("trunc_vml_cpu", np.trunc, False),
    "round": ("round_vml_cpu", np.rint, False),
    "tan": ("tan_vml_cpu", np.tan, True),
    "log2": ("log2_vml_cpu", np.log2, True),
    "log10": ("log10_vml_cpu", np.log10, True),
    "exp2": ("exp2", _exp2, True),
    "rsqrt": ("rsqrt_cpu", _rsqrt, True),
    "erf": ("erf_vml_cpu", _special(_erf), False),
    "erfc": ("erfc_vml_cpu", _special(_erfc), False),
    "sinc": ("sinc_cpu", _sinc, True),
}


def _kernel(name: str) -> Callable[[TensorIteratorBase], None]:
    dispatch_name, fn, complex_ok = KERNELS[name]

    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        AT_DISPATCH_CHECK(
            dispatch_name, dtype, isFloatingType(dtype) or (complex_ok and isComplexType(dtype))
        )
        with np.errstate(all="ignore"):
            cpu_kernel_vec(it, unary_loop(fn))

    kernel.__name__ = f"{name}_kernel"
    return kernel


for _name in KERNELS:
    REGISTER_DISPATCH(
        STUBS[_name],
        traced("kernel", f"at::native::{_name}_kernel", SOURCE, legacy=f"{_name}_kernel")(
            _kernel(_name)
        ),
    )


def round_decimals_kernel(it: TensorIteratorBase, decimals: int) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("round_cpu", dtype, isFloatingType(dtype))
    neg_flag = decimals < 0
    ten_pow_decimals = 10.0 ** abs(decimals)

    def compute(a: np.ndarray) -> np.ndarray:
        ten = a.dtype.type(ten_pow_decimals)
        return np.rint(a / ten) * ten if neg_flag else np.rint(a * ten) / ten

    cpu_kernel_vec(it, unary_loop(compute))


def signbit_kernel(it: TensorIteratorBase) -> None:
    """std::signbit for floating dtypes, `a < 0` for integers (bools never get here)."""
    dtype = it.input_dtype()

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        out[...] = np.signbit(a) if isFloatingType(dtype) else a < 0

    cpu_kernel(it, loop)


REGISTER_DISPATCH(
    STUBS["round_decimals"],
    traced("kernel", "at::native::round_decimals_kernel", SOURCE, legacy="round_decimals_kernel")(
        round_decimals_kernel
    ),
)
REGISTER_DISPATCH(
    STUBS["signbit"],
    traced("kernel", "at::native::signbit_kernel", SOURCE, legacy="signbit_kernel")(signbit_kernel),
)
