"""The CPU kernels of torch.nn's activations and their backward: log_sigmoid, threshold (ReLU's
backward), elu, leaky_relu, softplus, gelu, silu, mish, hardtanh_backward, glu, and
sigmoid_backward / tanh_backward.

Mirrors `aten/src/ATen/native/cpu/Activation.cpp` (log_sigmoid_cpu_kernel, threshold_kernel,
elu_kernel, GeluKernelImpl ...) and the sigmoid_backward / tanh_backward kernels of
`cpu/BinaryOpsKernel.cpp`, each a NumPy expression in place of the scalar and Vectorized
lambdas, computed in opmath.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensortrace.aten.native.activation import (
    log_sigmoid_cpu_stub,
    sigmoid_backward_stub,
    tanh_backward_stub,
    threshold_stub,
)
from tensortrace.aten.native.activation_extra import (
    TANH_GELU,
    GeluBackwardKernel,
    GeluKernel,
    elu_backward_stub,
    elu_stub,
    hardtanh_backward_stub,
    leaky_relu_backward_stub,
    leaky_relu_stub,
    log_sigmoid_backward_stub,
    mish_backward_stub,
    mish_stub,
    silu_backward_stub,
    silu_stub,
    softplus_backward_stub,
    softplus_stub,
)
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK, binary_loop
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.gated_linear_unit import glu_backward_stub, glu_stub
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
    # AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16): no bool, no complex
    AT_DISPATCH_CHECK("threshold_cpu", dtype, dtype != ScalarType.Bool and not isComplexType(dtype))
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


# ---- the activations of torch.nn (Activation.cpp's kernels) --------------------------------------
# Each kernel checks its AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16) switch and computes in
# opmath (float for Half/BFloat16), one NumPy expression for the scalar and Vectorized lambdas.
def _activation(name: str, fn: Any, dtype_of: str = "common") -> Any:
    """A kernel over a unary or binary iterator: `fn(dtype)` returns the loop's math."""

    @traced("kernel", f"at::native::(anonymous)::{name}", SOURCE)
    def kernel(it: TensorIteratorBase, *scalars: Any) -> None:
        dtype = it.common_dtype() if dtype_of == "common" else it.dtype()
        AT_DISPATCH_CHECK(_DISPATCH_NAMES[name], dtype, dtype in _FLOATS)
        math = fn(dtype, *scalars)

        def loop(out: np.ndarray, *inputs: np.ndarray) -> None:
            store(out, math, *inputs)

        cpu_kernel_vec(it, loop)

    kernel.__name__ = name
    return kernel


_DISPATCH_NAMES = {
    "elu_kernel": "elu_cpu",
    "elu_backward_kernel": "elu_backward_cpu",
    "leaky_relu_kernel": "leaky_relu_cpu",
    "leaky_relu_backward_kernel": "leaky_relu_backward_cpu",
    "softplus_kernel": "softplus_cpu",
    "softplus_backward_kernel": "softplus_backward_cpu",
    "GeluKernelImpl": "GeluKernelImpl",
    "GeluBackwardKernelImpl": "GeluBackwardKernelImpl",
    "silu_kernel": "silu_cpu",
    "silu_backward_kernel": "silu_backward_cpu",
    "mish_kernel": "mish_cpu",
    "mish_backward_kernel": "mish_backward_cpu",
    "hardtanh_backward_kernel": "hardtanh_backward_cpu",
    "log_sigmoid_backward_cpu_kernel": "log_sigmoid_backward_cpu",
    "glu_kernel": "glu_cpu",
    "glu_backward_kernel": "glu_backward_cpu",
}


def _elu(dtype: ScalarType, alpha: Any, scale: Any, input_scale: Any) -> Any:
    negcoef = np.multiply(scalar_to(alpha, dtype), scalar_to(scale, dtype))
    poscoef, negiptcoef = scalar_to(scale, dtype), scalar_to(input_scale, dtype)
    return lambda x: np.where(x <= 0, np.expm1(x * negiptcoef) * negcoef, x * poscoef)


def _elu_backward(
    dtype: ScalarType, alpha: Any, scale: Any, input_scale: Any, is_result: bool
) -> Any:
    negcoef = np.multiply(scalar_to(alpha, dtype), scalar_to(scale, dtype))
    poscoef, negiptcoef = scalar_to(scale, dtype), scalar_to(input_scale, dtype)
    if is_result:  # b is the forward's output
        return lambda a, b: np.where(b <= 0, a * negiptcoef * (b + negcoef), a * poscoef)
    return lambda a, b: np.where(
        b <= 0, a * negiptcoef * negcoef * np.exp(b * negiptcoef), a * poscoef
    )


def _leaky_relu(dtype: ScalarType, negval: Any) -> Any:
    neg = scalar_to(negval, dtype)
    return lambda a: np.where(a > 0, a, a * neg)


def _leaky_relu_backward(dtype: ScalarType, negval: Any) -> Any:
    neg = scalar_to(negval, dtype)
    return lambda a, b: np.where(a > 0, b, b * neg)  # (self_or_result, grad_output)


def _softplus(dtype: ScalarType, beta: Any, threshold: Any) -> Any:
    b, th = scalar_to(beta, dtype), scalar_to(threshold, dtype)
    return lambda a: np.where(a * b > th, a, np.log1p(np.exp(a * b)) / b)


