"""The CPU softmax kernels: softmax, log_softmax and their backward, along the last dim or not.

Mirrors `aten/src/ATen/native/cpu/SoftMaxKernel.cpp` (_vec_softmax_lastdim, _vec_log_softmax,
_vec_softmax_backward ...): each AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half) over the
contiguous input, subtracting the max before exp (so large logits do not overflow), with
16-bit floats computed in float and rounded once. Here the walk over rows is one NumPy call
along `dim`.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.soft_max import (
    log_softmax_backward_kernel,
    log_softmax_backward_lastdim_kernel,
    log_softmax_kernel,
    log_softmax_lastdim_kernel,
    softmax_backward_kernel,
    softmax_backward_lastdim_kernel,
    softmax_kernel,
    softmax_lastdim_kernel,
)
from tensortrace.aten.opmath_type import to_opmath
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/SoftMaxKernel.cpp"
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def _dispatch(name: str, t: Tensor) -> None:
    """AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half, ...)'s error for other dtypes."""
    TORCH_CHECK_NOT_IMPLEMENTED(
        t.scalar_type() in _FLOATS, '"', name, "\" not implemented for '", t.scalar_type(), "'"
    )


def _softmax(x: np.ndarray, dim: int, log: bool) -> np.ndarray:
    # a row all -inf (attention's fully masked row) is NaN, silently as in C++
    with np.errstate(invalid="ignore"):
        shifted = x - np.max(x, axis=dim, keepdims=True)
    exp = np.exp(shifted)
    total = np.sum(exp, axis=dim, keepdims=True)
    if log:
        return shifted - np.log(total)
    return exp * (1 / total)  # _vec_softmax_lastdim multiplies by the reciprocal of the sum


def _forward(name: str, log: bool):  # noqa: ANN202 - a kernel factory
    @traced("kernel", f"at::native::(anonymous)::{name}", SOURCE, legacy=name)
    def kernel(result: Tensor, self: Tensor, dim: int) -> None:
        _dispatch(name, self)
        (x,) = to_opmath(self.numpy_view())
        result.numpy_view()[...] = _softmax(x, dim, log).reshape(result.sizes())

    return kernel


def _backward(name: str, log: bool):  # noqa: ANN202 - a kernel factory
    @traced("kernel", f"at::native::(anonymous)::{name}", SOURCE, legacy=name)
    def kernel(grad_input: Tensor, grad: Tensor, output: Tensor, dim: int) -> None:
        _dispatch(name, grad)
        g, out = to_opmath(grad.numpy_view(), output.numpy_view())
        if log:  # grad - exp(output) * sum(grad)
            value = g - np.exp(out) * np.sum(g, axis=dim, keepdims=True)
        else:  # output * (grad - sum(grad * output))
            value = out * (g - np.sum(g * out, axis=dim, keepdims=True))
        grad_input.numpy_view()[...] = value.reshape(grad_input.sizes())

    return kernel


REGISTER_DISPATCH(softmax_lastdim_kernel, _forward("softmax_lastdim_kernel_impl", False))
REGISTER_DISPATCH(softmax_kernel, _forward("softmax_kernel_impl", False))
REGISTER_DISPATCH(log_softmax_lastdim_kernel, _forward("log_softmax_lastdim_kernel_impl", True))
REGISTER_DISPATCH(log_softmax_kernel, _forward("log_softmax_kernel_impl", True))
REGISTER_DISPATCH(
    softmax_backward_lastdim_kernel, _backward("softmax_backward_lastdim_kernel_impl", False)
)
REGISTER_DISPATCH(softmax_backward_kernel, _backward("softmax_backward_kernel_impl", False))
REGISTER_DISPATCH(
    log_softmax_backward_lastdim_kernel, _backward("log_softmax_backward_lastdim_kernel_impl", True)
)
REGISTER_DISPATCH(log_softmax_backward_kernel, _backward("log_softmax_backward_kernel_impl", True))
