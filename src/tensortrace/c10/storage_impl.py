"""StorageImpl and Storage: the refcounted owner of a tensor's memory, shared by its views.

Mirrors `c10/core/StorageImpl.h` and `c10/core/Storage.h`. A StorageImpl holds the DataPtr, its
size in bytes and the allocator; Storage is the owning handle (an intrusive_ptr<StorageImpl>)
that every TensorImpl keeps. See Note [Views share storage].

Note [Views share storage]
A view (select, as_strided, t, ...) is a new TensorImpl with its own sizes, strides and offset,
made with a *copy* of its base's Storage handle, so the one StorageImpl's refcount goes up. The
memory goes back to the allocator only when the last TensorImpl holding the storage releases it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.c10.allocator import Allocator, DataPtr
from tensortrace.c10.device import Device, kMeta
from tensortrace.c10.intrusive_ptr import intrusive_ptr, intrusive_ptr_target, object_ids
from tensortrace.trace import recorder, schema, traced

_new_object = object.__new__


# str(Device) by (type, index): what StorageImpl._trace_info records
_DEVICE_TEXTS: dict[tuple[Any, int | None], str] = {}


class StorageImpl(intrusive_ptr_target):
    __slots__ = ("data_ptr_", "size_bytes_", "allocator_", "resizable_")

    @traced(
        "native", "c10::StorageImpl::StorageImpl", "c10/core/StorageImpl.h", legacy="StorageImpl"
    )
    def __init__(
        self,
        size_bytes: int,
        allocator: Allocator | None,
        resizable: bool,
        data_ptr: DataPtr | None = None,
    ) -> None:
        """StorageImpl(use_byte_size_t, size_bytes, [data_ptr,] allocator, resizable).

        Without a data_ptr the storage asks its allocator for `size_bytes` of memory.
        """
        # intrusive_ptr_target's constructor, written out: one call fewer per object, and no
        # super() (a method with a __class__ cell is not traced by code swap, Note [Traced
        # functions that cost nothing while idle]); make_intrusive sets the counts to 1
        self.refcount_ = self.weakcount_ = 0
        self._id = object_id = next(object_ids)
        self.trace_name = f"{type(self).__name__}#{object_id}"
        if data_ptr is None:
            assert allocator is not None, "a StorageImpl without data needs an allocator"
            data_ptr = allocator.allocate(size_bytes)
        self.data_ptr_ = data_ptr
        self.size_bytes_ = size_bytes
        self.allocator_ = allocator
        self.resizable_ = resizable

    def nbytes(self) -> int:
        return self.size_bytes_

    def data(self) -> int:
        return self.data_ptr_.get()

    def data_ptr(self) -> DataPtr:
        return self.data_ptr_

    def device(self) -> Device:
        return self.data_ptr_.device

    def allocator(self) -> Allocator | None:
        return self.allocator_

    def resizable(self) -> bool:
        return self.resizable_

    def bytes_view(self) -> np.ndarray:
        """The memory as a NumPy uint8 array (an empty one for a zero-byte storage)."""
        if recorder.current is not None:  # the caller may write it: Note [What a step may
            recorder.current.written.add(self)  # have changed]
        ctx = self.data_ptr_.ctx  # get_context(), read directly: every kernel's view asks
        if ctx is None:
            if self.data_ptr_.device.type_ is kMeta:  # Note [Meta kernels for free]
                raise RuntimeError(
                    "tensortrace: a kernel asked for the data of a meta tensor, which has none"
                )
            return np.empty(0, np.uint8)
        return ctx

    @traced(
        "refcount",
        "c10::StorageImpl::release_resources",
        "c10/core/StorageImpl.h",
        legacy="StorageImpl::release_resources",
    )
    def release_resources(self) -> None:
        """The last reference is gone: clear the DataPtr, whose deleter frees the memory."""
        # self.data_ptr_.clear(), written out: every free runs it (one call fewer)
        data_ptr = self.data_ptr_
        ctx, deleter = data_ptr.ctx, data_ptr.deleter
        data_ptr.data, data_ptr.ctx, data_ptr.deleter = 0, None, None
        if deleter is not None:
            deleter(ctx)

    def _trace_summary(self) -> dict[str, Any] | str:
        name = getattr(self, "trace_name", None)
        if name is None:  # the `self` of __init__: named by its type, as summarize names it,
            return type(self).__name__  # without raising (Note [A summary by one lookup])
        # schema.summary(STORAGE_IMPL, ...) written out: one call per StorageImpl, not two
        return {
            schema.SUMMARY: schema.STORAGE_IMPL,
            "object": name,
            "nbytes": self.size_bytes_,
            "refcount": self.refcount_,
        }

    def _trace_info(self) -> dict[str, object]:
        # what make_intrusive's instant records of every StorageImpl made while recording: the
        # address read directly, the device's text from a table (str(Device) is five calls)
        data_ptr = self.data_ptr_
        device = data_ptr.device
        key = (device.type_, device.index_)
        text = _DEVICE_TEXTS.get(key)
        if text is None:
            text = _DEVICE_TEXTS[key] = str(device)
        return {"nbytes": self.size_bytes_, "addr": data_ptr.data, "device": text}

    def _record_new_data(self) -> None:
        """While recording: the storage now holds another block (a resize, a move to shared
        memory), so its values are read again and the replay sees its new address."""
        rec = recorder.current
        if rec is not None:
            rec.written.add(self)  # Note [What a step may have changed]
            info = {"object": self.trace_name, **self._trace_info()}
            rec.instant(schema.STORAGE_DATA, "native", self.trace_name, info)


class Storage:
    """The owning handle to a StorageImpl (c10::Storage wraps intrusive_ptr<StorageImpl>)."""

    __slots__ = ("storage_impl_",)

    def __init__(self, storage_impl: intrusive_ptr[StorageImpl]) -> None:
        self.storage_impl_ = storage_impl

    def copy(self) -> Storage:
        """Storage's copy constructor: one more owner of the same StorageImpl."""
        storage = _new_object(Storage)  # Storage(...): Note [Pointers made in C]
        ptr = self.storage_impl_
        target = ptr.target_
        if target is None or recorder.current is not None:
            storage.storage_impl_ = ptr.copy()
            return storage
        # ptr.copy() with no trace to tell, written out: every view shares its storage this way
        target.refcount_ += 1
        storage.storage_impl_ = new_ptr = _new_object(intrusive_ptr)
        new_ptr.target_ = target
        return storage

    def unsafeGetStorageImpl(self) -> StorageImpl:
        return self.storage_impl_.get()

    def defined(self) -> bool:
        return self.storage_impl_.defined()

    def nbytes(self) -> int:
        return self.storage_impl_.get().nbytes()

    def data(self) -> int:
        return self.storage_impl_.get().data()

    def use_count(self) -> int:
        return self.storage_impl_.get().use_count()

    def device(self) -> Device:
        return self.storage_impl_.get().device()

    def is_alias_of(self, other: Storage) -> bool:
        return self.storage_impl_.target_ is other.storage_impl_.target_

    def reset(self) -> None:
        self.storage_impl_.reset_()
