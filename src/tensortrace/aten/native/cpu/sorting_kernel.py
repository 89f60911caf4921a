"""sort_kernel and topk_kernel: the CPU loops of sort and topk.

Mirrors `aten/src/ATen/native/cpu/SortingKernel.cpp`. Each slice along `dim` is ordered with a
stable sort (PyTorch's CPU sort is stable whatever `stable` says); NaN counts as larger than
every number, so it comes last ascending and first descending. A descending stable order is the
ascending stable order of the reversed slice, reversed: equal elements keep their first-come
order. topk is the first k of that order: the same values as topk_impl_loop's nth_element +
sort, and the same indices unless there are ties (libstdc++'s introselect may then pick the
tied elements in another order, which is not reproduced here).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.sorting import sort_stub, topk_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/SortingKernel.cpp"


def stable_order(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The indices that sort `a` along `axis`, stably, NaN largest."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    rev = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis)


@traced("kernel", "at::native::(anonymous)::sort_kernel", SOURCE, legacy="sort_kernel")
def sort_kernel(self: Tensor, values: Tensor, indices: Tensor, dim: int,
                descending: bool) -> None:
    a = self.numpy_view()
    order = stable_order(a, dim, descending)
    indices.numpy_view()[...] = order
    values.numpy_view()[...] = np.take_along_axis(a, order, dim)


@traced("kernel", "at::native::(anonymous)::topk_kernel", SOURCE, legacy="topk_kernel")
def topk_kernel(values: Tensor, indices: Tensor, self: Tensor, k: int, dim: int, largest: bool,
                sorted: bool) -> None:  # noqa: A002
    a = self.numpy_view()
    order = np.take(stable_order(a, dim, largest), np.arange(k), axis=dim)
    indices.numpy_view()[...] = order
    values.numpy_view()[...] = np.take_along_axis(a, order, dim)


REGISTER_DISPATCH(sort_stub, sort_kernel)
REGISTER_DISPATCH(topk_stub, topk_kernel)
