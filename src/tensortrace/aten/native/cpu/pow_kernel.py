"""pow kernels: tensor ** tensor and tensor ** scalar.

Mirrors `aten/src/ATen/native/cpu/PowKernel.cpp`. Integer powers use exponentiation by squaring
(powi), which wraps on overflow; a negative integer exponent gives 1 for base 1, +-1 for base -1
and 0 otherwise (integer truncation of 1/base**n). pow_tensor_scalar_optimized_kernel turns the
exponents 2, 3, 0.5, -0.5, -1 and -2 into x*x, x*x*x, sqrt, rsqrt, 1/x and 1/(x*x).
Floating pow uses std::pow (or SLEEF's pow in the vectorized path), which may differ from
NumPy's in the last bit.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK, binary_loop
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.cpu.unary_ops_kernel import unary_loop
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.pow import pow_tensor_scalar_stub, pow_tensor_tensor_stub
from tensortrace.aten.opmath_type import scalar_to
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar import toDouble
from tensortrace.c10.scalar_type import (
    ScalarType,
    isComplexType,
    isFloatingType,
    isIntegralType,
    numpy_dtype,
)
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/PowKernel.cpp"


def powi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """c10::powi for integers: negative exponents follow integer truncation of 1 / a**|b|."""
    negative = b < 0
    result = np.power(a, np.where(negative, 0, b).astype(b.dtype))
    if negative.any():
        one = np.ones_like(result)
        # base 1 -> 1; base -1 -> -1 for odd exponents, 1 for even; otherwise 0
        neg_value = np.where(
            a == 1, one, np.where(a == -1, np.where(b % 2 == 0, one, -one), np.zeros_like(result))
        )
        result = np.where(negative, neg_value, result)
    return result


@traced("kernel", "at::native::pow_tensor_tensor_kernel", SOURCE, legacy="pow_tensor_tensor_kernel")
def pow_tensor_tensor_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    if isIntegralType(dtype, False):
        cpu_kernel(it, binary_loop(powi))
        return
    AT_DISPATCH_CHECK("pow", dtype, isFloatingType(dtype) or isComplexType(dtype))
    cpu_kernel_vec(it, binary_loop(_complex_pow if isComplexType(dtype) else np.power))


@traced("kernel", "at::native::pow_tensor_scalar_kernel", SOURCE, legacy="pow_tensor_scalar_kernel")
def pow_tensor_scalar_kernel(it: TensorIteratorBase, exp_scalar: Scalar) -> None:
    dtype = it.common_dtype()
    if isIntegralType(dtype, False):
        exp = scalar_to(exp_scalar, dtype)
        cpu_kernel(it, unary_loop(lambda a: powi(a, np.full(a.shape, exp, dtype=a.dtype))))
        return
    AT_DISPATCH_CHECK("pow", dtype, isFloatingType(dtype) or isComplexType(dtype))
    if isComplexType(dtype):
        _pow_complex_scalar(it, dtype, complex(exp_scalar))
        return
    exp_f = toDouble(exp_scalar)
    # pow_tensor_scalar_optimized_kernel: the exponents with an exact cheaper form
    special: dict[float, Callable[[np.ndarray], np.ndarray]] = {
        2.0: lambda a: a * a,
        3.0: lambda a: a * a * a,
        0.5: np.sqrt,
        -0.5: lambda a: a.dtype.type(1) / np.sqrt(a),
        -1.0: lambda a: a.dtype.type(1) / a,
        -2.0: lambda a: a.dtype.type(1) / (a * a),
    }
    if exp_f in special:
        cpu_kernel_vec(it, unary_loop(special[exp_f]))
        return
    exp_value = scalar_to(
        exp_scalar, ScalarType.Double if dtype == ScalarType.Double else ScalarType.Float
    )
    cpu_kernel_vec(it, unary_loop(lambda a: np.power(a, exp_value)))


def _pow_complex_scalar(it: TensorIteratorBase, dtype: ScalarType, exp: complex) -> None:
    """The complex branch: sqrt, rsqrt and reciprocal for .5, -.5 and -1, then
    pow_tensor_scalar_optimized_kernel (a*a, a*a*a, 1/(a*a)) or std::pow."""
    one = numpy_dtype(dtype).type(1)
    special: dict[float, Callable[[np.ndarray], np.ndarray]] = {
        0.5: np.sqrt,
        -0.5: lambda a: one / np.sqrt(a),
        -1.0: lambda a: one / a,
        2.0: lambda a: a * a,
        3.0: lambda a: a * a * a,
        -2.0: lambda a: one / (a * a),
    }
    if exp.imag == 0 and exp.real in special:
        cpu_kernel_vec(it, unary_loop(special[exp.real]))
        return
    exp_value = numpy_dtype(dtype).type(exp)
    cpu_kernel_vec(it, unary_loop(lambda a: _complex_pow(a, exp_value)))


def _complex_pow(a: np.ndarray, b: np.ndarray | np.generic) -> np.ndarray:
    """std::pow of complex numbers (glibc's cpow): exp(b * log(a)), so 0 ** 0 is NaN."""
    return np.exp(b * np.log(a))


REGISTER_DISPATCH(pow_tensor_tensor_stub, pow_tensor_tensor_kernel)
REGISTER_DISPATCH(pow_tensor_scalar_stub, pow_tensor_scalar_kernel)
