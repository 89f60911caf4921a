"""Storages in shared memory (csrc/storage_sharing.py over aten/map_allocator.py): the memory
moves into a mapping of /dev/shm that the trace shows as a free and an allocation, the CPU
total stays exact, nothing is left in /dev/shm, and the handles map the same bytes again."""

from __future__ import annotations

import os
from typing import Any

import pytest

import tensortrace as torch
import tensortrace.multiprocessing as mp
from tensortrace.aten.map_allocator import MapAllocator, RefcountedMapAllocator
from tensortrace.trace.schema import ALLOC, FREE


def _impl(t: torch.Tensor) -> Any:
    return t.cdata.unsafeGetTensorImpl().storage_.unsafeGetStorageImpl()


def _torch_shm() -> set[str]:
    return {name for name in os.listdir("/dev/shm") if name.startswith(f"torch_{os.getpid()}_")}


def test_share_memory_moves_the_bytes_and_the_trace_shows_it() -> None:
    before = torch.memory_allocated("cpu")
    t = torch.arange(6.0)
    view = t[2:]
    address = t.data_ptr()
    with torch.record() as trace:
        t.share_memory_()
    kinds = [e.kind for e in trace.memory_events()]
    assert kinds == [ALLOC, FREE]  # the mapping is made, then the old block goes
    assert "at::MapAllocator::MapAllocator" in {n.name for n in trace.frames()}
    assert t.data_ptr() != address and view.data_ptr() == t.data_ptr() + 8
    assert view.tolist() == [2.0, 3.0, 4.0, 5.0] and view.is_shared()
    assert torch.memory_allocated("cpu") == before + 24
    assert isinstance(MapAllocator.fromDataPtr(_impl(t).data_ptr_), MapAllocator)
    fd, size = t.untyped_storage()._share_fd_cpu_()
    assert size == 24 and t.untyped_storage()._share_fd_cpu_() == (fd, 24)
    assert _torch_shm() == set()  # the fd strategy unlinks the name at once
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(10)
    del t, view
    assert torch.memory_allocated("cpu") == before


def test_a_shared_fd_maps_the_same_bytes() -> None:
    t = torch.zeros(4, dtype=torch.int32).share_memory_()
    fd, size = t.untyped_storage()._share_fd_cpu_()
    other = torch.UntypedStorage._new_shared_fd_cpu(fd, size)
    u = torch.empty(0, dtype=torch.int32).set_(other)
    u[1] = 7
    assert t.tolist() == [0, 7, 0, 0] and u.data_ptr() != t.data_ptr()


def test_file_system_strategy_counts_its_mappings_and_unlinks_the_name() -> None:
    before = torch.memory_allocated("cpu")
    mp.set_sharing_strategy("file_system")
    try:
        t = torch.arange(3).share_memory_()
        manager, handle, size = t.untyped_storage()._share_filename_cpu_()
        assert size == 24 and _torch_shm() == {handle.decode()[1:]}
        ctx = MapAllocator.fromDataPtr(_impl(t).data_ptr_)
        assert isinstance(ctx, RefcountedMapAllocator)
        other = torch.UntypedStorage._new_shared_filename_cpu(manager, handle, size)
        assert torch.empty(0, dtype=torch.int64).set_(other).tolist() == [0, 1, 2]
        del other
        assert _torch_shm() == {handle.decode()[1:]}  # t still maps it
        del t, ctx
        assert _torch_shm() == set()
        assert torch.memory_allocated("cpu") == before
        s = torch.UntypedStorage._new_shared(5)
        assert s.is_shared() and s.nbytes() == 5
    finally:
        mp.set_sharing_strategy("file_descriptor")


def test_weak_references_of_the_shared_cache() -> None:
    from tensortrace.multiprocessing.reductions import StorageWeakRef, storage_from_cache

    storage = torch.arange(2.0).untyped_storage()
    ref = StorageWeakRef(storage)
    assert not ref.expired()
    mp.reductions.shared_cache["key"] = ref
    assert storage_from_cache(type(storage), "key") is storage  # the same Python handle
    del storage
    assert ref.expired() and storage_from_cache(torch.UntypedStorage, "key") is None


def test_typed_storage_new_shared_and_empty_tensors() -> None:
    typed = torch.ones(3)._typed_storage()
    shared = typed._new_shared(4)
    assert shared.size() == 4 and shared._is_shared() and shared.dtype == torch.float32
    assert torch.empty(0).share_memory_().is_shared()
