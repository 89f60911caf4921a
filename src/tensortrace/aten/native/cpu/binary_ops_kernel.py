"""The binary kernels: add, mul, div (true, trunc, floor), remainder, maximum/minimum,
comparisons, logical and bitwise ops, for every dtype they support.

Mirrors `aten/src/ATen/native/cpu/BinaryOpsKernel.cpp` (and the ufunc codegen for add,
`build/aten/src/ATen/UfuncCPUKernel_add.cpp`): REGISTER_DISPATCH(<op>_stub, &<op>_kernel), an
AT_DISPATCH over the iterator's common dtype, and cpu_kernel_vec with a NumPy expression in
place of the scalar and Vectorized lambdas. Half and BFloat16 compute in float and round once
(opmath_type.py). Integer arithmetic wraps, as C++ does; integer division by zero raises
PyTorch's "ZeroDivisionError" RuntimeError instead of trapping.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.binary_ops import (
    COMPARISON_STUBS,
    add_stub,
    bitwise_and_stub,
    bitwise_or_stub,
    div_floor_stub,
    div_true_stub,
    div_trunc_stub,
    logical_and_stub,
    logical_or_stub,
    maximum_stub,
    minimum_stub,
    mul_stub,
    remainder_stub,
)
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec, store
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.opmath_type import is_reduced_floating_point, scalar_to
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import (
    ScalarType,
    isComplexType,
    isFloatingType,
    isIntegralType,
    kBool,
)
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"
Binary = Callable[[np.ndarray, np.ndarray], np.ndarray]


def AT_DISPATCH_CHECK(name: str, dtype: ScalarType, supported: bool) -> None:
    """The error an AT_DISPATCH_* switch raises for a dtype it has no case for."""
    TORCH_CHECK_NOT_IMPLEMENTED(supported, '"', name, "\" not implemented for '", dtype, "'")


def _kernel(
    name: str, legacy: str | None = None
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return traced("kernel", f"at::native::{name}", SOURCE, legacy=legacy or name)


def binary_loop(fn: Binary) -> Callable[..., None]:
    """A loop(out, a, b) computing fn in opmath (float for Half/BFloat16), stored into out."""

    def loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        store(out, fn, a, b)

    return loop


# the loops of the commonest ops, made once (a closure per call cost a call and its frame)
_ADD_LOOP = binary_loop(np.add)
_SUBTRACT_LOOP = binary_loop(np.subtract)
_MULTIPLY_LOOP = binary_loop(np.multiply)
_TRUE_DIVIDE_LOOP = binary_loop(np.true_divide)


# ---- add (sub is add with -alpha) ----------------------------------------------------------------
@_kernel("add_kernel")
def add_kernel(it: TensorIteratorBase, alpha_scalar: Scalar) -> None:
    dtype = it.common_dtype()
    if dtype is kBool:  # Note [Enum members read once]
        alpha_bool = bool(alpha_scalar)

        def bool_loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
            # bool + alpha * bool, converted back to bool: a or (alpha and b)
            np.logical_or(a, np.logical_and(b, alpha_bool), out=out)

        cpu_kernel(it, bool_loop)
        return

    if is_reduced_floating_point(dtype):
        # The Half/BFloat16 path computes in scalar_t: alpha.to<scalar_t>(), and b * alpha is
        # rounded to 16 bits before the add (torch: h.sub(h, alpha=0.3) rounds twice).
        alpha_t = np.float32(scalar_to(alpha_scalar, dtype, opmath=False))

        def reduced_loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
            scaled = (b.astype(np.float32) * alpha_t).astype(b.dtype)
            out[...] = a.astype(np.float32) + scaled.astype(np.float32)

        cpu_kernel_vec(it, reduced_loop if alpha_t != 1 else _ADD_LOOP)
        return
    alpha = scalar_to(alpha_scalar, dtype)  # alpha_scalar.to<opmath_t>()
    if alpha == 1:
        cpu_kernel_vec(it, _ADD_LOOP)
    elif alpha == -1:  # sub: a + (-1) * b is exactly a - b
        cpu_kernel_vec(it, _SUBTRACT_LOOP)
    else:
        cpu_kernel_vec(it, lambda out, a, b: _scaled_add(out, a, b, alpha))


def _scaled_add(out: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: np.generic) -> None:
    """out = a + alpha * b in two passes over out, with no temporary unless out overlaps a."""
    if np.may_share_memory(out, a):  # in place (a.add_(b, alpha=2)): a must be read first
        out[...] = a + b * alpha
        return
    np.multiply(b, alpha, out=out, casting="unsafe")
    np.add(a, out, out=out, casting="unsafe")


# ---- mul, div ------------------------------------------------------------------------------------
@_kernel("mul_kernel")
def mul_kernel(it: TensorIteratorBase) -> None:
    if it.common_dtype() is kBool:
        cpu_kernel(it, binary_loop(np.logical_and))
    else:
        cpu_kernel_vec(it, _MULTIPLY_LOOP)


@_kernel("div_true_kernel")
def div_true_kernel(it: TensorIteratorBase) -> None:
    # binary_float_op promoted integers to float, so this is always a floating division
    cpu_kernel_vec(it, _TRUE_DIVIDE_LOOP)


def _check_integer_divisor(b: np.ndarray) -> None:
    TORCH_CHECK(not (b == 0).any(), "ZeroDivisionError")


def _trunc_div_integer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C++ `a / b` on integers: the quotient rounded toward zero."""
    _check_integer_divisor(b)
    q = np.floor_divide(a, b)
    # floor and trunc differ when the division is inexact and the signs differ
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


