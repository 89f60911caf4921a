"""item, _local_scalar_dense and is_nonzero: one element read back as a Python number.

Mirrors `aten/src/ATen/native/Scalar.cpp` (item checks there is exactly one element, then
`_local_scalar_dense` reads it through the data pointer into a c10::Scalar: a double for
floating dtypes, a complex<double> for complex ones, an int64 for integral ones, a bool for
bool) and `is_nonzero` of
`aten/src/ATen/native/TensorCompare.cpp` (what `bool(tensor)` calls).
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar import Scalar
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

SOURCE = "aten/src/ATen/native/Scalar.cpp"


@native_function(SOURCE, name="item", legacy="at::native::item")
def item(self: Tensor) -> Scalar:
    numel = self.numel()
    TORCH_CHECK(numel == 1, "a Tensor with ", numel, " elements cannot be converted to Scalar")
    return at._local_scalar_dense(self)


@native_function(
    SOURCE, name="_local_scalar_dense_cpu", legacy="at::native::_local_scalar_dense_cpu"
)
def _local_scalar_dense_cpu(self: Tensor) -> Scalar:
    """`scalar_t value = *self.const_data_ptr<scalar_t>(); return Scalar(value);`"""
    value = self.numpy_view().reshape(-1)[0]
    st = self.scalar_type()
    if st == ScalarType.Bool:
        return bool(value)
    if isFloatingType(st):
        return float(value)
    if isComplexType(st):
        return complex(value)  # c10::complex<double>
    return int(value)


@native_function("aten/src/ATen/native/TensorCompare.cpp", name="is_nonzero")
def is_nonzero(self: Tensor) -> bool:
    n = self.numel()
    TORCH_CHECK(n != 0, "Boolean value of Tensor with no values is ambiguous")
    TORCH_CHECK(n < 2, "Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())
