"""The CPU kernels of atan2, fmod, xlogy, logical_xor, copysign, heaviside, fmax, fmin and
logaddexp.

Mirrors their entries in `aten/src/ATen/native/cpu/BinaryOpsKernel.cpp`: fmod is C's fmod (the
sign of the dividend; an integer division by zero raises "ZeroDivisionError"), xlogy is 0 where
x == 0 unless y is NaN, heaviside is `a == 0 ? b : a > 0`, fmax/fmin ignore a NaN operand
(integers take max/min), logaddexp is `m + log1p(exp(-|a - b|))` (a itself when both are the
same infinity).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.binary_ops_math import STUBS
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK, binary_loop
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isComplexType, isFloatingType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = np.where(x == 0, x.dtype.type(0), x * np.log(y))
    return np.where(np.isnan(y), y.dtype.type(np.nan), result)


def _logaddexp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(a):
        return np.log(np.exp(a) + np.exp(b))
    m = np.maximum(a, b)
    result = m + np.log1p(np.exp(-np.abs(a - b)))
    return np.where(np.isinf(a) & (a == b), a, result)


def _heaviside(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a == 0, b, (a > 0).astype(a.dtype))


def _fmod_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    TORCH_CHECK(not (b == 0).any(), "ZeroDivisionError")
    return np.fmod(a, b)


# name -> (AT_DISPATCH name, floating fn, integral fn or None, complex supported)
Binary = Callable[[np.ndarray, np.ndarray], np.ndarray]
KERNELS: dict[str, tuple[str, Binary, Binary | None, bool]] = {
    "atan2": ("atan2_cpu", np.arctan2, None, False),
    "fmod": ("fmod_cpu", np.fmod, _fmod_int, False),
    "xlogy": ("xlogy_cpu", _xlogy, None, False),
    "copysign": ("copysign_cpu", np.copysign, None, False),
    "fmax": ("fmax_cpu", np.fmax, np.maximum, False),
    "fmin": ("fmin_cpu", np.fmin, np.minimum, False),
    "logaddexp": ("logaddexp_cpu", _logaddexp, None, True),
}


def _kernel(name: str) -> Callable[[TensorIteratorBase], None]:
    dispatch_name, float_fn, int_fn, complex_ok = KERNELS[name]

    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        if isFloatingType(dtype) or (complex_ok and isComplexType(dtype)):
            cpu_kernel_vec(it, binary_loop(float_fn))
            return
        integral = isIntegralType(dtype, name in ("fmax", "fmin"))
        AT_DISPATCH_CHECK(dispatch_name, dtype, int_fn is not None and integral)
        assert int_fn is not None
        cpu_kernel(it, binary_loop(int_fn))

    kernel.__name__ = f"{name}_kernel"
    return kernel


for _name in KERNELS:
    REGISTER_DISPATCH(
        STUBS[_name],
        traced("kernel", f"at::native::{_name}_kernel", SOURCE, legacy=f"{_name}_kernel")(
            _kernel(_name)
        ),
    )


@traced("kernel", "at::native::heaviside_kernel", SOURCE, legacy="heaviside_kernel")
def heaviside_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel(it, binary_loop(_heaviside))


@traced("kernel", "at::native::logical_xor_kernel", SOURCE, legacy="logical_xor_kernel")
def logical_xor_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, binary_loop(np.logical_xor))


REGISTER_DISPATCH(STUBS["heaviside"], heaviside_kernel)
REGISTER_DISPATCH(STUBS["logical_xor"], logical_xor_kernel)
