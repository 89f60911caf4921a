"""How a tensor or a storage crosses a process boundary: as a handle to shared memory.

Mirrors `torch/multiprocessing/reductions.py`. ForkingPickler (what multiprocessing's queues
and pipes pickle with) is told to reduce a Tensor to (rebuild_tensor, its TypedStorage and its
offset, sizes, strides) and an UntypedStorage to a handle of its memory: the storage is first
moved to shared memory (Note [Sharing a storage swaps its memory]), then sent as a duplicated
file descriptor ("file_descriptor") or a shm name ("file_system"). The receiver maps the same
memory, so a view arrives as a view: same storage offset and strides over the same bytes.

A cache of handle -> weak storage reference makes two tensors that share a storage arrive
sharing one storage again, and lets the sender keep its storage alive only as long as it must.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.resource_sharer  # noqa: F401 (before any fork: see torch's note)
import os
import sys
import threading
from multiprocessing.reduction import ForkingPickler
from multiprocessing.util import register_after_fork
from typing import Any

import tensortrace as torch
from tensortrace._utils import _rebuild_tensor
from tensortrace.csrc.storage import TypedStorage, UntypedStorage


class StorageWeakRef:
    """A weak reference to a storage: `cdata` names a weak pointer to its StorageImpl."""

    __slots__ = ["cdata", "_free_weak_ref"]

    def __init__(self, storage: Any) -> None:
        self.cdata = storage._weak_ref()
        # kept here: the module may be torn down before this object at interpreter exit
        self._free_weak_ref = UntypedStorage._free_weak_ref  # type: ignore[attr-defined]

    @classmethod
    def from_weakref(cls, cdata: int) -> StorageWeakRef:
        instance = cls.__new__(cls)
        instance.cdata = cdata
        instance._free_weak_ref = UntypedStorage._free_weak_ref  # type: ignore[attr-defined]
        return instance

    def expired(self) -> bool:
        return bool(UntypedStorage._expired(self.cdata))  # type: ignore[attr-defined]

    def __del__(self) -> None:
        self._free_weak_ref(self.cdata)

    def __hash__(self) -> int:
        return self.cdata

    def __eq__(self, other: object) -> bool:
        if id(self) == id(other):
            return True
        return isinstance(other, StorageWeakRef) and self.cdata == other.cdata


class SharedCache(dict[Any, StorageWeakRef]):
    """Multiprocessing handles to the storages they name (weakly); dead ones are dropped when
    the table outgrows its limit, which scales with the live entries."""

    def __init__(self) -> None:
        self.limit = 128
        # a fork may happen while the lock is held: the child gets a new one
        self._after_fork()
        register_after_fork(self, SharedCache._after_fork)

    def _after_fork(self) -> None:
        self.lock = threading.Lock()

    def get(self, key: Any) -> StorageWeakRef | None:  # type: ignore[override]
        with self.lock:
            return dict.get(self, key)

    def __setitem__(self, key: Any, storage_ref: StorageWeakRef) -> None:
        with self.lock:
            dict.__setitem__(self, key, storage_ref)
            if len(self) > self.limit:
                self.free_dead_references()

    def free_dead_references(self) -> None:
        live = 0
        for key, storage_ref in list(self.items()):
            if storage_ref.expired():
                del self[key]
            else:
                live += 1
        self.limit = max(128, live * 2)


# mapping from handles to StorageWeakRef objects
shared_cache = SharedCache()


def rebuild_tensor(cls: type, storage: TypedStorage, metadata: tuple[Any, ...]) -> Any:
    storage_offset, size, stride, requires_grad = metadata
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    parameter = sys.modules.get("tensortrace.nn.parameter")
    if parameter is not None and cls is parameter.Parameter:
        # through the constructor: an integer Parameter must be made with requires_grad=False
        return parameter.Parameter(t, requires_grad=requires_grad)
    t.requires_grad = requires_grad
    return t


def reduce_tensor(tensor: Any) -> tuple[Any, ...]:
    storage = tensor._typed_storage()
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, "
            "since autograd does not support crossing process boundaries.  "
            "If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue)."
        )
    from tensortrace._serialization_pickler import _warn_if_has_hooks

    _warn_if_has_hooks(tensor)  # torch.utils.hooks.warn_if_has_hooks
    if storage.device.type == "cuda":
        # torch sends a cudaIpcMemHandle; the emulated device's memory is this process's own
        raise RuntimeError(
            "tensortrace's emulated CUDA memory cannot be shared with another process: "
            "send the tensor's .cpu() copy instead"
        )
    # _backward_hooks purposely omitted here, see Note [Don't serialize hooks]
    metadata = (tensor.storage_offset(), tensor.size(), tensor.stride(), tensor.requires_grad)
    return (rebuild_tensor, (type(tensor), storage, metadata))


def fd_id(fd: int) -> tuple[int, int]:
    """What identifies the file behind a descriptor: (inode, device)."""
    stat = os.fstat(fd)
    return (stat.st_ino, stat.st_dev)


def storage_from_cache(cls: type, key: Any) -> Any:
    storage_ref = shared_cache.get(key)
    if storage_ref is None:
        return None
    return UntypedStorage._new_with_weak_ptr(storage_ref.cdata)  # type: ignore[attr-defined]


def rebuild_storage_fd(cls: Any, df: Any, size: int) -> Any:
    fd = df.detach()
    try:
        storage = storage_from_cache(cls, fd_id(fd))
        if storage is not None:
            return storage
        storage = cls._new_shared_fd_cpu(fd, size)
        shared_cache[fd_id(fd)] = StorageWeakRef(storage)
        return storage
    finally:
        os.close(fd)


def rebuild_storage_filename(
    cls: Any, manager: bytes, handle: bytes, size: int, dtype: Any = None
) -> Any:
    storage: Any = storage_from_cache(cls, handle)
    if storage is not None:
        return storage._shared_decref()
    if dtype is None:
        storage = UntypedStorage._new_shared_filename_cpu(manager, handle, size)  # type: ignore[attr-defined]
    else:
        byte_size = size * dtype.itemsize
        untyped = UntypedStorage._new_shared_filename_cpu(manager, handle, byte_size)  # type: ignore[attr-defined]
        storage = TypedStorage(wrap_storage=untyped, dtype=dtype)
    shared_cache[handle] = StorageWeakRef(storage)
    return storage._shared_decref()


def rebuild_storage_empty(cls: type) -> Any:
    return cls()


def rebuild_typed_storage(storage: UntypedStorage, dtype: Any) -> TypedStorage:
    return TypedStorage(wrap_storage=storage, dtype=dtype)


def reduce_typed_storage(storage: TypedStorage) -> tuple[Any, ...]:
    return (rebuild_typed_storage, (storage._untyped_storage, storage.dtype))


def reduce_storage(storage: Any) -> tuple[Any, ...]:
    from tensortrace.multiprocessing import get_sharing_strategy

    if storage.device.type == "cuda":
        raise RuntimeError("Cannot pickle CUDA storage; try pickling a CUDA tensor instead")
    if get_sharing_strategy() == "file_system":
        metadata: tuple[Any, ...] = storage._share_filename_cpu_()
        cache_key = metadata[1]
        rebuild: Any = rebuild_storage_filename
        if isinstance(storage, TypedStorage):
            metadata += (storage.dtype,)
        # the receiver's decref balances this one: the name outlives the sender's storage
        # until the receiver has mapped it
        storage._shared_incref()
    elif storage.size() == 0:
        # an empty storage cannot be mapped
        return (rebuild_storage_empty, (type(storage),))
    else:
        fd, size = storage._share_fd_cpu_()
        df = multiprocessing.reduction.DupFd(fd)  # type: ignore[attr-defined]
        cache_key = fd_id(fd)
        metadata = (df, size)
        rebuild = rebuild_storage_fd
    shared_cache[cache_key] = StorageWeakRef(storage)
    return (rebuild, (type(storage), *metadata))


def reduce_dtype(dtype: Any) -> tuple[Any, ...]:
    """torch.float32 pickles as the global `torch.float32`; tensortrace's dtype objects live
    in the package namespace too, which is where the receiver finds them."""
    return (rebuild_dtype, (dtype.name,))


def rebuild_dtype(name: str) -> Any:
    return getattr(torch, name)


def register_parameter() -> None:
    """Parameter's reduction: torch.nn loads on first use here, and registers it then too."""
    parameter = sys.modules.get("tensortrace.nn.parameter")
    if parameter is not None:
        ForkingPickler.register(parameter.Parameter, reduce_tensor)


def init_reductions() -> None:
    ForkingPickler.register(UntypedStorage, reduce_storage)
    ForkingPickler.register(TypedStorage, reduce_typed_storage)
    ForkingPickler.register(torch.Tensor, reduce_tensor)
    ForkingPickler.register(torch.dtype, reduce_dtype)
    register_parameter()
