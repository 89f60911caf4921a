"""max_kernel_impl / min_kernel_impl: values and indices along one dim.

Mirrors the max/min part of `aten/src/ATen/native/cpu/TensorCompareKernel.cpp`
(compare_base_kernel): the outputs are unsqueezed in place to the input's rank, the loop runs
along `dim` for every other position, and the outputs are squeezed back. NaN wins and stops
the scan; ties keep the first index: np.max / np.argmax over the dim do the same.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.reduce_minmax import max_stub, min_stub
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/TensorCompareKernel.cpp"


def compare_base_kernel(
    result1: Tensor, result2: Tensor, self: Tensor, dim: int, keepdim: bool, is_max: bool
) -> None:
    self_sizes = list(self.sizes()) or [1]  # ensure_nonempty_vec
    self_sizes[dim] = 1
    # the outputs take the input's rank for the loop (aten::unsqueeze_ in the trace)
    if not keepdim:
        if result1.dim() >= dim:
            result1.unsqueeze_(dim)
        if result2.dim() >= dim:
            result2.unsqueeze_(dim)
    resize_output(result1, self_sizes)
    resize_output(result2, self_sizes)
    inp = self.numpy_view().reshape(self.sizes() or (1,))
    values = result1.numpy_view()
    indices = result2.numpy_view()
    with np.errstate(invalid="ignore"):
        values[...] = (np.max if is_max else np.min)(inp, axis=dim, keepdims=True)
    indices[...] = (np.argmax if is_max else np.argmin)(inp, axis=dim, keepdims=True)
    if not keepdim:
        result1.squeeze_(dim)
        result2.squeeze_(dim)


@traced("kernel", "at::native::(anonymous)::max_kernel_impl", SOURCE, legacy="max_kernel_impl")
def max_kernel_impl(values: Tensor, indices: Tensor, self: Tensor, dim: int, keepdim: bool) -> None:
    compare_base_kernel(values, indices, self, dim, keepdim, True)


@traced("kernel", "at::native::(anonymous)::min_kernel_impl", SOURCE, legacy="min_kernel_impl")
def min_kernel_impl(values: Tensor, indices: Tensor, self: Tensor, dim: int, keepdim: bool) -> None:
    compare_base_kernel(values, indices, self, dim, keepdim, False)


REGISTER_DISPATCH(max_stub, max_kernel_impl)
REGISTER_DISPATCH(min_stub, min_kernel_impl)
