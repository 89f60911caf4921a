"""at::detail::empty_cpu and friends: make a StorageImpl, allocate, and wrap it in a TensorImpl.

Mirrors `aten/src/ATen/EmptyTensor.cpp`: `empty_generic` (compute the bytes, make_intrusive a
StorageImpl that asks the allocator for them, make_tensor a TensorImpl, set_sizes_contiguous) and
`empty_strided_generic`. These are not dispatcher ops: native kernels and TensorIterator call
them directly, which is why torch.profiler shows no `aten::empty_strided` under `aten::add`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.allocator import (
    REGISTER_ALLOCATOR,
    Allocator,
    DataPtr,
    DeleterFnPtr,
    GetAllocator,
)
from tensortrace.c10.cpu_allocator import GetCPUAllocator
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import Device, DeviceType, kCPU
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet
from tensortrace.c10.exception import torchCheckFail
from tensortrace.c10.intrusive_ptr import intrusive_ptr, make_intrusive
from tensortrace.c10.scalar_type import _TYPE_METAS, ScalarType, TypeMeta
from tensortrace.c10.storage_impl import Storage, StorageImpl
from tensortrace.c10.tensor_impl import TensorImpl
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/EmptyTensor.cpp"
_new_object = object.__new__
CPU_KS = DispatchKeySet(DispatchKey.CPU)


def check_size_nonnegative(size: Sequence[int]) -> None:
    for x in size:
        if x < 0:  # Note [TORCH_CHECK tests first]
            torchCheckFail("Trying to create tensor with negative dimension ", x, ": ", list(size))


# Note [Storage size overflow]: EmptyTensor.cpp computes the bytes in uint64 with overflow
# checks (c10/util/safe_numerics.h) and refuses any size above storage_max(), the largest value
# both int64_t and size_t hold, before the allocator is asked: torch.empty(2**62) is a
# RuntimeError naming the sizes, and a negative stride's reach (stride * (size - 1) < 0) does not
# fit in uint64 either.
UINT64_LIMIT = 1 << 64
STORAGE_MAX = (1 << 63) - 1  # storage_max(): min(int64_t max, size_t max)


def _mul_overflows(a: int, b: int) -> tuple[bool, int]:
    """c10::mul_overflows into a uint64_t: (overflowed, the product modulo 2**64)."""
    product = a * b
    return not 0 <= product < UINT64_LIMIT, product % UINT64_LIMIT


def computeStorageNbytesContiguous(
    sizes: Sequence[int],
    itemsize: int,
    storage_offset: int = 0,
) -> int:
    # the common case first: with every size >= 1 each partial product is at most the total,
    # so when the total bytes fit no step can have overflowed (the same answer, no _mul_overflows)
    size = 1
    for s in sizes:
        if s < 1:
            break
        size *= s
    else:
        nbytes = (size + storage_offset) * itemsize
        if storage_offset >= 0 and nbytes <= STORAGE_MAX:
            return nbytes
    size = 1
    overflowed = False
    for s in sizes:  # safe_multiplies_u64: each int64 size read as a uint64
        step_overflowed, size = _mul_overflows(size, s % UINT64_LIMIT)
        overflowed |= step_overflowed
    size += storage_offset
    overflowed |= size >= UINT64_LIMIT
    step_overflowed, size = _mul_overflows(size % UINT64_LIMIT, itemsize)
    overflowed |= step_overflowed or size > STORAGE_MAX
    if overflowed:
        torchCheckFail("Storage size calculation overflowed with sizes=", list(sizes))
    return size


def computeStorageNbytes(
    sizes: Sequence[int], strides: Sequence[int], itemsize: int, storage_offset: int = 0
) -> int:
    """Bytes needed to reach the last element: itemsize * (1 + offset + sum((size-1)*stride))."""
    if len(sizes) != len(strides):  # Note [TORCH_CHECK tests first]
        torchCheckFail(
            "dimensionality of sizes (",
            len(sizes),
            ") must match dimensionality of strides (",
            len(strides),
            ")",
        )
    # the common case first, as in computeStorageNbytesContiguous: with a non-negative offset
    # and strides every partial sum is at most the total, so a total that fits never overflowed
    size = storage_offset + 1
    if storage_offset >= 0:
        for s, st in zip(sizes, strides):
            if s == 0:
                return 0
            if st < 0:
                break
            size += (s - 1) * st
        else:
            nbytes = size * itemsize
            if nbytes <= STORAGE_MAX:
                return nbytes
    size = storage_offset + 1
    overflowed = False
    for s, st in zip(sizes, strides):
        if s == 0:
            return 0
        step_overflowed, strided_size = _mul_overflows(st, s - 1)
        size += strided_size
        overflowed |= step_overflowed or size >= UINT64_LIMIT
        size %= UINT64_LIMIT
    step_overflowed, size = _mul_overflows(size, itemsize)
    overflowed |= step_overflowed or size > STORAGE_MAX
    if overflowed:
        torchCheckFail(
            "Storage size calculation overflowed with sizes=",
            list(sizes),
            " and strides=",
            list(strides),
        )
    return size


def _check_storable(dtype: TypeMeta) -> None:
    """complex32 has no NumPy element type for the kernels to compute in: refused up front
    (torch 2.13 allocates it with an "experimental" warning)."""
    if dtype.numpy is None and dtype.scalar_type == ScalarType.ComplexHalf:  # no call per empty
        torchCheckFail("tensortrace does not store complex32 (torch.chalf) elements")


# intrusive_ptr.make, read once: CPython 3.11 specializes no read of a class's attribute
_make_pointer = intrusive_ptr.make


def make_tensor(storage: Storage, key_set: DispatchKeySet, dtype: TypeMeta) -> Tensor:
    """at::detail::make_tensor<TensorImpl>: a new TensorImpl, owned by a new Tensor."""
    return Tensor(intrusive_ptr.make(TensorImpl(storage, key_set, dtype)))


@traced("native", "at::detail::empty_generic", SOURCE, legacy="empty_cpu (make StorageImpl)")
def empty_generic(
    size: Sequence[int], allocator: Allocator, ks: DispatchKeySet, scalar_type: ScalarType
) -> Tensor:
    if size and min(size) < 0:  # check_size_nonnegative's test, made before the call
        check_size_nonnegative(size)
    dtype = _TYPE_METAS[scalar_type]  # TypeMeta.fromScalarType(scalar_type), read directly
    if dtype.numpy is None:  # _check_storable's test, made before the call
        _check_storable(dtype)
    size_bytes = computeStorageNbytesContiguous(size, dtype.itemsize)
    # make_intrusive(StorageImpl, ...) and make_tensor(...), written out: every new tensor
    # comes here (two calls fewer), and the TensorImpl is at hand to set its sizes
    storage = _new_object(Storage)  # Storage(...): Note [Pointers made in C]
    storage.storage_impl_ = _make_pointer(StorageImpl(size_bytes, allocator, True))
    impl = TensorImpl(storage, ks, dtype)
    tensor = _new_object(Tensor)  # Tensor(...): Note [Pointers made in C]
    tensor.impl_ = _make_pointer(impl)
    # Default TensorImpl has size [0]
    if len(size) != 1 or size[0] != 0:
        impl.set_sizes_contiguous(tuple(size))
    return tensor


@traced("native", "at::detail::empty_strided_generic", SOURCE)
def empty_strided_generic(
    size: Sequence[int],
    stride: Sequence[int],
    allocator: Allocator,
    ks: DispatchKeySet,
    scalar_type: ScalarType,
) -> Tensor:
    check_size_nonnegative(size)
    dtype = TypeMeta.fromScalarType(scalar_type)
    _check_storable(dtype)
    size_bytes = computeStorageNbytes(size, stride, dtype.itemsize)
    storage_impl = make_intrusive(StorageImpl, size_bytes, allocator, True)
    tensor = make_tensor(Storage(storage_impl), ks, dtype)
    tensor.unsafeGetTensorImpl().set_sizes_and_strides(tuple(size), tuple(stride))
    return tensor


def _cpu_check(device: Device | None, pin_memory: bool | None) -> None:
    if not (device is None or device.is_cpu()):
        torchCheckFail("empty_cpu: expected a CPU device, got ", device)
    if pin_memory:
        torchCheckFail("Cannot pin memory: no accelerator is available to pin it for")


@traced("native", "at::detail::empty_cpu", SOURCE, legacy="empty_cpu")
def empty_cpu(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    # _cpu_check's tests, made before the call (Note [TORCH_CHECK tests first]): it has nothing
    # to refuse for no device or a CPU one (an output's options name the CPU device)
    if (device is not None and device.type_ is not kCPU) or pin_memory:
        _cpu_check(device, pin_memory)
    allocator = GetCPUAllocator()
    return empty_generic(
        size, allocator, CPU_KS, dtype if dtype is not None else get_default_dtype()
    )


# Note [The 2019 name of an output allocation]: seed 000's TensorIterator::allocate_outputs
# allocates every output with `op.tensor = at::empty_strided(tensor_shape, tensor_stride, ...)`.
# Today's create_out calls at::detail::empty_cpu when the strides are contiguous, the same
# function at::native::empty_cpu calls for torch.empty (whose 2019 name is empty_cpu): the frame
# an output allocation opens keeps the modern name and says the 2019 one seed 000 shows.
empty_cpu_for_output = traced(
    "native", "at::detail::empty_cpu", SOURCE, legacy="at::empty_strided"
)(getattr(empty_cpu, "__wrapped__", empty_cpu))


@traced("native", "at::detail::empty_strided_cpu", SOURCE, legacy="at::empty_strided")
def empty_strided_cpu(
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    if device is not None or pin_memory:  # _cpu_check has nothing to refuse otherwise
        _cpu_check(device, pin_memory)
    allocator = GetCPUAllocator()
    return empty_strided_generic(
        size, stride, allocator, CPU_KS, dtype if dtype is not None else get_default_dtype()
    )


# ---- the Meta backend: sizes, strides and dtype with no data -------------------------------------
def _deleteNothing(ctx: object) -> None:
    """EmptyTensor.cpp's deleteNothing: a meta DataPtr owns nothing."""


