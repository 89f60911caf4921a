"""The CPU kernels of binary_cross_entropy, smooth_l1 and huber (each with its backward).

Mirrors the lambdas of `aten/src/ATen/native/Loss.cpp` (binary_cross_entropy_out_cpu's, with its
input-range checks), `cpu/BinaryOpsKernel.cpp` (smooth_l1_kernel, huber_kernel) and
`cpu/PointwiseOpsKernel.cpp` (smooth_l1_backward_cpu_kernel, huber_backward_cpu_kernel), each
one NumPy expression computed in opmath.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.loss_extra import (
    binary_cross_entropy_backward_stub,
    binary_cross_entropy_stub,
    huber_backward_stub,
    huber_stub,
    smooth_l1_backward_stub,
    smooth_l1_stub,
)
from tensortrace.aten.opmath_type import scalar_to
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

LOSS = "aten/src/ATen/native/Loss.cpp"
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)
EPSILON = 1e-12


@traced("kernel", "at::native::binary_cross_entropy_kernel", LOSS)
def binary_cross_entropy_kernel(it: TensorIteratorBase) -> None:
    AT_DISPATCH_CHECK("binary_cross_entropy", it.dtype(), it.dtype() in _FLOATS)

    def math(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        TORCH_CHECK(
            bool(np.all((x >= 0) & (x <= 1))), "all elements of input should be between 0 and 1"
        )
        TORCH_CHECK(
            bool(np.all((y >= 0) & (y <= 1))), "all elements of target should be between 0 and 1"
        )
        # L = -w (y ln(x) + (1-y) ln(1-x)), each log clamped at -100
        return (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)

    cpu_kernel(it, lambda out, x, y: store(out, math, x, y))


@traced("kernel", "at::native::binary_cross_entropy_backward_kernel", LOSS)
def binary_cross_entropy_backward_kernel(it: TensorIteratorBase) -> None:
    AT_DISPATCH_CHECK("binary_cross_entropy_backward", it.dtype(), it.dtype() in _FLOATS)

    def math(g: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        # d(L)/d(x) = -w (y - x) / (x - x^2)
        return g * (x - y) / np.maximum((1 - x) * x, EPSILON)

    cpu_kernel(it, lambda out, g, x, y: store(out, math, g, x, y))


@traced(
    "kernel",
    "at::native::(anonymous)::smooth_l1_kernel",
    "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp",
)
def smooth_l1_kernel(it: TensorIteratorBase, beta: float) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("smooth_l1_cpu", dtype, dtype in _FLOATS)
    b: Any = scalar_to(beta, dtype)

    def math(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        z = np.abs(x - y)
        return np.where(z < b, 0.5 * z * z / b, z - 0.5 * b)

    cpu_kernel_vec(it, lambda out, x, y: store(out, math, x, y))


@traced(
    "kernel",
    "at::native::(anonymous)::smooth_l1_backward_cpu_kernel",
    "aten/src/ATen/native/cpu/PointwiseOpsKernel.cpp",
)
def smooth_l1_backward_cpu_kernel(it: TensorIteratorBase, norm: float, beta: float) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("smooth_l1_backward_cpu_out", dtype, dtype in _FLOATS)
    n: Any = scalar_to(norm, dtype)
    b: Any = scalar_to(beta, dtype)

    def math(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> Any:
        d = x - y
        return np.where(d <= -b, -n * g, np.where(d >= b, n * g, n * d * g / b))

    cpu_kernel_vec(it, lambda out, x, y, g: store(out, math, x, y, g))


@traced(
    "kernel",
    "at::native::(anonymous)::huber_kernel",
    "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp",
)
def huber_kernel(it: TensorIteratorBase, delta: float) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("huber_cpu", dtype, dtype in _FLOATS)
    d: Any = scalar_to(delta, dtype)

    def math(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        z = np.abs(x - y)
        return np.where(z < d, 0.5 * z * z, d * (z - 0.5 * d))

    cpu_kernel_vec(it, lambda out, x, y: store(out, math, x, y))


@traced(
    "kernel",
    "at::native::(anonymous)::huber_backward_cpu_kernel",
    "aten/src/ATen/native/cpu/PointwiseOpsKernel.cpp",
)
def huber_backward_cpu_kernel(it: TensorIteratorBase, norm: float, delta: float) -> None:
    dtype = it.dtype(0)
    AT_DISPATCH_CHECK("huber_backward_cpu_out", dtype, dtype in _FLOATS)
    n: Any = scalar_to(norm, dtype)
    d: Any = scalar_to(delta, dtype)

    def math(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> Any:
        z = x - y
        return np.where(z <= -d, -n * g * d, np.where(z >= d, n * g * d, n * z * g))

    cpu_kernel_vec(it, lambda out, x, y, g: store(out, math, x, y, g))


REGISTER_DISPATCH(binary_cross_entropy_stub, binary_cross_entropy_kernel)
REGISTER_DISPATCH(binary_cross_entropy_backward_stub, binary_cross_entropy_backward_kernel)
REGISTER_DISPATCH(smooth_l1_stub, smooth_l1_kernel)
REGISTER_DISPATCH(smooth_l1_backward_stub, smooth_l1_backward_cpu_kernel)
REGISTER_DISPATCH(huber_stub, huber_kernel)
REGISTER_DISPATCH(huber_backward_stub, huber_backward_cpu_kernel)
