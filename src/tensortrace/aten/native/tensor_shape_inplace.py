"""The in-place view ops and small composites that reductions and matmul need.

Mirrors parts of `aten/src/ATen/native/TensorShape.cpp`: unsqueeze_, squeeze_, transpose_ and t_
(which change a tensor's own geometry through as_strided_: max.dim's kernel unsqueezes its
outputs and squeezes them back, matmul's 1D @ 2D squeezes its result, quantile moves q's dim
first), mT (transpose(-2, -1)) and view_as (view with another tensor's sizes). Kept apart from
tensor_shape.py (the views area).
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_shape_adjoint import mT as adjoint_mT
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK

SOURCE = "aten/src/ATen/native/TensorShape.cpp"


@native_function(SOURCE, name="unsqueeze_", legacy="at::native::unsqueeze_")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim() + 1)
    sizes, strides = list(self.sizes()), list(self.strides())
    # inferUnsqueezeGeometry
    new_stride = 1 if dim >= self.dim() else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    self.as_strided_(sizes, strides)
    return self


@native_function(
    SOURCE, name="squeeze__dim", legacy="at::native::squeeze_ (dim)", symbol="at::native::squeeze_"
)
def squeeze__dim(self: Tensor, dim: int) -> Tensor:
    dims = self.dim()
    dim = maybe_wrap_dim(dim, dims)
    sizes, strides = list(self.sizes()), list(self.strides())
    if dims == 0 or sizes[dim] != 1:
        self.as_strided_(sizes, strides)
        return self
    del sizes[dim]  # inferSqueezeGeometry
    del strides[dim]
    self.as_strided_(sizes, strides)
    return self


@native_function(SOURCE, name="transpose_", legacy="at::native::transpose_")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    ndims = self.dim()
    dim0 = maybe_wrap_dim(dim0, ndims)
    dim1 = maybe_wrap_dim(dim1, ndims)
    if dim0 == dim1:
        return self
    sizes, strides = list(self.sizes()), list(self.strides())
    sizes[dim0], sizes[dim1] = sizes[dim1], sizes[dim0]
    strides[dim0], strides[dim1] = strides[dim1], strides[dim0]
    self.as_strided_(sizes, strides)
    return self


@native_function(SOURCE, name="t_", legacy="at::native::t_")
def t_(self: Tensor) -> Tensor:
    TORCH_CHECK(
        self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D"
    )
    return self.transpose_(0, 0 if self.dim() < 2 else 1)


@native_function(SOURCE, name="mT", legacy="at::native::mT")
def mT(self: Tensor) -> Tensor:
    return adjoint_mT(self)  # _adjoint(self, /*transpose=*/true, "mT"): 0-D is the identity


@native_function(SOURCE, name="view_as", legacy="at::native::view_as")
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return self.view(list(other.sizes()))
