"""at::indexing (ATen's TensorIndexing.h / TensorIndexing.cpp): the C++ side of Tensor indexing.

THPVariable_getitem / setitem (csrc/python_variable_indexing.py) parse the Python index and call
these: an int is applySelect (`select`), a slice applySlice (`slice`), a bool an indexing tensor;
tensor indices are collected by recordTensorIndex and handed to `aten::index` / `index_put_`;
assigning to a basic index is copy_to (`copy_`, or `fill_` for a 0-dim value). They are ATen code,
not Python binding code, so they are traced in the native layer.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK_INDEX, TORCH_CHECK_VALUE
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

INDEXING_H = "aten/src/ATen/TensorIndexing.h"


@traced("native", "at::indexing::applySelect", INDEXING_H, legacy="applySelect")
def applySelect(self: Tensor, dim: int, index: int, real_dim: int = 0) -> Tensor:
    sizes = self.sizes()
    if index == 0 and dim == 0 and not sizes:  # Note [TORCH_CHECK tests first]
        TORCH_CHECK_INDEX(
            False,
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
        )
    size = sizes[dim]
    if not (size > -1 - index and size > index):
        TORCH_CHECK_INDEX(
            False,
            "index ",
            index,
            " is out of bounds for dimension ",
            real_dim,
            " with size ",
            size,
        )
    # a negative index is not normalized here: aten::select handles it
    return self.select(dim, index)


@traced("native", "at::indexing::applySlice", INDEXING_H, legacy="applySlice")
def applySlice(
    self: Tensor, dim: int, start: int, stop: int, step: int, disable_slice_optimization: bool
) -> Tensor:
    length = self.size(dim)
    TORCH_CHECK_VALUE(step > 0, "step must be greater than zero")
    # a full slice `:` in a tuple is the tensor itself: no aten::slice (not for a lone x[:])
    if not disable_slice_optimization and start == 0 and stop >= length and step == 1:
        return self
    return self.slice(dim, start, stop, step)


@traced("native", "at::indexing::impl::boolToIndexingTensor", INDEXING_H)
def boolToIndexingTensor(self: Tensor, value: bool) -> Tensor:
    """x[True] indexes a new dim of size 1 with [0]; x[False] with an empty index."""
    if value:
        return at.empty([1], dtype=ScalarType.Long, device=self.device()).fill_(0.0)
    return at.empty([0], dtype=ScalarType.Long, device=self.device())


def recordTensorIndex(tensor: Tensor, out_indices: list[Tensor | None], dim: int) -> int:
    """Put the index at position `dim` (None before it); return the next dim."""
    # the dims skipped since the last tensor index (slices, ...) are not indexed: None
    out_indices.extend([None] * (dim - len(out_indices)))
    out_indices.append(tensor)
    # a mask covers as many dims as it has
    if tensor.scalar_type() in (ScalarType.Byte, ScalarType.Bool):
        return dim + tensor.dim()
    return dim + 1


def dispatch_index(self: Tensor, indices: list[Tensor | None]) -> Tensor:
    return self.index(indices)


def dispatch_index_put_(self: Tensor, indices: list[Tensor | None], value: Tensor) -> Tensor:
    return self.index_put_(indices, value)


def slicePrefix1sSize(sizes: tuple[int, ...]) -> list[int]:
    """Drop leading 1s: a (1, 4) value fits a (4,) destination."""
    first_non1 = 0
    while first_non1 < len(sizes) and sizes[first_non1] == 1:
        first_non1 += 1
    return list(sizes[first_non1:])


@traced("native", "at::indexing::copy_to", INDEXING_H, legacy="copy_to")
def copy_to(dst: Tensor, src: Tensor) -> None:
    if tuple(dst.sizes()) == tuple(src.sizes()):
        dst.copy_(src)
        return
    if src.dim() == 0 and src.device().is_cpu():
        dst.fill_(src)
        return
    src_view = src.view(slicePrefix1sSize(src.sizes()))
    # expand_inplace(dst, src_view, "setitem")
    dst.copy_(src_view.expand(list(dst.sizes())))
