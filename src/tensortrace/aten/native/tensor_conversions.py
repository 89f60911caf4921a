"""view(dtype): the same bytes read as another element type.

Mirrors `view_dtype` of `aten/src/ATen/native/TensorConversions.cpp`: a new TensorImpl over the
same storage with the new TypeMeta. With equal element sizes the geometry is kept; otherwise
the last dimension (which must have stride 1) is split or merged by the size ratio, and the
other strides and the storage offset are scaled, with torch's checks and messages.
"""

from __future__ import annotations

from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.scalar_type import ScalarType, TypeMeta
from tensortrace.c10.tensor_impl import ImplType, TensorImpl

SOURCE = "aten/src/ATen/native/TensorConversions.cpp"


@native_function(SOURCE, name="view_dtype", legacy="at::native::view_dtype")
def view_dtype(self: Tensor, dtype: ScalarType) -> Tensor:
    type_meta = TypeMeta.fromScalarType(dtype)
    TORCH_CHECK(
        not self.is_conj(),
        "torch.Tensor.view is not supported for conjugate view tensors when converting to a "
        "different dtype.",
    )
    TORCH_CHECK(
        not self.is_neg(),
        "torch.Tensor.view is not supported for tensors with negative bit set when converting "
        "to a different dtype.",
    )
    self_element_size = self.element_size()
    new_element_size = type_meta.itemsize
    st = self.scalar_type()
    impl = self.unsafeGetTensorImpl()
    sizes, strides, offset = list(impl.sizes_), list(impl.strides_), impl.storage_offset_
    what = f" to view {st} as {dtype} (different element sizes)"
    if self_element_size != new_element_size:
        TORCH_CHECK(self.dim() != 0, "self.dim() cannot be 0", what)
        if self_element_size > new_element_size:  # downsizing: the last dim grows
            ratio = self_element_size // new_element_size
            TORCH_CHECK(
                strides[-1] == 1, "self.stride(-1) must be 1", what, ", but got ", strides[-1]
            )
            strides = [s * ratio for s in strides[:-1]] + [1]
            sizes[-1] *= ratio
            offset *= ratio
        else:  # upsizing: the last dim shrinks
            ratio = new_element_size // self_element_size
            TORCH_CHECK(
                sizes[-1] % ratio == 0,
                f"self.size(-1) must be divisible by {ratio}",
                what,
                ", but got ",
                sizes[-1],
            )
            TORCH_CHECK(
                strides[-1] == 1, "self.stride(-1) must be 1", what, ", but got ", strides[-1]
            )
            TORCH_CHECK(
                offset % ratio == 0,
                f"self.storage_offset() must be divisible by {ratio}",
                what,
                ", but got ",
                offset,
            )
            for i, s in enumerate(strides[:-1]):
                TORCH_CHECK(
                    s % ratio == 0,
                    f"self.stride({i}) must be divisible by {ratio}",
                    what,
                    ", but got ",
                    s,
                )
            strides = [s // ratio for s in strides[:-1]] + [1]
            sizes[-1] //= ratio
            offset //= ratio
    # make_tensor<TensorImpl>(storage, key_set, type_meta): a view of the same storage
    view = TensorImpl(impl.storage_.copy(), impl.key_set_, type_meta, ImplType.VIEW)
    result = Tensor(intrusive_ptr.make(view))
    view.set_sizes_and_strides(tuple(sizes), tuple(strides), offset)
    return result
