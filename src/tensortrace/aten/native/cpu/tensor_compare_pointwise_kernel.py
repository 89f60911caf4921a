"""clamp and where kernels: the pointwise kernels of TensorCompareKernel.cpp.

Mirrors `aten/src/ATen/native/cpu/TensorCompareKernel.cpp` (where_kernel_impl,
clamp_kernel_impl) and the scalar clamp kernels of `UnaryOpsKernel.cpp`
(clamp_scalar_kernel_impl, clamp_min_scalar_kernel_impl, clamp_max_scalar_kernel_impl); the
max/min reduction kernels of the same file are in tensor_compare_kernel.py. The Vectorized paths
use vec::minimum / vec::maximum, which propagate NaN, as np.minimum / np.maximum do.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.tensor_compare_pointwise import (
    clamp_max_scalar_stub,
    clamp_min_scalar_stub,
    clamp_scalar_stub,
    clamp_stub,
    where_kernel,
)
from tensortrace.aten.opmath_type import scalar_to, to_opmath
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/TensorCompareKernel.cpp"
UNARY_SOURCE = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"


@traced("kernel", "at::native::where_kernel_impl", SOURCE, legacy="where_kernel_impl")
def where_kernel_impl(it: TensorIteratorBase) -> None:
    def loop(out: np.ndarray, cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        out[...] = np.where(cond, a, b)

    cpu_kernel(it, loop)


@traced("kernel", "at::native::clamp_kernel_impl", SOURCE, legacy="clamp_kernel_impl")
def clamp_kernel_impl(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("clamp_cpu", dtype, dtype != ScalarType.Bool)

    def loop(out: np.ndarray, a: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        a, lo, hi = to_opmath(a, lo, hi)
        out[...] = np.minimum(np.maximum(a, lo), hi)

    cpu_kernel_vec(it, loop)


def _bound(value: Scalar, dtype: ScalarType) -> np.generic:
    """min_.to<scalar_t>() (checked against scalar_t), then loaded as opmath for the compare."""
    bound = scalar_to(value, dtype, opmath=False)
    return np.float32(bound) if dtype in (ScalarType.Half, ScalarType.BFloat16) else bound


@traced(
    "kernel",
    "at::native::clamp_scalar_kernel_impl",
    UNARY_SOURCE,
    legacy="clamp_scalar_kernel_impl",
)
def clamp_scalar_kernel_impl(it: TensorIteratorBase, min_: Scalar, max_: Scalar) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("clamp_scalar_cpu", dtype, dtype != ScalarType.Bool)
    lo, hi = _bound(min_, dtype), _bound(max_, dtype)

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        (a,) = to_opmath(a)
        out[...] = np.minimum(np.maximum(a, lo), hi)

    cpu_kernel_vec(it, loop)


@traced(
    "kernel",
    "at::native::clamp_min_scalar_kernel_impl",
    UNARY_SOURCE,
    legacy="clamp_min_scalar_kernel_impl",
)
def clamp_min_scalar_kernel_impl(it: TensorIteratorBase, min_: Scalar) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("clamp_min_scalar_cpu", dtype, dtype != ScalarType.Bool)
    lo = _bound(min_, dtype)

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        store(out, np.maximum, a, lo)

    cpu_kernel_vec(it, loop)


@traced(
    "kernel",
    "at::native::clamp_max_scalar_kernel_impl",
    UNARY_SOURCE,
    legacy="clamp_max_scalar_kernel_impl",
)
def clamp_max_scalar_kernel_impl(it: TensorIteratorBase, max_: Scalar) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("clamp_max_scalar_cpu", dtype, dtype != ScalarType.Bool)
    hi = _bound(max_, dtype)

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        store(out, np.minimum, a, hi)

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(where_kernel, where_kernel_impl)
REGISTER_DISPATCH(clamp_stub, clamp_kernel_impl)
REGISTER_DISPATCH(clamp_scalar_stub, clamp_scalar_kernel_impl)
REGISTER_DISPATCH(clamp_min_scalar_stub, clamp_min_scalar_kernel_impl)
REGISTER_DISPATCH(clamp_max_scalar_stub, clamp_max_scalar_kernel_impl)
