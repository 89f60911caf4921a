"""at::detail::empty_cpu and friends: make a StorageImpl, allocate, and wrap it in a TensorImpl.

Mirrors `aten/src/ATen/EmptyTensor.cpp`: `empty_generic` (compute the bytes, make_intrusive a
StorageImpl that asks the allocator for them, make_tensor a TensorImpl, set_sizes_contiguous) and
`empty_strided_generic`. These are not dispatcher ops: native kernels and TensorIterator call
them directly, which is why torch.profiler shows no `aten::empty_strided` under `aten::add`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.allocator import Allocator
from tensortrace.c10.cpu_allocator import GetCPUAllocator
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import Device
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.intrusive_ptr import intrusive_ptr, make_intrusive
from tensortrace.c10.scalar_type import ScalarType, TypeMeta
from tensortrace.c10.storage_impl import Storage, StorageImpl
from tensortrace.c10.tensor_impl import TensorImpl
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/EmptyTensor.cpp"
CPU_KS = DispatchKeySet(DispatchKey.CPU)


def check_size_nonnegative(size: Sequence[int]) -> None:
    for x in size:
        TORCH_CHECK(x >= 0, "Trying to create tensor with negative dimension ", x, ": ",
                    list(size))


def computeStorageNbytesContiguous(sizes: Sequence[int], itemsize: int,
                                   storage_offset: int = 0) -> int:
    numel = 1
    for s in sizes:
        numel *= s
    return itemsize * (storage_offset + numel)


def computeStorageNbytes(sizes: Sequence[int], strides: Sequence[int],
                         itemsize: int, storage_offset: int = 0) -> int:
    """Bytes needed to reach the last element: itemsize * (1 + offset + sum((size-1)*stride))."""
    TORCH_CHECK(len(sizes) == len(strides), "dimensionality of sizes (", len(sizes),
                ") must match dimensionality of strides (", len(strides), ")")
    size = 1
    for s, st in zip(sizes, strides):
        if s == 0:
            return 0
        size += st * (s - 1)
    return itemsize * (storage_offset + size)


def make_tensor(storage: Storage, key_set: DispatchKeySet, dtype: TypeMeta) -> Tensor:
    """at::detail::make_tensor<TensorImpl>: a new TensorImpl, owned by a new Tensor."""
    return Tensor(intrusive_ptr.make(TensorImpl(storage, key_set, dtype)))


@traced("native", "at::detail::empty_generic", SOURCE, legacy="empty_cpu (make StorageImpl)")
def empty_generic(size: Sequence[int], allocator: Allocator, ks: DispatchKeySet,
                  scalar_type: ScalarType) -> Tensor:
    check_size_nonnegative(size)
    dtype = TypeMeta.fromScalarType(scalar_type)
    size_bytes = computeStorageNbytesContiguous(size, dtype.itemsize)
    storage_impl = make_intrusive(StorageImpl, size_bytes, allocator, True)
    tensor = make_tensor(Storage(storage_impl), ks, dtype)
    # Default TensorImpl has size [0]
    if len(size) != 1 or size[0] != 0:
        tensor.unsafeGetTensorImpl().set_sizes_contiguous(tuple(size))
    return tensor


@traced("native", "at::detail::empty_strided_generic", SOURCE)
def empty_strided_generic(size: Sequence[int], stride: Sequence[int], allocator: Allocator,
                          ks: DispatchKeySet, scalar_type: ScalarType) -> Tensor:
    check_size_nonnegative(size)
    dtype = TypeMeta.fromScalarType(scalar_type)
    size_bytes = computeStorageNbytes(size, stride, dtype.itemsize)
    storage_impl = make_intrusive(StorageImpl, size_bytes, allocator, True)
    tensor = make_tensor(Storage(storage_impl), ks, dtype)
    tensor.unsafeGetTensorImpl().set_sizes_and_strides(tuple(size), tuple(stride))
    return tensor


def _cpu_check(device: Device | None, pin_memory: bool | None) -> None:
    TORCH_CHECK(device is None or device.is_cpu(), "empty_cpu: expected a CPU device, got ",
                device)
    TORCH_CHECK(not pin_memory, "Cannot pin memory: no accelerator is available to pin it for")


@traced("native", "at::detail::empty_cpu", SOURCE, legacy="empty_cpu")
def empty_cpu(size: Sequence[int], dtype: ScalarType | None = None,
              device: Device | None = None, pin_memory: bool | None = None) -> Tensor:
    _cpu_check(device, pin_memory)
    allocator = GetCPUAllocator()
    return empty_generic(size, allocator, CPU_KS,
                         dtype if dtype is not None else get_default_dtype())


@traced("native", "at::detail::empty_strided_cpu", SOURCE, legacy="at::empty_strided")
def empty_strided_cpu(size: Sequence[int], stride: Sequence[int],
                      dtype: ScalarType | None = None, device: Device | None = None,
                      pin_memory: bool | None = None) -> Tensor:
    _cpu_check(device, pin_memory)
    allocator = GetCPUAllocator()
    return empty_strided_generic(size, stride, allocator, CPU_KS,
                                 dtype if dtype is not None else get_default_dtype())
