"""The CPU kernels behind norm_stub, max_values_stub / min_values_stub and aminmax_stub.

Mirrors `norm_kernel_tensor_iterator_impl` (`aten/src/ATen/native/cpu/ReduceOpsKernel.cpp`: the
NormZeroOps / NormOneOps / NormTwoOps / AbsMaxOps / AbsMinOps / NormOps accumulators, in float
for reduced-precision inputs), `max_values_kernel_impl` / `min_values_kernel_impl`,
and `aminmax_kernel` (`cpu/TensorCompareKernel.cpp`).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.cpu.reduce import binary_kernel_reduce
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.linalg_norms import (
    aminmax_stub,
    max_values_stub,
    min_values_stub,
    norm_stub,
)
from tensortrace.aten.opmath_type import to_opmath
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/ReduceOpsKernel.cpp"
INF = float("inf")


@traced(
    "kernel",
    "at::native::(anonymous)::norm_kernel_tensor_iterator_impl",
    SOURCE,
    legacy="norm_kernel_tensor_iterator_impl",
)
def norm_kernel(it: TensorIteratorBase, ord_: float) -> None:
    if it.numel() == 0:
        it.output_base().fill_(0)  # the accumulators' identity: an empty norm is 0
        return

    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        (x,) = to_opmath(inp)
        a = np.abs(x)
        if ord_ == 0.0:
            value = np.sum(x != 0, axis=axes, keepdims=True).astype(a.dtype)
        elif ord_ == 1.0:
            value = np.sum(a, axis=axes, keepdims=True)
        elif ord_ == 2.0:
            value = np.sqrt(np.sum(x * x, axis=axes, keepdims=True))
        elif ord_ == INF:
            value = np.max(a, axis=axes, keepdims=True)
        elif ord_ == -INF:
            value = np.min(a, axis=axes, keepdims=True)
        else:
            p = a.dtype.type(ord_)
            value = np.power(np.sum(np.power(a, p), axis=axes, keepdims=True), a.dtype.type(1) / p)
        acc[...] = value

    binary_kernel_reduce(it, loop)


def _values_kernel(it: TensorIteratorBase, is_max: bool) -> None:
    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        fn = np.max if is_max else np.min  # NaN propagates, as max_impl / min_impl do
        acc[...] = fn(inp, axis=axes, keepdims=True)

    binary_kernel_reduce(it, loop)


@traced(
    "kernel",
    "at::native::(anonymous)::max_values_kernel_impl",
    SOURCE,
    legacy="max_values_kernel_impl",
)
def max_values_kernel_impl(it: TensorIteratorBase) -> None:
    _values_kernel(it, True)


@traced(
    "kernel",
    "at::native::(anonymous)::min_values_kernel_impl",
    SOURCE,
    legacy="min_values_kernel_impl",
)
def min_values_kernel_impl(it: TensorIteratorBase) -> None:
    _values_kernel(it, False)


@traced(
    "kernel",
    "at::native::(anonymous)::aminmax_kernel",
    "aten/src/ATen/native/cpu/TensorCompareKernel.cpp",
    legacy="aminmax_kernel",
)
def aminmax_kernel(
    self: Tensor, dim: int | None, keepdim: bool, min_result: Tensor, max_result: Tensor
) -> None:
    x = self.numpy_view()
    with np.errstate(all="ignore"):
        if dim is None:
            lo, hi = np.min(x), np.max(x)
        else:
            if x.ndim == 0:
                lo = hi = x
            else:
                lo = np.min(x, axis=dim, keepdims=keepdim)
                hi = np.max(x, axis=dim, keepdims=keepdim)
    min_result.numpy_view()[...] = lo
    max_result.numpy_view()[...] = hi


REGISTER_DISPATCH(norm_stub, norm_kernel)
REGISTER_DISPATCH(max_values_stub, max_values_kernel_impl)
REGISTER_DISPATCH(min_values_stub, min_values_kernel_impl)
REGISTER_DISPATCH(aminmax_stub, aminmax_kernel)
