"""set_'s other overloads: set_(), set_(Storage), set_(Tensor), set_(Tensor, offset, size, stride).

Mirrors `set_`, `set_tensor_`, `set__symint` and `set_cpu_` of
`aten/src/ATen/native/TensorShape.cpp`
(and `set_cuda_` of `aten/src/ATen/native/cuda/TensorShapeCUDA.cpp`). Each one ends in the
Storage overload with an offset and a geometry (set_storage_cpu_ in tensor_shape.py):
set_() points self at a new empty storage of its device, set_(storage) views the whole storage
as a 1-d tensor of self's dtype, set_(tensor) takes the other tensor's storage and geometry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tensortrace.aten.cuda.empty_tensor import getCUDADeviceAllocator
from tensortrace.aten.native.registry import NATIVE_FUNCTIONS, native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.allocator import Allocator, GetAllocator
from tensortrace.c10.cpu_allocator import GetCPUAllocator
from tensortrace.c10.device import DeviceType
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.intrusive_ptr import make_intrusive
from tensortrace.c10.storage_impl import Storage, StorageImpl

SOURCE = "aten/src/ATen/native/TensorShape.cpp"
CUDA_SOURCE = "aten/src/ATen/native/cuda/TensorShapeCUDA.cpp"


@native_function(SOURCE, name="set_", legacy="at::native::set_")
def set_(self: Tensor, source: Storage) -> Tensor:
    """The whole storage, as many of self's elements as fit."""
    new_size = source.nbytes() // self.element_size()
    return self.set_(source, 0, [new_size], [])


@native_function(SOURCE, name="set_tensor_", legacy="at::native::set_tensor_")
def set_tensor_(self: Tensor, source: Tensor) -> Tensor:
    TORCH_CHECK(
        self.dtype() == source.dtype(),
        "Could not set tensor of type ",
        source.dtype().name,
        " to a tensor of type ",
        self.dtype().name,
    )
    if self.unsafeGetTensorImpl() is not source.unsafeGetTensorImpl():
        return self.set_(
            source.storage(), source.storage_offset(), source.sizes(), source.strides()
        )
    return self


@native_function(SOURCE, name="set__symint", legacy="at::native::set_")
def set__symint(
    self: Tensor,
    source: Tensor,
    storage_offset: int,
    size: Sequence[int],
    stride: Sequence[int] = (),
) -> Tensor:
    TORCH_CHECK(source.is_contiguous(), "passed in tensor to be used as storage must be contiguous")
    return self.set_(source.storage(), storage_offset + source.storage_offset(), size, stride)


def _set_empty_storage(self: Tensor, allocator: Allocator) -> Tensor:
    """Storage(use_byte_size_t(), 0, allocator, /*resizable=*/true), then the Storage overload."""
    dtype = self.dtype()
    storage = Storage(make_intrusive(StorageImpl, 0, allocator, True))
    self.set_(storage, 0, [0], [])
    assert dtype == self.dtype()
    return self


@native_function(SOURCE, name="set_cpu_", legacy="at::native::set_cpu_")
def set_cpu_(self: Tensor) -> Tensor:
    return _set_empty_storage(self, GetCPUAllocator())


@native_function(CUDA_SOURCE, name="set_cuda_", legacy="at::native::set_cuda_")
def set_cuda_(self: Tensor) -> Tensor:
    return _set_empty_storage(self, getCUDADeviceAllocator())


# ---- the Meta kernels (TensorShape.cpp's set_meta_, set_storage_meta__symint) -------------------
@native_function(SOURCE, name="set_meta_", legacy="at::native::set_meta_")
def set_meta_(self: Tensor) -> Tensor:
    return _set_empty_storage(self, GetAllocator(DeviceType.Meta))


def _set_storage_meta(
    self: Tensor,
    source: Storage,
    storage_offset: int,
    size: Sequence[int],
    stride: Sequence[int] = (),
) -> Tensor:
    """set_storage_cpu_'s steps: a meta storage that is too small only grows its byte count."""
    return _body(NATIVE_FUNCTIONS["set_storage_cpu_"][0])(
        self, source, storage_offset, size, stride
    )


native_function(SOURCE, name="set_storage_meta__symint")(_set_storage_meta)


def _body(fn: Any) -> Any:
    return getattr(fn, "__wrapped__", fn)
