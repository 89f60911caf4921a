"""sort, argsort, msort and topk: order the elements along a dimension.

Mirrors `aten/src/ATen/native/Sorting.cpp` (sort_stable_out, topk_out_cpu) and `TensorShape.cpp`
/ `Sorting.cpp`'s composites (sort -> sort.stable, argsort -> sort(...).indices, msort ->
sort(dim=0).values). Values come out in an empty_like of self (keeping self's layout, as
sort's meta does), and the CPU kernels (cpu/sorting_kernel.py) order them stably: equal elements
keep their order, and NaN is larger than every number.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.cuda.empty_tensor import empty_structured_output
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/Sorting.cpp"
STUBS = "aten/src/ATen/native/SortingUtils.h"

sort_stub = DECLARE_DISPATCH("sort_stub", "aten/src/ATen/native/Sorting.h")
topk_stub = DECLARE_DISPATCH("topk_stub", "aten/src/ATen/native/Sorting.h")


@native_function(SOURCE, name="sort_stable")
def sort_stable(
    self: Tensor, stable: bool | None, dim: int = -1, descending: bool = False
) -> tuple[Tensor, Tensor]:
    """sort.stable (TORCH_META_FUNC(sort_stable) + TORCH_IMPL_FUNC(sort_stable_out))."""
    dim = maybe_wrap_dim(dim, self.dim())
    values = at.empty_like(self, memory_format="preserve_format")
    indices = at.empty_strided(
        list(self.sizes()), list(values.strides()), dtype=ScalarType.Long, device=self.device()
    )
    if self.numel() == 0:
        return values, indices
    if self.dim() == 0:
        values.copy_(self)
        indices.zero_()
        return values, indices
    TORCH_CHECK(not self.is_complex(), " Sort does not support complex dtypes on CPU")
    sort_stub(self.device().type_, self, values, indices, dim, descending)
    return values, indices


@native_function(SOURCE)
def sort(self: Tensor, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    """sort(self, dim, descending) is sort.stable with stable=False (the CPU sort is stable)."""
    return at.sort(self, stable=False, dim=dim, descending=descending)


@native_function(SOURCE)
def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    return at.sort(self, dim, descending)[1]


@native_function(SOURCE, name="argsort_stable")
def argsort_stable(self: Tensor, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    return at.sort(self, stable=stable, dim=dim, descending=descending)[1]


@native_function(SOURCE)
def msort(self: Tensor) -> Tensor:
    return at.sort(self, 0, False)[0]


@native_function(SOURCE, name="topk")
def topk(
    self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> tuple[Tensor, Tensor]:  # noqa: A002 - the schema's name
    """TORCH_META_FUNC(topk) + TORCH_IMPL_FUNC(topk_out_cpu)."""
    dim = maybe_wrap_dim(dim, self.dim(), True)
    slice_size = self.size(dim) if self.dim() else 1
    TORCH_CHECK(0 <= k <= slice_size, "selected index k out of range")
    sizes = list(self.sizes())
    if sizes:
        sizes[dim] = k
    # TORCH_META_FUNC(topk)'s outputs: at::detail::empty_cpu (empty_cuda on CUDA), no dispatch
    values = empty_structured_output(sizes, self.scalar_type(), self.device())
    indices = empty_structured_output(sizes, ScalarType.Long, self.device())
    if self.dim() == 0 and self.numel() == 1:
        values.copy_(self)
        indices.zero_()
        return values, indices
    TORCH_CHECK(self.scalar_type() != ScalarType.Bool, "topk does not support bool dtypes on CPU")
    TORCH_CHECK(not self.is_complex(), " topk does not support complex dtypes on CPU")
    if k and self.numel():
        topk_stub(self.device().type_, values, indices, self, k, dim, largest, sorted)
    return values, indices
