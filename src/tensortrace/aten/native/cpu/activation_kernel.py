"""The CPU kernels of log_sigmoid, threshold (ReLU's backward), sigmoid_backward, tanh_backward.

Mirrors `aten/src/ATen/native/cpu/Activation.cpp` (log_sigmoid_cpu_kernel, threshold_kernel)
and the sigmoid_backward / tanh_backward kernels of `cpu/BinaryOpsKernel.cpp`, each a NumPy
expression in place of the scalar and Vectorized lambdas, computed in opmath.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.activation import (
    log_sigmoid_cpu_stub,
    sigmoid_backward_stub,
    tanh_backward_stub,
    threshold_stub,
)
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK, binary_loop
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.opmath_type import scalar_to, to_opmath
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/Activation.cpp"
BINARY = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


@traced("kernel", "at::native::(anonymous)::log_sigmoid_cpu_kernel", SOURCE)
def log_sigmoid_cpu_kernel(output: Tensor, buffer: Tensor, input: Tensor) -> None:
    AT_DISPATCH_CHECK("log_sigmoid_cpu", input.scalar_type(), input.scalar_type() in _FLOATS)
    (x,) = to_opmath(input.numpy_view())
    with np.errstate(all="ignore"):
        # min(x, 0) - log1p(exp(-|x|)): no overflow for large |x|; buffer keeps exp(-|x|)
        z = np.exp(-np.abs(x))
        output.numpy_view()[...] = np.minimum(x, 0) - np.log1p(z)
        buffer.numpy_view()[...] = z


@traced("kernel", "at::native::(anonymous)::threshold_kernel", SOURCE)
def threshold_kernel(it: TensorIteratorBase, threshold: Any, value: Any) -> None:
    dtype = it.common_dtype()
    th, val = scalar_to(threshold, dtype), scalar_to(value, dtype)

    def loop(out: np.ndarray, x: np.ndarray, other: np.ndarray) -> None:
        # x <= threshold ? value : other (a NaN x keeps `other`)
        store(out, lambda a, b: np.where(a <= th, val, b), x, other)

    cpu_kernel_vec(it, loop)


def _float_binary(name: str, fn: Any) -> Any:
    @traced("kernel", f"at::native::(anonymous)::{name}", BINARY)
    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        AT_DISPATCH_CHECK(name, dtype, isFloatingType(dtype) or isComplexType(dtype))
        if isComplexType(dtype):  # the complex kernels conjugate the derivative
            cpu_kernel_vec(it, binary_loop(lambda g, y: g * np.conj(fn(1, y))))
            return
        cpu_kernel_vec(it, binary_loop(fn))

    return kernel


REGISTER_DISPATCH(log_sigmoid_cpu_stub, log_sigmoid_cpu_kernel)
REGISTER_DISPATCH(threshold_stub, threshold_kernel)
# grad * (1 - y) * y and grad * (1 - y * y), y being the forward's output
REGISTER_DISPATCH(
    sigmoid_backward_stub, _float_binary("sigmoid_backward_kernel", lambda g, y: g * (1 - y) * y)
)
REGISTER_DISPATCH(
    tanh_backward_stub, _float_binary("tanh_backward_kernel", lambda g, y: g * (1 - y * y))
)
