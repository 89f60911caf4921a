"""mode_kernel_impl: the CPU loop of mode.

Mirrors `mode_kernel_impl` of `aten/src/ATen/native/cpu/TensorCompareKernel.cpp`. Each slice's
(value, index) pairs are ordered by value with std::sort, which is not stable (libstdc++'s
introsort, cpu/stl_algorithms.py, decides where equal values land), then the runs of equal
values are counted: the first longest run wins (so the smallest of the most frequent values),
and its index is the one of the run's last pair.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu import stl_algorithms
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.tensor_compare_mode import mode_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/TensorCompareKernel.cpp"


def _less(i: Any, j: Any) -> bool:
    return bool(i[0] < j[0])


def _mode_of_slice(row: list[Any]) -> tuple[Any, int]:
    elements = list(zip(row, range(len(row))))
    stl_algorithms.sort(elements, 0, len(elements), _less)
    mode, modei, temp_freq, max_freq = 0, 0, 0, 0
    for i, (value, index) in enumerate(elements):
        temp_freq += 1
        if i == len(elements) - 1 or value != elements[i + 1][0]:
            if temp_freq > max_freq:
                mode, modei, max_freq = value, index, temp_freq
            temp_freq = 0
    return mode, modei


@traced("kernel", "at::native::(anonymous)::mode_kernel_impl", SOURCE)
def mode_kernel_impl(
    values: Tensor, indices: Tensor, self: Tensor, dim: int, keepdim: bool
) -> None:
    src = np.moveaxis(self.numpy_view(), dim, -1)
    out_v = np.moveaxis(values.numpy_view(), dim, -1)
    out_i = np.moveaxis(indices.numpy_view(), dim, -1)
    for pos in np.ndindex(*src.shape[:-1]):
        row = src[pos]
        # compare as the C++ does, in the element type (np scalars keep float16 exact)
        mode, modei = _mode_of_slice(list(row))
        out_v[pos + (0,)] = mode
        out_i[pos + (0,)] = modei


REGISTER_DISPATCH(mode_stub, mode_kernel_impl)
