"""Moving a storage to shared memory, and mapping one another process shared.

Mirrors `torch/csrc/StorageSharing.cpp` (THPStorage_shareFd / shareFilename, newSharedFd /
newSharedFilename, newWithWeakPtr, weakRef, sharedIncref / sharedDecref, isShared) and the
Python half in `torch/storage.py` (share_memory_, _new_shared). The methods are set on
torch.UntypedStorage at the end of this module, as StorageSharing.cpp's method table is added
to THPStorage's.

Note [Sharing a storage swaps its memory]
`share_memory_()` does not make a new storage: it copies the bytes into a fresh shared-memory
mapping and gives the *same* StorageImpl that mapping's DataPtr. Every tensor and view of the
storage now reads and writes shared memory, and the old DataPtr's deleter returns the old block
to the CPU allocator (Note [Shared memory in the allocator's accounting]). A storage that is
already a mapping is left as it is, so sharing twice is free. The storage then has no allocator:
torch leaves such a storage resizable but crashes on a resize (a mapping cannot grow); here the
resize is refused with the message of a storage that is not resizable.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

from tensortrace.aten.map_allocator import (
    ALLOCATOR_MAPPED_EXCLUSIVE,
    ALLOCATOR_MAPPED_FROMFD,
    ALLOCATOR_MAPPED_KEEPFD,
    ALLOCATOR_MAPPED_NOCREATE,
    ALLOCATOR_MAPPED_SHAREDMEM,
    ALLOCATOR_MAPPED_UNLINK,
    MapAllocator,
    NewProcessWideShmHandle,
    RefcountedMapAllocator,
    makeDataPtr,
)
from tensortrace.c10.allocator import DataPtr
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.intrusive_ptr import intrusive_ptr
from tensortrace.c10.storage_impl import Storage, StorageImpl
from tensortrace.csrc.storage import THPStorage_Wrap, UntypedStorage
from tensortrace.trace import traced

SOURCE = "torch/csrc/StorageSharing.cpp"


def _new_mapped_storage(ctx: MapAllocator) -> Storage:
    """at::Storage(use_byte_size_t, size, MapAllocator::makeDataPtr(...), nullptr, false)."""
    impl = StorageImpl(ctx.size(), None, False, makeDataPtr(ctx))
    return Storage(intrusive_ptr.make(impl))


def new_shm_fd_storage(size: int) -> Storage:
    """A storage of `size` bytes in an unlinked shm object whose fd it keeps (file_descriptor)."""
    flags = (
        ALLOCATOR_MAPPED_SHAREDMEM
        | ALLOCATOR_MAPPED_EXCLUSIVE
        | ALLOCATOR_MAPPED_KEEPFD
        | ALLOCATOR_MAPPED_UNLINK
    )
    return _new_mapped_storage(MapAllocator(NewProcessWideShmHandle(), flags, size))


def new_shm_filename_storage(size: int) -> Storage:
    """A storage of `size` bytes in a named, refcounted shm object (file_system)."""
    flags = ALLOCATOR_MAPPED_SHAREDMEM | ALLOCATOR_MAPPED_EXCLUSIVE
    return _new_mapped_storage(RefcountedMapAllocator(NewProcessWideShmHandle(), flags, size))


def _swap_in(impl: StorageImpl, new: Storage) -> None:
    """Copy the bytes into `new`'s mapping and give `impl` its DataPtr: Note [Sharing a
    storage swaps its memory]."""
    new_impl = new.unsafeGetStorageImpl()
    nbytes = impl.nbytes()
    if nbytes:
        new_impl.bytes_view()[:nbytes] = impl.bytes_view()[:nbytes]  # at::storage_copy
    old = impl.data_ptr_
    impl.data_ptr_ = new_impl.data_ptr_
    new_impl.data_ptr_ = DataPtr(0, None, None, old.device)  # moved from
    impl.allocator_ = None
    impl.resizable_ = False
    impl._record_new_data()
    old.clear()  # the old block goes back to its allocator


def _check_cpu(storage: UntypedStorage, what: str) -> StorageImpl:
    impl = storage._cdata.unsafeGetStorageImpl()
    TORCH_CHECK(impl.device().is_cpu(), what, ": only available on CPU")
    return impl


@traced("python", "THPStorage_shareFd", SOURCE)
def _share_fd_cpu_(self: UntypedStorage) -> tuple[int, int]:
    """Move to an fd-backed mapping (unless one already): (fd, size in bytes)."""
    impl = _check_cpu(self, "_share_fd_")
    ctx = MapAllocator.fromDataPtr(impl.data_ptr_)
    if ctx is None or ctx.fd() == -1:
        _swap_in(impl, new_shm_fd_storage(impl.nbytes()))
        ctx = MapAllocator.fromDataPtr(impl.data_ptr_)
        assert ctx is not None
    return ctx.fd(), impl.nbytes()


@traced("python", "THPStorage_shareFilename", SOURCE)
def _share_filename_cpu_(self: UntypedStorage) -> tuple[bytes, bytes, int]:
    """Move to a named mapping (unless one already): (manager handle, name, size in bytes).

    torch's first element names its torch_shm_manager's socket; there is no manager process
    here (the count in the mapping unlinks the name), so it is empty."""
    impl = _check_cpu(self, "_share_filename_")
    ctx = MapAllocator.fromDataPtr(impl.data_ptr_)
    if not isinstance(ctx, RefcountedMapAllocator):
        _swap_in(impl, new_shm_filename_storage(impl.nbytes()))
        ctx = MapAllocator.fromDataPtr(impl.data_ptr_)
        assert ctx is not None
    return b"", ctx.filename().encode(), impl.nbytes()


@traced("python", "THPStorage_newSharedFd", SOURCE)
def _new_shared_fd_cpu(cls: type, fd: int, size: int) -> UntypedStorage:
    """Map the shm object behind another process's fd (received over a socket: a dup here)."""
    flags = (
        ALLOCATOR_MAPPED_SHAREDMEM
        | ALLOCATOR_MAPPED_NOCREATE
        | ALLOCATOR_MAPPED_KEEPFD
        | ALLOCATOR_MAPPED_FROMFD
    )
    ctx = MapAllocator("", flags, size, fd=os.dup(fd))
    return THPStorage_Wrap(_new_mapped_storage(ctx))


