"""The unary kernels: neg, abs, exp, log, sqrt, sin, cos, tanh, sigmoid, reciprocal,
bitwise_not and logical_not.

Mirrors `aten/src/ATen/native/cpu/UnaryOpsKernel.cpp`: REGISTER_DISPATCH(<op>_stub, &<op>_kernel)
with cpu_kernel_vec. PyTorch's Vectorized<float> transcendental functions (exp, log, sin, tanh)
come from SLEEF, whose results may differ from NumPy's libm in the last bit; sqrt, neg, abs and
reciprocal are exact in both. Half and BFloat16 compute in float and round once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.unary_ops import STUBS
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"
Unary = Callable[[np.ndarray], np.ndarray]


def unary_loop(fn: Unary) -> Callable[[np.ndarray, np.ndarray], None]:
    def loop(out: np.ndarray, a: np.ndarray) -> None:
        store(out, fn, a)

    return loop


def _sigmoid(a: np.ndarray) -> np.ndarray:
    # sigmoid_kernel: (1 + exp(-a)).reciprocal()
    one = a.dtype.type(1)
    return one / (one + np.exp(-a))


def _reciprocal(a: np.ndarray) -> np.ndarray:
    return a.dtype.type(1) / a


FLOAT_KERNELS: dict[str, Unary] = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    "reciprocal": _reciprocal,
}


def _register(name: str, kernel: Callable[[TensorIteratorBase], None]) -> None:
    kernel.__name__ = f"{name}_kernel"
    traced_kernel = traced("kernel", f"at::native::{name}_kernel", SOURCE, legacy=f"{name}_kernel")(
        kernel
    )
    REGISTER_DISPATCH(STUBS[name], traced_kernel)


def _float_kernel(fn: Unary) -> Callable[[TensorIteratorBase], None]:
    def kernel(it: TensorIteratorBase) -> None:
        # unary_float_op promoted ints and bools, so the dtype is always floating here
        cpu_kernel_vec(it, unary_loop(fn))

    return kernel


for _name, _fn in FLOAT_KERNELS.items():
    _register(_name, _float_kernel(_fn))


def neg_kernel(it: TensorIteratorBase) -> None:
    cpu_kernel_vec(it, unary_loop(np.negative))  # integers wrap: -(-128) is -128 in int8


def abs_kernel(it: TensorIteratorBase) -> None:
    dtype = it.dtype()
    AT_DISPATCH_CHECK("abs_cpu", dtype, dtype != ScalarType.Bool)
    cpu_kernel_vec(it, unary_loop(np.abs))


def bitwise_not_kernel(it: TensorIteratorBase) -> None:
    dtype = it.dtype()
    if dtype == ScalarType.Bool:
        cpu_kernel(it, unary_loop(np.logical_not))  # ~True is False, not -2
        return
    AT_DISPATCH_CHECK("bitwise_not_cpu", dtype, isIntegralType(dtype, False))
    cpu_kernel_vec(it, unary_loop(np.invert))


def logical_not_kernel(it: TensorIteratorBase) -> None:
    # dispatches on the input's dtype and the output's separately: !a, cast to the output
    cpu_kernel(it, unary_loop(np.logical_not))


_register("neg", neg_kernel)
_register("abs", abs_kernel)
_register("bitwise_not", bitwise_not_kernel)
_register("logical_not", logical_not_kernel)
