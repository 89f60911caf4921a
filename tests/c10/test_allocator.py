"""The CPU allocator, its registry, DataPtr and the memory statistics."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tensortrace
from tensortrace.c10 import allocator as allocator_mod
from tensortrace.c10 import cpu_allocator
from tensortrace.c10.allocator import Allocator, DataPtr, GetAllocator, SetAllocator
from tensortrace.c10.device import CPU, DeviceType


@pytest.mark.parametrize("nbytes", [1, 3, 48, 63, 64, 65, 1000, 4096, 100_003])
def test_alloc_cpu_is_64_byte_aligned(nbytes: int) -> None:
    data = cpu_allocator.g_cpu_alloc.allocate(nbytes)
    try:
        assert data.get() % 64 == 0
        assert data.get_context().nbytes == nbytes
    finally:
        data.clear()


def test_zero_bytes_gives_a_null_data_ptr() -> None:
    data = cpu_allocator.g_cpu_alloc.allocate(0)
    assert data.get() == 0 and not data


def test_zero_fill_and_junk_fill_flags() -> None:
    flags = cpu_allocator.FLAGS
    try:
        flags["caffe2_cpu_allocator_do_zero_fill"] = True
        data = cpu_allocator.g_cpu_alloc.allocate(40)
        assert not data.get_context().any()
        data.clear()
        flags["caffe2_cpu_allocator_do_zero_fill"] = False
        flags["caffe2_cpu_allocator_do_junk_fill"] = True
        data = cpu_allocator.g_cpu_alloc.allocate(10)
        words = data.get_context()[:8].view(np.uint32)
        assert (words == cpu_allocator.kJunkPattern).all()
        data.clear()
    finally:
        flags["caffe2_cpu_allocator_do_zero_fill"] = False
        flags["caffe2_cpu_allocator_do_junk_fill"] = False


def test_live_bytes_and_stats_follow_allocations() -> None:
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    stats0 = tensortrace.memory_stats("cpu")
    x = tensortrace.rand(10)
    assert tensortrace.memory_allocated() == start + 40
    stats = tensortrace.memory_stats("cpu")
    assert stats["allocated_bytes.all.current"] == start + 40
    assert stats["allocation.all.allocated"] == stats0["allocation.all.allocated"] + 1
    assert stats["allocated_bytes.all.peak"] >= start + 40
    del x
    stats = tensortrace.memory_stats("cpu")
    assert stats["allocated_bytes.all.current"] == start
    assert stats["allocated_bytes.all.freed"] == stats0["allocated_bytes.all.freed"] + 40
    assert {"reserved_bytes.all.current", "active_bytes.all.peak", "num_ooms"} <= stats.keys()


def test_memory_queries_refuse_other_devices() -> None:
    with pytest.raises(RuntimeError, match="only a CPU allocator"):
        tensortrace.memory_allocated("cuda")


class CountingAllocator(Allocator):
    def __init__(self) -> None:
        self.calls = 0

    def allocate(self, nbytes: int) -> DataPtr:
        self.calls += 1
        return cpu_allocator.g_cpu_alloc.allocate(nbytes)


def test_set_allocator_respects_priority() -> None:
    default = GetAllocator(DeviceType.CPU)
    saved_priority = dict(allocator_mod._allocator_priority)
    counting = CountingAllocator()
    try:
        SetAllocator(DeviceType.CPU, counting, priority=1)
        assert GetAllocator(DeviceType.CPU) is counting
        tensortrace.rand(3)
        assert counting.calls == 1
        SetAllocator(DeviceType.CPU, default, priority=0)  # lower priority: ignored
        assert GetAllocator(DeviceType.CPU) is counting
    finally:
        allocator_mod._allocator_array[DeviceType.CPU] = default
        allocator_mod._allocator_priority.clear()
        allocator_mod._allocator_priority.update(saved_priority)


def test_missing_allocator_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # every device type here has one (EmptyTensor.cpp registers the MetaAllocator): take it away
    monkeypatch.delitem(allocator_mod._allocator_array, DeviceType.Meta)
    with pytest.raises(RuntimeError, match="Allocator for meta is not set."):
        GetAllocator(DeviceType.Meta)


def test_data_ptr_deleter_runs_once() -> None:
    calls: list[object] = []
    ctx = np.zeros(4, np.uint8)
    data = DataPtr(ctx.ctypes.data, ctx, calls.append, CPU)
    data.clear()
    data.clear()
    assert calls == [ctx]


def test_block_addresses_are_forgotten_when_freed() -> None:
    """Note [The address of each live block]: a freed block leaves no note behind."""
    gc.collect()
    before = len(cpu_allocator._block_addresses)
    data = cpu_allocator.g_cpu_alloc.allocate(100)
    assert cpu_allocator._block_addresses[id(data.get_context())] == data.get()
    assert data.get() == cpu_allocator.address_of(data.get_context())
    data.clear()
    assert len(cpu_allocator._block_addresses) == before
    x = tensortrace.rand(3, 4)
    del x
    assert len(cpu_allocator._block_addresses) == before


def test_cpu_stats_move_together() -> None:
    """Note [One CPU block moves every stat alike]: every count and every byte total agrees."""
    x = tensortrace.rand(7)
    stats = tensortrace.memory_stats("cpu")
    for metric in ("current", "peak", "allocated", "freed"):
        counts = {stats[f"{s}.all.{metric}"] for s in ("allocation", "segment", "active")}
        sizes = {
            stats[f"{s}.all.{metric}"]
            for s in ("allocated_bytes", "reserved_bytes", "active_bytes", "requested_bytes")
        }
        assert len(counts) == 1 and len(sizes) == 1
    tensortrace.reset_peak_memory_stats("cpu")
    stats = tensortrace.memory_stats("cpu")
    assert stats["allocated_bytes.all.peak"] == stats["allocated_bytes.all.current"]
    assert stats["segment.all.peak"] == stats["segment.all.current"]
    del x
