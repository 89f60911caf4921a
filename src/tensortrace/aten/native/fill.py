"""fill_, fill and zero_: set every element of a tensor to one value.

Mirrors `aten/src/ATen/native/Fill.cpp`. `fill_(Scalar)` converts the value to the tensor's dtype
with c10's overflow check (`value cannot be converted to type uint8_t without overflow`) and
runs `fill_stub` over a nullary TensorIterator (a single element is written directly, as
`scalar_fill` does); `fill_(Tensor)` takes a 0-dim tensor and copies it in (`aten::copy_`
nests under `aten::fill_`). `zero_` of a small dense tensor is one memset over its bytes.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.memory_overlap import is_non_overlapping_and_dense
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.parallel import GRAIN_SIZE
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorConfig
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar import Scalar, checked_convert
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Fill.cpp"

fill_stub = DECLARE_DISPATCH("fill_stub", "aten/src/ATen/native/Fill.h")


@traced("native", "at::detail::scalar_fill", "aten/src/ATen/ScalarOps.cpp")
def scalar_fill(self: Tensor, value: Scalar) -> Tensor:
    """One element: write it through the data pointer, no TensorIterator."""
    self.numpy_view().reshape(-1)[0] = checked_convert(value, self.scalar_type())
    return self


@traced("native", "at::native::fill_out", SOURCE)
def fill_out(self: Tensor, value: Scalar) -> Tensor:
    if self.numel() == 1:
        return scalar_fill(self, value)
    it = (
        TensorIteratorConfig()
        .set_check_mem_overlap(False)  # fill is idempotent, so overlap is fine
        .check_all_same_dtype(False)
        .add_output(self)
        .resize_outputs(False)
        .build()
    )
    fill_stub(it.device_type(), it, value)
    return self


@native_function(SOURCE, name="fill_", legacy="legacy::cpu::_th_fill_")
def fill_(self: Tensor, value: Scalar | Tensor) -> Tensor:
    """fill_.Scalar and fill_.Tensor (one C++ name, two overloads)."""
    if not isinstance(value, Tensor):
        return fill_out(self, value)
    TORCH_CHECK(
        value.dim() == 0,
        "fill_ only supports 0-dimension value tensor but got tensor with ",
        value.dim(),
        " dimensions.",
    )
    if self.storage().is_alias_of(value.storage()):
        # value is a view of self: copy it out first so it is not overwritten midway
        self.copy_(at.clone(value))
    else:
        self.copy_(value)
    return self


@native_function(SOURCE, name="fill")
def fill(self: Tensor, value: Scalar | Tensor) -> Tensor:
    return at.empty_like(self).fill_(value)


@traced("kernel", "at::native::zero_cpu_ (memset)", SOURCE, legacy="THTensor_(zero)")
def zero_cpu_(self: Tensor, nelements: int) -> Tensor:
    """std::memset(data_ptr, 0, nelements * itemsize): the tensor's elements are its bytes."""
    if nelements > 0:
        self.numpy_view()[...] = 0
    return self


@native_function(SOURCE, name="zero_", legacy="legacy::cpu::_th_zero_")
def zero_(self: Tensor) -> Tensor:
    nelements = self.numel()
    if is_non_overlapping_and_dense(self.sizes(), self.strides()) and nelements < GRAIN_SIZE:
        return zero_cpu_(self, nelements)
    return self.fill_(0)


@native_function(SOURCE)
def fill_diagonal_(self: Tensor, fill_value: Scalar, wrap: bool = False) -> Tensor:
    """The main diagonal as one strided view (stride: the sum of all strides), filled; with
    wrap, a tall matrix's diagonal starts again every width + 1 rows."""
    n_dims = self.dim()
    TORCH_CHECK(n_dims >= 2, "dimensions must larger than 1")
    height, width = self.size(0), self.size(1)
    if n_dims > 2:
        for i in range(1, n_dims):
            TORCH_CHECK(self.size(i) == height, "all dimensions of input must be of equal length")
    storage_offset = self.storage_offset()
    size = min(height, width)
    stride = sum(self.strides())
    self.as_strided([size], [stride], storage_offset).fill_(fill_value)
    if wrap and n_dims == 2 and height > width + 1:
        step = width + 1
        wrap_size = ((self.numel() + step - 1) // step) - size
        offset = self.stride(0) * (width + 1)
        self.as_strided([wrap_size], [stride], storage_offset + offset).fill_(fill_value)
    return self
