"""The kernels of sigmoid_backward, tanh_backward and threshold (threshold_backward).

Mirrors `aten/src/ATen/native/cpu/BinaryOpsKernel.cpp` (sigmoid_backward_kernel:
grad * (1 - y) * y; tanh_backward_kernel: grad * (1 - y * y)) and
`aten/src/ATen/native/cpu/Activation.cpp` (threshold_kernel: x <= threshold ? value : other).
Half and BFloat16 compute in float and round once (binary_loop).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.activation_backward import (
    sigmoid_backward_stub,
    tanh_backward_stub,
    threshold_stub,
)
from tensortrace.aten.native.cpu.binary_ops_kernel import binary_loop
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.opmath_type import scalar_to
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

BINARY = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"
ACTIVATION = "aten/src/ATen/native/cpu/Activation.cpp"


def _sigmoid_backward(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    one = y.dtype.type(1)
    return grad * (one - y) * y


def _tanh_backward(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    one = y.dtype.type(1)
    return grad * (one - y * y)


@traced("kernel", "at::native::sigmoid_backward_kernel", BINARY)
def sigmoid_backward_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, binary_loop(_sigmoid_backward))


@traced("kernel", "at::native::tanh_backward_kernel", BINARY)
def tanh_backward_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, binary_loop(_tanh_backward))


@traced("kernel", "at::native::threshold_kernel", ACTIVATION)
def threshold_kernel(it: TensorIteratorBase, threshold_scalar: Scalar, value_scalar: Scalar
                     ) -> None:
    dtype = it.common_dtype()
    threshold = scalar_to(threshold_scalar, dtype)
    value = scalar_to(value_scalar, dtype)

    def loop(x: np.ndarray, other: np.ndarray) -> np.ndarray:
        return np.where(x <= threshold, x.dtype.type(value), other)

    cpu_kernel_vec(it, binary_loop(loop))


REGISTER_DISPATCH(sigmoid_backward_stub, sigmoid_backward_kernel)
REGISTER_DISPATCH(tanh_backward_stub, tanh_backward_kernel)
REGISTER_DISPATCH(threshold_stub, threshold_kernel)
