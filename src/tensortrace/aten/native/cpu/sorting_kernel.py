"""sort_kernel and topk_kernel: the CPU loops of sort and topk.

Mirrors `aten/src/ATen/native/cpu/SortingKernel.cpp`. Each slice along `dim` is ordered with a
stable sort (PyTorch's CPU sort is stable whatever `stable` says); NaN counts as larger than
every number, so it comes last ascending and first descending. A descending stable order is the
ascending stable order of the reversed slice, reversed: equal elements keep their first-come
order. topk takes the first k of that order where a slice has no ties; a slice with ties (or
an unsorted topk) goes through topk_impl_loop's own steps, libstdc++'s nth_element /
partial_sort (cpu/stl_algorithms.py), which decide which of the tied indices come first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu import stl_algorithms
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
def sort_kernel(self: Tensor, values: Tensor, indices: Tensor, dim: int, descending: bool) -> None:
    a = self.numpy_view()
    order = stable_order(a, dim, descending)
    indices.numpy_view()[...] = order
    values.numpy_view()[...] = np.take_along_axis(a, order, dim)


def _topk_slice(row: np.ndarray, k: int, largest: bool, sorted: bool) -> list[int]:  # noqa: A002
    """topk_impl_loop on one slice: (value, index) pairs through libstdc++'s partial_sort, or
    nth_element (+ sort of the first k - 1), with NaN the largest value."""
    queue = list(zip(row.tolist(), range(row.size)))

    def isnan(v: Any) -> bool:
        return v != v

    if largest:

        def comp(x: Any, y: Any) -> bool:
            return (isnan(x[0]) and not isnan(y[0])) or x[0] > y[0]
    else:

        def comp(x: Any, y: Any) -> bool:
            return (not isnan(x[0]) and isnan(y[0])) or x[0] < y[0]

    n = len(queue)
    if k * 64 <= n:
        stl_algorithms.partial_sort(queue, 0, k, n, comp)
    else:
        stl_algorithms.nth_element(queue, 0, k - 1, n, comp)
        if sorted:
            stl_algorithms.sort(queue, 0, k - 1, comp)
    return [i for _, i in queue[:k]]


def _needs_stl_order(row: np.ndarray, k: int, sorted: bool) -> bool:  # noqa: A002
    """Without ties, any correct algorithm gives topk's result; with ties (or an unsorted
    nth_element result) only libstdc++'s own steps do."""
    if not sorted and k * 64 > row.size:
        return True
    return np.unique(row, equal_nan=True).size != row.size


@traced("kernel", "at::native::(anonymous)::topk_kernel", SOURCE, legacy="topk_kernel")
def topk_kernel(
    values: Tensor, indices: Tensor, self: Tensor, k: int, dim: int, largest: bool, sorted: bool
) -> None:  # noqa: A002
    a = self.numpy_view()
    order = np.take(stable_order(a, dim, largest), np.arange(k), axis=dim)
    moved_a, moved_order = np.moveaxis(a, dim, -1), np.moveaxis(order, dim, -1)
    for pos in np.ndindex(*moved_a.shape[:-1]):
        row = moved_a[pos]
        if _needs_stl_order(row, k, sorted):
            moved_order[pos] = _topk_slice(row, k, largest, sorted)
    indices.numpy_view()[...] = order
    values.numpy_view()[...] = np.take_along_axis(a, order, dim)


REGISTER_DISPATCH(sort_stub, sort_kernel)
REGISTER_DISPATCH(topk_stub, topk_kernel)
