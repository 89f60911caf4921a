"""The CPU kernels of log1p, expm1, asin ... atanh and frac.

Mirrors their entries in `aten/src/ATen/native/cpu/UnaryOpsKernel.cpp` (cpu_kernel_vec with
Vectorized<T>::log1p ..., SLEEF underneath: may differ from NumPy's libm in the last bit) and
frac_kernel (`a - trunc(a)`, floating dtypes only, as AT_DISPATCH_FLOATING_TYPES_AND2 allows).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.cpu.unary_ops_kernel import unary_loop
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.unary_ops_extra import STUBS, frexp_stub
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"

FLOAT_KERNELS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "log1p": np.log1p,
    "expm1": np.expm1,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}


def _register(name: str, kernel: Callable[[TensorIteratorBase], None]) -> None:
    kernel.__name__ = f"{name}_kernel"
    REGISTER_DISPATCH(
        STUBS[name],
        traced("kernel", f"at::native::{name}_kernel", SOURCE, legacy=f"{name}_kernel")(kernel),
    )


def _float_kernel(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[TensorIteratorBase], None]:
    def kernel(it: TensorIteratorBase) -> None:
        cpu_kernel_vec(it, unary_loop(fn))

    return kernel


for _name, _fn in FLOAT_KERNELS.items():
    _register(_name, _float_kernel(_fn))


def _frac(a: np.ndarray) -> np.ndarray:
    return a - np.trunc(a)


def frac_kernel(it: TensorIteratorBase) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("frac_cpu", dtype, isFloatingType(dtype))
    cpu_kernel_vec(it, unary_loop(_frac))


_register("frac", frac_kernel)


def frexp_kernel(it: TensorIteratorBase) -> None:
    """std::frexp per element: mantissa in [0.5, 1) with self's sign, and the int exponent."""
    mantissa, exponent, values = it.operand_arrays()
    m, e = np.frexp(values.astype(np.float32) if values.dtype.itemsize == 2 else values)
    mantissa[...] = m
    exponent[...] = e
    it.cast_outputs()


REGISTER_DISPATCH(
    frexp_stub,
    traced("kernel", "at::native::frexp_kernel", SOURCE, legacy="frexp_kernel")(frexp_kernel),
)
