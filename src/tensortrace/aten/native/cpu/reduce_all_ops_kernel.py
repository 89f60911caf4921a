"""max_all_kernel_impl / min_all_kernel_impl: one value for the whole tensor.

Mirrors `aten/src/ATen/native/cpu/ReduceAllOpsKernel.cpp` (reduce_all_kernel_vec): the input
is contiguous, the reduction runs over it and the result is written with output.fill_(value).
NaN propagates, as PyTorch's max/min do.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.reduce_all_ops import max_all_stub, min_all_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/ReduceAllOpsKernel.cpp"


def _reduce_all_kernel(result: Tensor, input: Tensor, is_max: bool) -> None:
    values = input.numpy_view()
    with np.errstate(invalid="ignore"):
        value = (np.max if is_max else np.min)(values)
    result.fill_(value.item())


@traced("kernel", "at::native::(anonymous)::max_all_kernel_impl", SOURCE,
        legacy="max_all_kernel_impl")
def max_all_kernel_impl(result: Tensor, input: Tensor) -> None:
    _reduce_all_kernel(result, input, True)


@traced("kernel", "at::native::(anonymous)::min_all_kernel_impl", SOURCE,
        legacy="min_all_kernel_impl")
def min_all_kernel_impl(result: Tensor, input: Tensor) -> None:
    _reduce_all_kernel(result, input, False)


REGISTER_DISPATCH(max_all_stub, max_all_kernel_impl)
REGISTER_DISPATCH(min_all_stub, min_all_kernel_impl)
