"""max.dim and min.dim: the values and their indices along one dim, as a namedtuple.

Mirrors the max/min part of `aten/src/ATen/native/TensorCompare.cpp`
(TORCH_PRECOMPUTE_META_FUNC2(max, dim), TORCH_IMPL_FUNC(max_out) -> minmax_out_impl -> max_stub),
kept apart from tensor_compare.py (where, clamp ...). The kernel is in
native/cpu/reduce_minmax_kernel.py.
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.reduce_ops_utils import (
    resize_reduction_with_indices,
    zero_numel_check_dims,
)
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isComplexType

SOURCE = "aten/src/ATen/native/TensorCompare.cpp"

max_stub = DECLARE_DISPATCH("max_stub", "aten/src/ATen/native/TensorCompare.h")
min_stub = DECLARE_DISPATCH("min_stub", "aten/src/ATen/native/TensorCompare.h")


def _meta_minmax(name: str, it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool) -> None:
    dim = maybe_wrap_dim(dim, self.dim())
    zero_numel_check_dims(self, dim, f"{name}()")
    TORCH_CHECK(not isComplexType(self.scalar_type()), f"{name}(): does not support complex input")
    resize_reduction_with_indices(it, self, [dim], keepdim, self.scalar_type())


@meta_function("max.dim", SOURCE)
def meta_max_dim(it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool) -> None:
    _meta_minmax("max", it, self, dim, keepdim)


@meta_function("min.dim", SOURCE)
def meta_min_dim(it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool) -> None:
    _meta_minmax("min", it, self, dim, keepdim)


def minmax_out_impl(
    self: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor, stub: Any
) -> None:
    if self.numel() > 0:
        if self.numel() == 1 and self.dim() == 0:
            values.fill_(self)
            indices.fill_(0)
        else:
            stub(self.device().type_, values, indices, self, dim, keepdim)


@impl_function("max_out", SOURCE, legacy="at::native::max_out")
def max_out(
    it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor
) -> None:
    # TORCH_PRECOMPUTE_STRUCT2(max, dim).set_dim(...): the impl receives the wrapped dim
    minmax_out_impl(self, maybe_wrap_dim(dim, self.dim()), keepdim, values, indices, max_stub)


@impl_function("min_out", SOURCE, legacy="at::native::min_out")
def min_out(
    it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor
) -> None:
    minmax_out_impl(self, maybe_wrap_dim(dim, self.dim()), keepdim, values, indices, min_stub)
