"""The caching allocator's statistics: a Stat per pool type, and the event counters.

Mirrors `c10/core/CachingDeviceAllocator.h` (StatType, StatArray, DeviceStats) and the nesting
`THCPModule_memoryStats` in `torch/csrc/cuda/Module.cpp` builds for torch.cuda.memory_stats:
`{"allocated_bytes": {"all": {"current", "peak", "allocated", "freed"}, "small_pool": ...}}`.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from tensortrace.c10.memory_stats import SlotsRepr, Stat


class StatType(IntEnum):
    AGGREGATE = 0
    SMALL_POOL = 1
    LARGE_POOL = 2


STAT_TYPE_NAMES = ("all", "small_pool", "large_pool")


def increase_stat(stat: Stat, amount: int) -> None:
    """Stat::increase, written out as a function: it runs ~10 times per malloc."""
    current = stat.current = stat.current + amount
    if current > stat.peak:
        stat.peak = current
    stat.allocated += amount


def decrease_stat(stat: Stat, amount: int) -> None:
    """Stat::decrease."""
    stat.current -= amount
    stat.freed += amount


def _stat_array() -> list[Stat]:
    return [Stat() for _ in StatType]


# The StatArrays, in the order THCPModule_memoryStats writes them.
STAT_ARRAYS = (
    "allocation",
    "segment",
    "active",
    "inactive_split",
    "allocated_bytes",
    "reserved_bytes",
    "active_bytes",
    "inactive_split_bytes",
    "requested_bytes",
)
COUNTERS = (
    "num_alloc_retries",
    "num_ooms",
    "num_sync_all_streams",
    "num_device_alloc",
    "num_device_free",
    "num_oom_rejections",
)


class DeviceStats(SlotsRepr):
    """c10::CachingDeviceAllocator::DeviceStats: a StatArray (all, small pool, large pool) per
    kind of stat, and the counters."""

    __slots__ = (
        *STAT_ARRAYS,
        *COUNTERS,
        "oversize_allocations",
        "oversize_segments",
        "max_split_size",
    )

    def __init__(self) -> None:
        self.allocation = _stat_array()  # allocation requests
        self.segment = _stat_array()  # cudaMalloc'd segments
        self.active = _stat_array()  # allocated or pending-free blocks
        self.inactive_split = _stat_array()  # free blocks in split segments
        self.allocated_bytes = _stat_array()
        self.reserved_bytes = _stat_array()
        self.active_bytes = _stat_array()
        self.inactive_split_bytes = _stat_array()
        self.requested_bytes = _stat_array()
        self.num_alloc_retries = 0
        self.num_ooms = 0
        self.num_sync_all_streams = 0
        self.num_device_alloc = 0
        self.num_device_free = 0
        self.num_oom_rejections = 0
        self.oversize_allocations = Stat()
        self.oversize_segments = Stat()
        self.max_split_size = 0

    def as_nested_dict(self) -> dict[str, Any]:
        """What torch._C._cuda_memoryStats returns (memory_stats_as_nested_dict)."""

        def stat(s: Stat) -> dict[str, int]:
            return {
                "current": s.current,
                "peak": s.peak,
                "allocated": s.allocated,
                "freed": s.freed,
            }

        out: dict[str, Any] = {
            "num_alloc_retries": self.num_alloc_retries,
            "num_ooms": self.num_ooms,
            "max_split_size": self.max_split_size,
            "num_sync_all_streams": self.num_sync_all_streams,
            "num_device_alloc": self.num_device_alloc,
            "num_device_free": self.num_device_free,
            "num_oom_rejections": self.num_oom_rejections,
        }
        for name in STAT_ARRAYS:
            array = getattr(self, name)
            out[name] = {STAT_TYPE_NAMES[t]: stat(array[t]) for t in StatType}
        out["oversize_allocations"] = stat(self.oversize_allocations)
        out["oversize_segments"] = stat(self.oversize_segments)
        out["reserved_bytes_by_private_pools"] = {}  # no CUDA graphs, so no private pools
        return out

    def reset_accumulated(self) -> None:
        for name in STAT_ARRAYS:
            for s in getattr(self, name):
                s.allocated = s.freed = 0
        for name in COUNTERS:
            setattr(self, name, 0)
        for s in (self.oversize_allocations, self.oversize_segments):
            s.allocated = s.freed = 0

    def reset_peak(self) -> None:
        for name in STAT_ARRAYS:
            for s in getattr(self, name):
                s.reset_peak()
        self.oversize_allocations.reset_peak()
        self.oversize_segments.reset_peak()
