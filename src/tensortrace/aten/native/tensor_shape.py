"""Views: select and as_strided.

Mirrors `aten/src/ATen/native/TensorShape.cpp`. A view computes new sizes, strides and offset
and calls as_strided, which makes a TensorImpl sharing the base's storage
(Note [Views share storage]).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import setStrided
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK_INDEX
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.tensor_impl import ImplType, TensorImpl

SOURCE = "aten/src/ATen/native/TensorShape.cpp"


@native_function(SOURCE, name="as_strided_tensorimpl",
                 legacy="as_strided_tensorimpl (CPU: as_strided_tensorimpl)")
def as_strided_tensorimpl(self: Tensor, size: Sequence[int], stride: Sequence[int],
                          storage_offset: int | None = None) -> Tensor:
    impl = self.unsafeGetTensorImpl()
    offset = storage_offset if storage_offset is not None else impl.storage_offset_
    # make_tensor<TensorImpl>(VIEW, Storage(self.storage()), ...): copying the Storage handle is
    # the incref that keeps the base's memory alive while the view lives.
    view = TensorImpl(impl.storage_.copy(), impl.key_set_, impl.data_type_, ImplType.VIEW)
    result = Tensor(intrusive_ptr.make(view))
    setStrided(result, size, stride, offset)
    return result


@native_function(SOURCE, name="select_symint", legacy="at::native::select")
def select(self: Tensor, dim: int, index: int) -> Tensor:
    ndim = self.dim()
    TORCH_CHECK_INDEX(ndim != 0, "select() cannot be applied to a 0-dim tensor.")
    dim = maybe_wrap_dim(dim, ndim)
    size = self.size(dim)
    TORCH_CHECK_INDEX(-size <= index < size, "select(): index ", index,
                      " out of range for tensor of size ", list(self.sizes()),
                      " at dimension ", dim)
    if index < 0:
        index += size
    sizes = list(self.sizes())
    strides = list(self.strides())
    storage_offset = self.storage_offset() + index * strides[dim]
    del sizes[dim]
    del strides[dim]
    return self.as_strided(sizes, strides, storage_offset)
