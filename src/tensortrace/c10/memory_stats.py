"""Allocator statistics, with the key names torch.cuda.memory_stats() uses.

Mirrors `c10/core/CachingDeviceAllocator.h` (Stat, DeviceStats) and the flattening done by
`torch/cuda/memory.py` (`allocated_bytes.all.current`, `allocation.all.peak`, ...). A plain CPU
allocator reserves exactly what it allocates, so reserved and allocated move together.
"""

from __future__ import annotations

from typing import Any


class SlotsRepr:
    """`Name(field=value, ...)` from a class's __slots__: the repr a dataclass would print.

    The stats are plain classes, not dataclasses: creating a dataclass costs ~1.5 ms of
    import each, and these are made at import by every allocator."""

    __slots__: tuple[str, ...] = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment] # mutable, like a dataclass with eq


class Stat(SlotsRepr):
    """A counter with its peak (c10::CachingDeviceAllocator::Stat)."""

    __slots__ = ("current", "peak", "allocated", "freed")

    def __init__(self, current: int = 0, peak: int = 0, allocated: int = 0, freed: int = 0) -> None:
        self.current = current
        self.peak = peak
        self.allocated = allocated
        self.freed = freed

    def increase(self, amount: int) -> None:
        self.current += amount
        self.peak = max(self.peak, self.current)
        self.allocated += amount

    def decrease(self, amount: int) -> None:
        self.current -= amount
        self.freed += amount

    def reset_peak(self) -> None:
        self.peak = self.current


class DeviceStats(SlotsRepr):
    """The CPU allocator's DeviceStats: the aggregate of each of CUDA's stats."""

    __slots__ = (
        "allocation",
        "segment",
        "active",
        "allocated_bytes",
        "reserved_bytes",
        "active_bytes",
        "requested_bytes",
        "num_alloc_retries",
        "num_ooms",
    )

    # Note [One CPU block moves every stat alike]
    # A plain CPU allocator reserves exactly what it is asked for, one segment per allocation,
    # each active until freed: allocation, segment and active always hold the same counts, and
    # allocated, reserved, active and requested bytes the same bytes (on_alloc, on_free and
    # reset_peak are the only writers). So the three block counts are one Stat object, and the
    # four byte counts another: each allocation and free moves two Stats, not seven, and every
    # name still reads its value (as_dict, repr, ==). CUDA's DeviceStats (c10/cuda/) keeps its
    # own Stats, which do move apart.
    def __init__(self) -> None:
        self.allocation = self.segment = self.active = Stat()
        self.allocated_bytes = self.reserved_bytes = Stat()
        self.active_bytes = self.requested_bytes = self.allocated_bytes
        self.num_alloc_retries = 0
        self.num_ooms = 0

    # on_alloc / on_free run on every allocation and free: Stat.increase / Stat.decrease are
    # written out inline here (a method call each would cost more than the bookkeeping).
    def on_alloc(self, nbytes: int) -> None:
        # the allocation Stat is also segment and active, allocated_bytes also reserved, active
        # and requested bytes: Note [One CPU block moves every stat alike]
        blocks = self.allocation
        current = blocks.current = blocks.current + 1
        if current > blocks.peak:
            blocks.peak = current
        blocks.allocated += 1
        sizes = self.allocated_bytes
        current = sizes.current = sizes.current + nbytes
        if current > sizes.peak:
            sizes.peak = current
        sizes.allocated += nbytes

    def on_free(self, nbytes: int) -> None:
        blocks = self.allocation  # Note [One CPU block moves every stat alike]
        blocks.current -= 1
        blocks.freed += 1
        sizes = self.allocated_bytes
        sizes.current -= nbytes
        sizes.freed += nbytes

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
        self.allocation.reset_peak()  # Note [One CPU block moves every stat alike]
        self.allocated_bytes.reset_peak()
