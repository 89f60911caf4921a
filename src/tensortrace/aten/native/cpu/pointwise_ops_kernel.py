"""The CPU kernels of addcmul, addcdiv, and the mse loss (forward and backward).

Mirrors `aten/src/ATen/native/cpu/PointwiseOpsKernel.cpp` (addcmul_cpu_kernel,
addcdiv_cpu_kernel, mse_backward_cpu_kernel) and the mse_kernel of `cpu/BinaryOpsKernel.cpp`.
The association order of each expression is the C++ one (`self + value * t1 * t2` is
self + ((value * t1) * t2)), so float32 results round as torch's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.loss import mse_backward_stub, mse_stub
from tensortrace.aten.native.pointwise_ops import addcdiv_stub, addcmul_stub
from tensortrace.aten.opmath_type import scalar_to
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/PointwiseOpsKernel.cpp"
BINARY = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"


@traced("kernel", "at::native::(anonymous)::addcmul_cpu_kernel", SOURCE)
def addcmul_cpu_kernel(it: TensorIteratorBase, value: Any) -> None:
    dtype = it.common_dtype()
    if dtype == ScalarType.Bool:
        vb = bool(value)

        def bool_loop(out: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
            out[...] = a | (vb & b & c)

        cpu_kernel_vec(it, bool_loop)
        return
    v = scalar_to(value, dtype)

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        store(out, lambda x, y, z: x + v * y * z, a, b, c)

    cpu_kernel_vec(it, loop)


@traced("kernel", "at::native::(anonymous)::addcdiv_cpu_kernel", SOURCE)
def addcdiv_cpu_kernel(it: TensorIteratorBase, value: Any) -> None:
    v = scalar_to(value, it.common_dtype())

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        store(out, lambda x, y, z: x + v * y / z, a, b, c)

    cpu_kernel_vec(it, loop)


@traced("kernel", "at::native::(anonymous)::mse_kernel", BINARY)
def mse_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("mse_cpu", dtype, isFloatingType(dtype))

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        def square_diff(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            diff = x - y
            return diff * diff

        store(out, square_diff, a, b)

    cpu_kernel_vec(it, loop)


@traced("kernel", "at::native::(anonymous)::mse_backward_cpu_kernel", SOURCE)
def mse_backward_cpu_kernel(it: TensorIteratorBase, value: float) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("mse_backward_cpu_out", dtype, isFloatingType(dtype))
    v = scalar_to(value, dtype)

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
        store(out, lambda x, y, z: v * (x - y) * z, a, b, c)

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(addcmul_stub, addcmul_cpu_kernel)
REGISTER_DISPATCH(addcdiv_stub, addcdiv_cpu_kernel)
REGISTER_DISPATCH(mse_stub, mse_kernel)
REGISTER_DISPATCH(mse_backward_stub, mse_backward_cpu_kernel)