@_kernel("div_trunc_kernel")
def div_trunc_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    if isIntegralType(dtype, False):
        cpu_kernel(it, binary_loop(_trunc_div_integer))
        return
    AT_DISPATCH_CHECK("div_trunc_cpu", dtype, isFloatingType(dtype))
    cpu_kernel_vec(it, binary_loop(lambda a, b: np.trunc(a / b)))


def _floor_div_integer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """div_floor_integer: Python's //, rounding toward negative infinity."""
    _check_integer_divisor(b)
    return np.floor_divide(a, b)


@_kernel("div_floor_kernel")
def div_floor_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    if isIntegralType(dtype, False):
        cpu_kernel(it, binary_loop(_floor_div_integer))
        return
    AT_DISPATCH_CHECK("div_floor_cpu", dtype, isFloatingType(dtype))
    # div_floor_floating is Python's float // (fmod, then correct the rounding): NumPy's
    # floor_divide uses the same algorithm, including x // 0 == +-inf or nan.
    cpu_kernel_vec(it, binary_loop(np.floor_divide))


# ---- remainder -----------------------------------------------------------------------------------
def _remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mod = fmod(a, b); if mod != 0 and sign(b) != sign(mod): mod += b (Python's %)."""
    mod = np.fmod(a, b)
    fix = (mod != 0) & ((b < 0) != (mod < 0))
    return np.where(fix, mod + b, mod)


@_kernel("remainder_kernel")
def remainder_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    if isIntegralType(dtype, False):

        def int_loop(out: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
            _check_integer_divisor(b)
            out[...] = _remainder(a, b)

        cpu_kernel(it, int_loop)
        return
    AT_DISPATCH_CHECK("remainder_cpu", dtype, isFloatingType(dtype))
    cpu_kernel_vec(it, binary_loop(_remainder))


# ---- maximum, minimum: NaN propagates ------------------------------------------------------------
@_kernel("maximum_kernel")
def maximum_kernel(it: TensorIteratorBase) -> None:
    if it.common_dtype() is kBool:
        cpu_kernel(it, binary_loop(np.logical_or))
    else:
        cpu_kernel_vec(it, binary_loop(np.maximum))


@_kernel("minimum_kernel")
def minimum_kernel(it: TensorIteratorBase) -> None:
    if it.common_dtype() is kBool:
        cpu_kernel(it, binary_loop(np.logical_and))
    else:
        cpu_kernel_vec(it, binary_loop(np.minimum))


# ---- comparisons and logical ops: a bool output, or the common dtype's 0 and 1 -------------------
def _register_predicate(stub_name: str, kernel_name: str, fn: Binary) -> None:
    ordered = stub_name in ("lt", "le", "gt", "ge")  # complex numbers have no order

    @_kernel(kernel_name)
    def kernel(it: TensorIteratorBase) -> None:
        if ordered:
            dtype = it.common_dtype()
            AT_DISPATCH_CHECK(f"{stub_name}_cpu", dtype, not isComplexType(dtype))
        cpu_kernel_vec(it, binary_loop(fn))

    kernel.__name__ = kernel_name
    REGISTER_DISPATCH(_PREDICATE_STUBS[stub_name], kernel)


_PREDICATE_STUBS = {
    **COMPARISON_STUBS,
    "logical_and": logical_and_stub,
    "logical_or": logical_or_stub,
}
for _stub, _kernel_name, _fn in (
    ("eq", "eq_kernel", np.equal),
    ("ne", "ne_kernel", np.not_equal),
    ("lt", "lt_kernel", np.less),
    ("le", "le_kernel", np.less_equal),
    ("gt", "gt_kernel", np.greater),
    ("ge", "ge_kernel", np.greater_equal),
    ("logical_and", "logical_and_kernel", np.logical_and),
    ("logical_or", "logical_or_kernel", np.logical_or),
):
    _register_predicate(_stub, _kernel_name, _fn)


# ---- bitwise_and, bitwise_or: bool and integers only ---------------------------------------------
def _register_bitwise(stub_name: str, fn: Binary, logical: Binary) -> None:
    @_kernel(f"{stub_name}_kernel")
    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        if dtype == ScalarType.Bool:
            cpu_kernel(it, binary_loop(logical))
            return
        AT_DISPATCH_CHECK(f"{stub_name}_cpu", dtype, isIntegralType(dtype, False))
        cpu_kernel_vec(it, binary_loop(fn))

    kernel.__name__ = f"{stub_name}_kernel"
    REGISTER_DISPATCH(bitwise_and_stub if stub_name == "bitwise_and" else bitwise_or_stub, kernel)


_register_bitwise("bitwise_and", np.bitwise_and, np.logical_and)
_register_bitwise("bitwise_or", np.bitwise_or, np.logical_or)

REGISTER_DISPATCH(add_stub, add_kernel)
REGISTER_DISPATCH(mul_stub, mul_kernel)
REGISTER_DISPATCH(div_true_stub, div_true_kernel)
REGISTER_DISPATCH(div_trunc_stub, div_trunc_kernel)
REGISTER_DISPATCH(div_floor_stub, div_floor_kernel)
REGISTER_DISPATCH(remainder_stub, remainder_kernel)
REGISTER_DISPATCH(maximum_stub, maximum_kernel)
REGISTER_DISPATCH(minimum_stub, minimum_kernel)
