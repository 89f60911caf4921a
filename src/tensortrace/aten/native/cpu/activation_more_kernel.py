"""The CPU kernels of hardsigmoid, hardswish, hardshrink, softshrink (and their shared
backward), and prelu with its backward.

Mirrors those kernels of `aten/src/ATen/native/cpu/Activation.cpp` (hardsigmoid_kernel,
hardswish_kernel, hardshrink_kernel, softshrink_kernel, shrink_backward_kernel, prelu_kernel,
prelu_backward_kernel): each checks its AT_DISPATCH switch and computes one NumPy expression in
opmath (float for Half and BFloat16) in place of the scalar and Vectorized lambdas.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.activation_more import (
    hardshrink_stub,
    hardsigmoid_backward_stub,
    hardsigmoid_stub,
    hardswish_backward_stub,
    hardswish_stub,
    prelu_backward_stub,
    prelu_stub,
    shrink_backward_stub,
    softshrink_stub,
)
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.opmath_type import scalar_to, to_opmath
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/Activation.cpp"
_FLOATS = (ScalarType.Float, ScalarType.Double, ScalarType.Half, ScalarType.BFloat16)


def _kernel(name: str, dispatch_name: str, fn: Any) -> Any:
    """A kernel over a unary or binary iterator: `fn(dtype, *scalars)` returns the loop's math."""

    @traced("kernel", f"at::native::(anonymous)::{name}", SOURCE)
    def kernel(it: TensorIteratorBase, *scalars: Any) -> None:
        dtype = it.dtype()
        AT_DISPATCH_CHECK(dispatch_name, dtype, dtype in _FLOATS)
        math = fn(dtype, *scalars)

        def loop(out: np.ndarray, *inputs: np.ndarray) -> None:
            store(out, math, *inputs)

        cpu_kernel_vec(it, loop)

    kernel.__name__ = name
    return kernel


def _hardsigmoid(dtype: ScalarType) -> Any:
    # min(max(x + 3, 0), 6) / 6
    return lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6


def _hardsigmoid_backward(dtype: ScalarType) -> Any:
    # (grad_output, self): grad / 6 inside (-3, 3), else 0
    return lambda g, x: np.where((x > -3) & (x < 3), g / 6, 0)


def _hardswish(dtype: ScalarType) -> Any:
    # x * min(max(x + 3, 0), 6) / 6
    return lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6


def _hardswish_backward(dtype: ScalarType) -> Any:
    def math(g: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.where(x < -3, 0, np.where(x <= 3, g * ((x / 3) + 0.5), g))

    return math


def _hardshrink(dtype: ScalarType, lambd: Any) -> Any:
    lam = scalar_to(lambd, dtype)
    neg_lam = np.negative(lam)
    return lambda x: np.where((x >= neg_lam) & (x <= lam), 0, x)


def _softshrink(dtype: ScalarType, lambd: Any) -> Any:
    lam = scalar_to(lambd, dtype)
    neg_lam = np.negative(lam)
    # x > lambd ? x - lambd : (x < neg_lambd ? x + lambd : x * 0)
    return lambda x: np.where(x > lam, x - lam, np.where(x < neg_lam, x + lam, x * 0))


def _shrink_backward(dtype: ScalarType, lambd: Any) -> Any:
    lam = scalar_to(lambd, dtype)
    neg_lam = np.negative(lam)
    # (grad, self): 0 inside [-lambd, lambd], else grad
    return lambda g, x: np.where((x >= neg_lam) & (x <= lam), 0, g)


def _prelu(dtype: ScalarType) -> Any:
    # (input, weight): input > 0 ? input : weight * input
    return lambda x, w: np.where(x > 0, x, w * x)


for _stub, _name, _dispatch, _fn in (
    (hardsigmoid_stub, "hardsigmoid_kernel", "hardsigmoid_cpu", _hardsigmoid),
    (
        hardsigmoid_backward_stub,
        "hardsigmoid_backward_kernel",
        "hardsigmoid_backward",
        _hardsigmoid_backward,
    ),
    (hardswish_stub, "hardswish_kernel", "hardswish_cpu", _hardswish),
    (
        hardswish_backward_stub,
        "hardswish_backward_kernel",
        "hardswish_backward_cpu",
        _hardswish_backward,
    ),
    (hardshrink_stub, "hardshrink_kernel", "hardshrink_cpu", _hardshrink),
    (softshrink_stub, "softshrink_kernel", "softshrink_cpu", _softshrink),
    (shrink_backward_stub, "shrink_backward_kernel", "shrink_backward_cpu", _shrink_backward),
    (prelu_stub, "prelu_kernel", "prelu_cpu", _prelu),
):
    REGISTER_DISPATCH(_stub, _kernel(_name, _dispatch, _fn))


@traced("kernel", "at::native::(anonymous)::prelu_backward_kernel", SOURCE)
def prelu_backward_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("prelu_backward_cpu", dtype, dtype in _FLOATS)

    def loop(
        grad_self: np.ndarray,
        grad_weight: np.ndarray,
        x: np.ndarray,
        w: np.ndarray,
        g: np.ndarray,
    ) -> None:
        x, w, g = to_opmath(x, w, g)
        positive = x > 0
        grad_self[...] = np.where(positive, g, w * g)
        grad_weight[...] = np.where(positive, 0, x * g)

    cpu_kernel(it, loop)


REGISTER_DISPATCH(prelu_backward_stub, prelu_backward_kernel)
