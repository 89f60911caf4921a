"""The CPU kernels of isposinf, isneginf (`aten/src/ATen/native/cpu/TensorCompareKernel.cpp`)
and nan_to_num (`aten/src/ATen/native/cpu/UnaryOpsKernel.cpp`, nan_to_num_kernel)."""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.cpu.loops import cpu_kernel, cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.tensor_compare_inf import (
    isneginf_stub,
    isposinf_stub,
    nan_to_num_stub,
)
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar import numeric_limits
from tensortrace.c10.scalar_type import isComplexType, toRealValueType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/TensorCompareKernel.cpp"
UNARY = "aten/src/ATen/native/cpu/UnaryOpsKernel.cpp"


@traced("kernel", "at::native::isposinf_kernel_impl", SOURCE, legacy="isposinf_kernel_impl")
def isposinf_kernel_impl(it: TensorIteratorBase) -> None:
    def loop(out: np.ndarray, a: np.ndarray) -> None:
        out[...] = a == np.inf

    cpu_kernel(it, loop)


@traced("kernel", "at::native::isneginf_kernel_impl", SOURCE, legacy="isneginf_kernel_impl")
def isneginf_kernel_impl(it: TensorIteratorBase) -> None:
    def loop(out: np.ndarray, a: np.ndarray) -> None:
        out[...] = a == -np.inf

    cpu_kernel(it, loop)


@traced("kernel", "at::native::nan_to_num_kernel", UNARY, legacy="nan_to_num_kernel")
def nan_to_num_kernel(
    it: TensorIteratorBase, nan: float | None, posinf: float | None, neginf: float | None
) -> None:
    dtype = it.common_dtype()
    lowest, highest = numeric_limits(toRealValueType(dtype))
    nan_v = 0.0 if nan is None else nan
    pos_v = highest if posinf is None else posinf
    neg_v = lowest if neginf is None else neginf

    def replace(a: np.ndarray) -> np.ndarray:
        t = a.dtype.type
        with np.errstate(over="ignore"):
            fills = (t(nan_v), t(pos_v), t(neg_v))
        return np.where(
            np.isnan(a),
            fills[0],
            np.where(a == np.inf, fills[1], np.where(a == -np.inf, fills[2], a)),
        )

    def loop(out: np.ndarray, a: np.ndarray) -> None:
        if isComplexType(dtype):
            out[...] = replace(a.real) + 1j * replace(a.imag)
        else:
            out[...] = replace(a)

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(isposinf_stub, isposinf_kernel_impl)
REGISTER_DISPATCH(isneginf_stub, isneginf_kernel_impl)
REGISTER_DISPATCH(nan_to_num_stub, nan_to_num_kernel)
