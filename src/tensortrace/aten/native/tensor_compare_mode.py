"""mode: the most frequent value of each slice, and an index where it occurs.

Mirrors `mode` / `mode_out` of `aten/src/ATen/native/TensorCompare.cpp`: the outputs get the
reduced shape (an empty input only checks that the reduced dim is not empty), a 0-dim input is
its own mode at index 0, and anything else goes to mode_stub, whose CPU kernel
(cpu/tensor_compare_kernel.py) sorts each slice's (value, index) pairs and counts the runs.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.reduce_ops_utils import zero_numel_check_dims
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.native.sorting_select import (
    reduction_with_indices_allocate_or_resize_output,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/TensorCompare.cpp"

mode_stub = DECLARE_DISPATCH("mode_stub", "aten/src/ATen/native/TensorCompare.h")


@native_function(SOURCE, name="mode")
def mode(self: Tensor, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    values = at.empty([0], dtype=self.scalar_type(), device=self.device())
    indices = at.empty([0], dtype=ScalarType.Long, device=self.device())
    return mode_out(self, dim, keepdim, values, indices)


@native_function(SOURCE, name="mode_out")
def mode_out(
    self: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    TORCH_CHECK(
        self.scalar_type() == values.scalar_type(),
        "expected scalar type '",
        self.scalar_type(),
        "' but got '",
        values.scalar_type(),
        "' for values output",
    )
    TORCH_CHECK(
        indices.scalar_type() == ScalarType.Long,
        "expected scalar type 'Long' but got '",
        indices.scalar_type(),
        "' for indices output",
    )
    dim = maybe_wrap_dim(dim, self.dim(), True)
    if self.numel() == 0:
        zero_numel_check_dims(self, dim, "mode()")
        sizes = list(self.sizes())
        if keepdim:
            sizes[dim] = 1
        else:
            del sizes[dim]
        resize_output(values, sizes)
        resize_output(indices, sizes)
        return values, indices
    if self.dim() == 0:  # _dimreduce_return_trivial_no_ident
        resize_output(values, [])
        values.copy_(self)
        resize_output(indices, [])
        indices.fill_(0)
        return values, indices
    reduction_with_indices_allocate_or_resize_output(values, indices, self, dim, keepdim)
    mode_stub(self.device().type_, values, indices, self, dim, keepdim)
    if not keepdim:
        values.squeeze_(dim)
        indices.squeeze_(dim)
    return values, indices
