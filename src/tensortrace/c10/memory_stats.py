"""Allocator statistics, with the key names torch.cuda.memory_stats() uses.

Mirrors `c10/core/CachingDeviceAllocator.h` (Stat, DeviceStats) and the flattening done by
`torch/cuda/memory.py` (`allocated_bytes.all.current`, `allocation.all.peak`, ...). A plain CPU
allocator reserves exactly what it allocates, so reserved and allocated move together.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Stat:
    current: int = 0
    peak: int = 0
    allocated: int = 0
    freed: int = 0

    def increase(self, amount: int) -> None:
        self.current += amount
        self.peak = max(self.peak, self.current)
        self.allocated += amount

    def decrease(self, amount: int) -> None:
        self.current -= amount
        self.freed += amount

    def reset_peak(self) -> None:
        self.peak = self.current


@dataclass(slots=True)
class DeviceStats:
    allocation: Stat = field(default_factory=Stat)
    segment: Stat = field(default_factory=Stat)
    active: Stat = field(default_factory=Stat)
    allocated_bytes: Stat = field(default_factory=Stat)
    reserved_bytes: Stat = field(default_factory=Stat)
    active_bytes: Stat = field(default_factory=Stat)
    requested_bytes: Stat = field(default_factory=Stat)
    num_alloc_retries: int = 0
    num_ooms: int = 0

    # on_alloc / on_free run on every allocation and free: Stat.increase / Stat.decrease are
    # written out inline here (7 method calls each time would cost more than the bookkeeping),
    # and so is the list of what one block moves (one allocation, segment and active block, and
    # its bytes).
    def on_alloc(self, nbytes: int) -> None:
        for stat, amount in (
            (self.allocation, 1),
            (self.segment, 1),
            (self.active, 1),
            (self.allocated_bytes, nbytes),
            (self.reserved_bytes, nbytes),
            (self.active_bytes, nbytes),
            (self.requested_bytes, nbytes),
        ):
            current = stat.current = stat.current + amount
            if current > stat.peak:
                stat.peak = current
            stat.allocated += amount

    def on_free(self, nbytes: int) -> None:
        for stat, amount in (  # the same moves as on_alloc
            (self.allocation, 1),
            (self.segment, 1),
            (self.active, 1),
            (self.allocated_bytes, nbytes),
            (self.reserved_bytes, nbytes),
            (self.active_bytes, nbytes),
            (self.requested_bytes, nbytes),
        ):
            stat.current -= amount
            stat.freed += amount

    def as_dict(self) -> dict[str, int]:
        """Flattened like torch.cuda.memory_stats(): `<stat>.all.<current|peak|...>`."""
        out: dict[str, int] = {}
        for name in (
            "active",
            "active_bytes",
            "allocated_bytes",
            "allocation",
            "requested_bytes",
            "reserved_bytes",
            "segment",
        ):
            stat: Stat = getattr(self, name)
            for metric in ("allocated", "current", "freed", "peak"):
                out[f"{name}.all.{metric}"] = getattr(stat, metric)
        out["num_alloc_retries"] = self.num_alloc_retries
        out["num_ooms"] = self.num_ooms
        return dict(sorted(out.items()))

    def reset_peak(self) -> None:
        for name in (
            "allocation",
            "segment",
            "active",
            "allocated_bytes",
            "reserved_bytes",
            "active_bytes",
            "requested_bytes",
        ):
            getattr(self, name).reset_peak()