def _softplus_backward(dtype: ScalarType, beta: Any, threshold: Any) -> Any:
    b, th = scalar_to(beta, dtype), scalar_to(threshold, dtype)

    def math(grad: np.ndarray, a: np.ndarray) -> np.ndarray:
        z = np.exp(a * b)
        return np.where(a * b > th, grad, grad * z / (z + 1))

    return math


_M_SQRT1_2 = 0.70710678118654752440
_M_2_SQRTPI = 1.12837916709551257390
_K_BETA = np.sqrt(2.0) * _M_2_SQRTPI * 0.5  # sqrt(2 / pi)
_K_KAPPA = 0.044715


_erf_object = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    """std::erf, element by element in double (ATen's Vectorized erf is a polynomial in the
    lane's type: float32 results may differ from torch's in the last bit)."""
    return np.asarray(_erf_object(x), dtype=x.dtype)


def _gelu(dtype: ScalarType, approximate: int) -> Any:
    if approximate == TANH_GELU:
        return lambda x: 0.5 * x * (1 + np.tanh(_K_BETA * (x + _K_KAPPA * x * x * x)))
    return lambda x: x * 0.5 * (1 + _erf(x * _M_SQRT1_2))


def _gelu_backward(dtype: ScalarType, approximate: int) -> Any:
    if approximate == TANH_GELU:

        def tanh_math(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
            x_sq = x * x
            inner = _K_BETA * (x + _K_KAPPA * x_sq * x)
            tanh_inner = np.tanh(inner)
            left, right = 0.5 * x, 1 + tanh_inner
            left_derivative = 0.5 * right
            right_derivative = (
                left * (1 - tanh_inner * tanh_inner) * _K_BETA * (1 + 3 * _K_KAPPA * x_sq)
            )
            return dy * (left_derivative + right_derivative)

        return tanh_math
    k_alpha = _M_2_SQRTPI * _M_SQRT1_2 * 0.5

    def math(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
        cdf = 0.5 * (1 + _erf(x * _M_SQRT1_2))
        pdf = k_alpha * np.exp(x * x * -0.5)
        return dy * (cdf + x * pdf)

    return math


def _silu(dtype: ScalarType) -> Any:
    return lambda x: x / (1 + np.exp(-x))


def _silu_backward(dtype: ScalarType) -> Any:
    def math(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
        sigmoid = 1 / (1 + np.exp(-x))
        return dy * sigmoid * (1 + x * (1 - sigmoid))

    return math


def _mish(dtype: ScalarType) -> Any:
    return lambda x: x * np.tanh(np.log1p(np.exp(x)))


def _mish_backward(dtype: ScalarType) -> Any:
    def math(dy: np.ndarray, x: np.ndarray) -> np.ndarray:
        sigmoid = 1 / (1 + np.exp(-x))
        tanh_softplus = np.tanh(np.log1p(np.exp(x)))
        return dy * (tanh_softplus + x * sigmoid * (1 - tanh_softplus * tanh_softplus))

    return math


def _hardtanh_backward(dtype: ScalarType, min_val: Any, max_val: Any) -> Any:
    lo, hi = scalar_to(min_val, dtype), scalar_to(max_val, dtype)
    return lambda grad, x: np.where((x <= lo) | (x >= hi), 0, grad)


def _log_sigmoid_backward(dtype: ScalarType) -> Any:
    # (input, buffer, grad_output): buffer is exp(-|x|), the forward's
    def math(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        in_negative = a < 0
        max_deriv = np.where(in_negative, 1, 0)
        sign = np.where(in_negative, 1, -1)
        return (max_deriv - sign * (b / (1 + b))) * c

    return math


def _glu(dtype: ScalarType) -> Any:
    return lambda a, b: a * (1 / (1 + np.exp(-b)))


def _glu_backward(dtype: ScalarType) -> Any:
    # (sigmoid(second half), first half, grad_output)
    return lambda a, b, c: (1 - a) * a * b * c


for _stub, _name, _fn, _dtype_of in (
    (elu_stub, "elu_kernel", _elu, "common"),
    (elu_backward_stub, "elu_backward_kernel", _elu_backward, "dtype"),
    (leaky_relu_stub, "leaky_relu_kernel", _leaky_relu, "dtype"),
    (leaky_relu_backward_stub, "leaky_relu_backward_kernel", _leaky_relu_backward, "dtype"),
    (softplus_stub, "softplus_kernel", _softplus, "dtype"),
    (softplus_backward_stub, "softplus_backward_kernel", _softplus_backward, "dtype"),
    (GeluKernel, "GeluKernelImpl", _gelu, "dtype"),
    (GeluBackwardKernel, "GeluBackwardKernelImpl", _gelu_backward, "dtype"),
    (silu_stub, "silu_kernel", _silu, "dtype"),
    (silu_backward_stub, "silu_backward_kernel", _silu_backward, "dtype"),
    (mish_stub, "mish_kernel", _mish, "dtype"),
    (mish_backward_stub, "mish_backward_kernel", _mish_backward, "dtype"),
    (hardtanh_backward_stub, "hardtanh_backward_kernel", _hardtanh_backward, "dtype"),
    (log_sigmoid_backward_stub, "log_sigmoid_backward_cpu_kernel", _log_sigmoid_backward, "common"),
    (glu_stub, "glu_kernel", _glu, "dtype"),
    (glu_backward_stub, "glu_backward_kernel", _glu_backward, "dtype"),
):
    REGISTER_DISPATCH(_stub, _activation(_name, _fn, _dtype_of))