class MetaAllocator(Allocator):
    """EmptyTensor.cpp's MetaAllocator: every allocation is a null DataPtr on the meta device.

    It reports nothing to the profiler (no reportMemoryUsageToProfiler call), so a meta tensor
    makes no `[memory]` instant in the trace; its StorageImpl still records the bytes the
    data would take (`untyped_storage().nbytes()`), with address 0.
    """

    def allocate(self, nbytes: int) -> DataPtr:
        return DataPtr(0, None, _deleteNothing, META_DEVICE)

    def raw_deleter(self) -> DeleterFnPtr | None:
        return _deleteNothing


META_DEVICE = Device(DeviceType.Meta)
META_KS = DispatchKeySet(DispatchKey.Meta)
g_meta_alloc = MetaAllocator()
REGISTER_ALLOCATOR(DeviceType.Meta, g_meta_alloc)


def _meta_check(device: Device | None, layout: str | None) -> None:
    if device is not None and device.type_ != DeviceType.Meta:
        torchCheckFail("empty_meta: expected a meta device, got ", device)
    # NB: because there is no SparseMeta (yet), non-strided layout is exerciseable
    if layout is not None and layout != "strided":
        raise NotImplementedError("non-strided meta tensors not supported yet")


@traced("native", "at::detail::empty_meta", SOURCE)
def empty_meta(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    device: Device | None = None,
    layout: str | None = None,
) -> Tensor:
    """at::detail::empty_meta: empty_generic over GetAllocator(kMeta) with the Meta key."""
    _meta_check(device, layout)
    return empty_generic(
        size,
        GetAllocator(DeviceType.Meta),
        META_KS,
        dtype if dtype is not None else get_default_dtype(),
    )


@traced("native", "at::detail::empty_strided_meta", SOURCE)
def empty_strided_meta(
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    device: Device | None = None,
    layout: str | None = None,
) -> Tensor:
    _meta_check(device, layout)
    return empty_strided_generic(
        size,
        stride,
        GetAllocator(DeviceType.Meta),
        META_KS,
        dtype if dtype is not None else get_default_dtype(),
    )
