"""The CPU kernels of bitwise_xor, lshift / rshift and hypot.

Mirrors `xor_kernel`, `lshift_kernel`, `rshift_kernel` and `hypot_kernel` in
`aten/src/ATen/native/cpu/BinaryOpsKernel.cpp`: xor on bool is `!=`; a shift by a negative
amount or by at least the type's width gives 0 (left) or the sign fill (right), never C's
undefined behaviour; hypot takes floating dtypes only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.binary_ops_extra import (
    bitwise_xor_stub,
    hypot_stub,
    lshift_stub,
    rshift_stub,
)
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK, binary_loop
from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"


@traced("kernel", "at::native::xor_kernel", SOURCE, legacy="xor_kernel")
def xor_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    if dtype == ScalarType.Bool:
        cpu_kernel(it, binary_loop(np.not_equal))
        return
    AT_DISPATCH_CHECK("bitwise_xor_cpu", dtype, isIntegralType(dtype, False))
    cpu_kernel_vec(it, binary_loop(np.bitwise_xor))


def _lshift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    bits = a.dtype.itemsize * 8
    unsigned = a.astype(np.dtype(f"u{a.dtype.itemsize}"))
    shift = np.clip(b, 0, bits - 1).astype(unsigned.dtype)
    result = np.left_shift(unsigned, shift).astype(a.dtype)
    return np.where((b < 0) | (b >= bits), a.dtype.type(0), result)


def _rshift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    max_shift = a.dtype.itemsize * 8 - (1 if np.issubdtype(a.dtype, np.signedinteger) else 0)
    shift = np.where((b < 0) | (b >= max_shift), max_shift, b).astype(a.dtype)
    return np.right_shift(a, shift)


def _shift_kernel(
    name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> Callable[[TensorIteratorBase], None]:
    def kernel(it: TensorIteratorBase) -> None:
        dtype = it.common_dtype()
        AT_DISPATCH_CHECK(f"{name}_cpu", dtype, isIntegralType(dtype, False))
        cpu_kernel_vec(it, binary_loop(fn))  # type: ignore[arg-type]

    kernel.__name__ = f"{name}_kernel"
    return traced("kernel", f"at::native::{name}_kernel", SOURCE, legacy=f"{name}_kernel")(kernel)


@traced("kernel", "at::native::hypot_kernel", SOURCE, legacy="hypot_kernel")
def hypot_kernel(it: TensorIteratorBase) -> None:
    dtype = it.common_dtype()
    AT_DISPATCH_CHECK("hypot_cpu", dtype, isFloatingType(dtype))
    cpu_kernel_vec(it, binary_loop(np.hypot))


REGISTER_DISPATCH(bitwise_xor_stub, xor_kernel)
REGISTER_DISPATCH(lshift_stub, _shift_kernel("lshift", _lshift))
REGISTER_DISPATCH(rshift_stub, _shift_kernel("rshift", _rshift))
REGISTER_DISPATCH(hypot_stub, hypot_kernel)
