"""Bounds checks for views and resizing of outputs.

Mirrors `aten/src/ATen/native/Resize.h` / `Resize.cpp`: checkInBoundsForStorage (the check behind
as_strided's "out of bounds for storage" error), setStrided, resize_bytes_cpu, resize_output
(with its warning when an out= tensor with elements has to be resized).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from tensortrace.aten.empty_tensor import (
    STORAGE_MAX,
    UINT64_LIMIT,
    computeStorageNbytes,
    computeStorageNbytesContiguous,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor, null_deref
from tensortrace.c10.device import kMeta
from tensortrace.c10.exception import TORCH_CHECK, torchCheckFail
from tensortrace.c10.storage_impl import StorageImpl
from tensortrace.c10.tensor_impl import TensorImpl, contiguous_strides
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Resize.h"


def checkInBoundsForStorage(
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int,
    itemsize: int,
    storage_nbytes: int,
) -> None:
    new_storage_size_bytes = computeStorageNbytes(size, stride, itemsize)
    storage_offset_bytes = storage_offset * itemsize
    if new_storage_size_bytes == 0:
        return
    new_storage_size_bytes += storage_offset_bytes
    if storage_nbytes < new_storage_size_bytes:  # Note [TORCH_CHECK tests first]
        torchCheckFail(
            "setStorage: sizes ",
            list(size),
            ", strides ",
            list(stride),
            ", storage offset ",
            storage_offset,
            ", and itemsize ",
            itemsize,
            " requiring a storage size of ",
            new_storage_size_bytes,
            " are out of bounds for storage of size ",
            storage_nbytes,
        )


@traced("native", "at::native::setStrided", SOURCE, legacy="as_strided (TensorShape.cpp)")
def setStrided(
    self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int
) -> None:
    if len(size) != len(stride):  # Note [TORCH_CHECK tests first]
        torchCheckFail("mismatch in length of strides and shape")
    for s in stride:
        if s < 0:  # Note [TORCH_CHECK tests first]: list(stride) only on failure
            torchCheckFail(
                "as_strided: Negative strides are not supported at the moment, got strides: ",
                list(stride),
            )
    impl = self.impl_.target_ or null_deref()  # Note [Direct reads on hot paths]
    # impl.itemsize(), impl.storage_.nbytes(), read directly
    nbytes = (impl.storage_.storage_impl_.target_ or null_deref()).size_bytes_
    checkInBoundsForStorage(size, stride, storage_offset, impl.data_type_.itemsize, nbytes)
    if storage_offset < 0:
        torchCheckFail("Tensor: invalid storage offset ", storage_offset)
    impl.set_sizes_and_strides(tuple(size), tuple(stride), storage_offset)


@traced("native", "at::native::resize_bytes_cpu", "aten/src/ATen/native/Resize.cpp")
def resize_bytes_cpu(storage: StorageImpl, size_bytes: int) -> None:
    """Give the storage a new DataPtr of `size_bytes`, keeping the old contents that fit."""
    TORCH_CHECK(storage.resizable(), "Trying to resize storage that is not resizable")
    allocator = storage.allocator()
    assert allocator is not None
    new_data = allocator.allocate(size_bytes)
    old_data = storage.data_ptr_
    keep = min(storage.nbytes(), size_bytes)
    if keep > 0:
        new_data.get_context()[:keep] = old_data.get_context()[:keep]  # type: ignore[index]
    storage.data_ptr_ = new_data
    storage.size_bytes_ = size_bytes
    storage._record_new_data()
    old_data.clear()


def safe_compute_numel(sizes: Sequence[int]) -> None:
    """TensorImpl::safe_compute_numel, which refresh_numel runs on every new size: the product
    of the sizes read as uint64 (a negative size is a huge one), refused above int64 max.

    Note [resize_ has no negative-size check]: resize_ never calls check_size_nonnegative; a
    negative size fails here, after the TensorImpl took the new sizes (torch leaves them set),
    and `resize_(0, -1)` passes, as in torch."""
    n, overflows = 1, False
    for s in sizes:
        n *= s % UINT64_LIMIT
        if n >= UINT64_LIMIT:
            overflows, n = True, n % UINT64_LIMIT
    if overflows or n > STORAGE_MAX:  # Note [TORCH_CHECK tests first]
        torchCheckFail("numel: integer multiplication overflow")


def resize_impl_cpu_(
    impl: TensorImpl, size: Sequence[int], stride: Sequence[int] | None = None
) -> None:
    if tuple(size) == impl.sizes_ and (stride is None or tuple(stride) == impl.strides_):
        return
    itemsize = impl.itemsize()
    if stride is None:
        impl.set_sizes_contiguous(tuple(size))
        safe_compute_numel(size)
        needed = computeStorageNbytesContiguous(size, itemsize, impl.storage_offset_)
    else:
        impl.set_sizes_and_strides(tuple(size), tuple(stride))
        safe_compute_numel(size)
        needed = computeStorageNbytes(size, stride, itemsize, impl.storage_offset_)
    storage = impl.storage_.unsafeGetStorageImpl()
    if needed > storage.nbytes():
        if storage.data_ptr_.device.type_ is kMeta:  # Note [Enum members read once]
            maybe_resize_storage_meta(storage, needed)
        else:
            resize_bytes_cpu(storage, needed)


def maybe_resize_storage_meta(storage: StorageImpl, size_bytes: int) -> None:
    """Resize.h's resize for a meta tensor's storage: only its byte count grows (set_nbytes);
    there is no memory to allocate or copy."""
    TORCH_CHECK(storage.resizable(), "Trying to resize storage that is not resizable")
    storage.size_bytes_ = size_bytes


@traced("native", "at::native::resize_output", "aten/src/ATen/native/Resize.cpp")
def resize_output(output: Tensor, shape: Sequence[int]) -> bool:
    """Resize an out= tensor to `shape`; warn if it had elements (PyTorch deprecates that)."""
    if tuple(output.sizes()) == tuple(shape):
        return False
    if output.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(output.sizes())}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with "
            "t.resize_(0).",
            UserWarning,
            stacklevel=2,
        )
    resize_impl_cpu_(output.unsafeGetTensorImpl(), shape)
    return True


__all__ = [
    "checkInBoundsForStorage",
    "contiguous_strides",
    "resize_",
    "resize_bytes_cpu",
    "resize_impl_cpu_",
    "resize_output",
    "setStrided",
]


@native_function("aten/src/ATen/native/Resize.cpp", name="resize_")
def resize_(self: Tensor, size: Sequence[int], memory_format: str | None = None) -> Tensor:
    """Tensor.resize_(size): contiguous sizes; the storage grows if needed, never shrinks."""
    TORCH_CHECK(
        memory_format in (None, "contiguous_format", "preserve_format"),
        "tensortrace supports only torch.contiguous_format, got ",
        memory_format,
    )
    resize_impl_cpu_(self.unsafeGetTensorImpl(), size)
    return self


# the Meta kernel (Resize.cpp's resize__symint): the same steps; a meta storage only grows its
# byte count (maybe_resize_storage_meta)
native_function("aten/src/ATen/native/Resize.cpp", name="resize__symint")(
    getattr(resize_, "__wrapped__", resize_)
)