@traced("python", "THPStorage_newSharedFilename", SOURCE)
def _new_shared_filename_cpu(cls: type, manager: bytes, handle: bytes, size: int) -> UntypedStorage:
    flags = ALLOCATOR_MAPPED_SHAREDMEM | ALLOCATOR_MAPPED_NOCREATE
    ctx = RefcountedMapAllocator(handle.decode(), flags, size)
    return THPStorage_Wrap(_new_mapped_storage(ctx))


def _new_using_fd_cpu(cls: type, size: int) -> UntypedStorage:
    return THPStorage_Wrap(new_shm_fd_storage(size))


def _new_using_filename_cpu(cls: type, size: int) -> UntypedStorage:
    return THPStorage_Wrap(new_shm_filename_storage(size))


def _shared_incref(self: UntypedStorage) -> None:
    ctx = MapAllocator.fromDataPtr(self._cdata.unsafeGetStorageImpl().data_ptr_)
    if isinstance(ctx, RefcountedMapAllocator):
        ctx.incref()


def _shared_decref(self: UntypedStorage) -> UntypedStorage:
    ctx = MapAllocator.fromDataPtr(self._cdata.unsafeGetStorageImpl().data_ptr_)
    if isinstance(ctx, RefcountedMapAllocator):
        ctx.decref()
    return self


def is_shared(self: UntypedStorage) -> bool:
    """THPStorage_isShared: CUDA memory always is; CPU memory when it is a mapping."""
    impl = self._cdata.unsafeGetStorageImpl()
    if impl.device().type == "cuda":
        return True
    return MapAllocator.fromDataPtr(impl.data_ptr_) is not None


def share_memory_(self: UntypedStorage) -> UntypedStorage:
    """torch/storage.py: move to shared memory by the current sharing strategy (CPU only)."""
    from tensortrace.multiprocessing import get_sharing_strategy

    if self.device.type not in ("cpu", "meta"):
        pass  # only CPU uses POSIX shared memory
    elif get_sharing_strategy() == "file_system":
        _share_filename_cpu_(self)
    else:
        _share_fd_cpu_(self)
    return self


def _new_shared(cls: type, size: int, *, device: Any = "cpu") -> UntypedStorage:
    """A new storage of `size` bytes in shared memory (torch/storage.py)."""
    from tensortrace import device as make_device
    from tensortrace.multiprocessing import get_sharing_strategy

    device = make_device(device)
    if device.type != "cpu":
        return UntypedStorage(size, device=device)
    if get_sharing_strategy() == "file_system":
        return _new_using_filename_cpu(cls, size)
    return _new_using_fd_cpu(cls, size)


# ---- weak references (StorageWeakRef in torch/multiprocessing/reductions.py) ---------------
# torch hands Python the address of a c10::weak_intrusive_ptr<StorageImpl>; here a number
# that names one in this table. A weak reference keeps the StorageImpl object, not its memory.
_weak_ptrs: dict[int, StorageImpl] = {}
_weak_ids = itertools.count(1)


def _weak_ref(self: UntypedStorage) -> int:
    impl = self._cdata.unsafeGetStorageImpl()
    impl.weakcount_ += 1
    cdata = next(_weak_ids)
    _weak_ptrs[cdata] = impl
    return cdata


def _expired(cls: type, cdata: int) -> bool:
    impl = _weak_ptrs.get(cdata)
    return impl is None or impl.refcount_ == 0


def _free_weak_ref(cls: type, cdata: int) -> None:
    impl = _weak_ptrs.pop(cdata, None)
    if impl is not None:
        impl.weakcount_ -= 1


def _new_with_weak_ptr(cls: type, cdata: int) -> UntypedStorage | None:
    """weak_intrusive_ptr::lock(): the storage if it still lives, else None."""
    if _expired(cls, cdata):
        return None
    borrowed = intrusive_ptr(_weak_ptrs[cdata])  # not counted: copy() takes the reference
    storage = Storage(borrowed.copy())
    borrowed.target_ = None
    return THPStorage_Wrap(storage)


def _install() -> None:
    methods: tuple[Any, ...] = (
        _share_fd_cpu_,
        _share_filename_cpu_,
        _shared_incref,
        _shared_decref,
        _weak_ref,
        is_shared,
        share_memory_,
    )
    for fn in methods:
        setattr(UntypedStorage, fn.__name__, fn)
    class_methods: tuple[Any, ...] = (
        _new_shared_fd_cpu,
        _new_shared_filename_cpu,
        _new_using_fd_cpu,
        _new_using_filename_cpu,
        _new_shared,
        _expired,
        _free_weak_ref,
        _new_with_weak_ptr,
    )
    for fn in class_methods:
        setattr(UntypedStorage, fn.__name__, classmethod(fn))


_install()

__all__ = ["is_shared", "new_shm_fd_storage", "new_shm_filename_storage", "share_memory_"]
