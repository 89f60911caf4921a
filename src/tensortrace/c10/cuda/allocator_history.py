"""The allocator's history and snapshot records, and the stacks that go with them.

Mirrors `c10/cuda/CUDACachingAllocator.h` (RecordContext, TraceEntry, BlockInfo, SegmentInfo),
the TraceEntryRingBuffer of `c10/cuda/CUDACachingAllocator.cpp`, and the stack capture of
`torch/csrc/profiler/combined_traceback.cpp` (CapturedTraceback::gather, symbolized to
`{"filename", "line", "name"}` frames, innermost first). torch.cuda.memory._snapshot() turns these
into the dicts that torch.cuda._memory_viz reads.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from types import FrameType
from typing import Any

from tensortrace.trace import code_swap
from tensortrace.trace.recorder import traced_site_of_frame

Frames = list[dict[str, Any]]


class RecordContext(IntEnum):
    NEVER = 0
    STATE = 1  # only keep stacks for active allocations
    ALLOC = 2  # additionally keep stacks for allocations in the trace history
    ALL = 3  # additionally record stacks for when something is freed


ACTIONS = (
    "alloc",
    "free_requested",
    "free_completed",
    "segment_alloc",
    "segment_free",
    "segment_map",
    "segment_unmap",
    "snapshot",
    "oom",
)


# Note [Records written out, not made by dataclass] in c10/frozen.py: these three are plain
# classes with what @dataclass(slots=True) wrote for them (eq, and so no hash)
class TraceEntry:
    """One step of the allocator's history (TraceEntry in CUDACachingAllocator.h)."""

    __slots__ = ("action", "device", "addr", "size", "stream", "time_us", "frames")
    __match_args__ = ("action", "device", "addr", "size", "stream", "time_us", "frames")
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        action: str,
        device: int,
        addr: int,  # the free device memory for "oom"
        size: int,
        stream: int,
        time_us: int,
        frames: Frames | None = None,
    ) -> None:
        self.action = action
        self.device = device
        self.addr = addr
        self.size = size
        self.stream = stream
        self.time_us = time_us
        self.frames = frames

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.action,
            self.device,
            self.addr,
            self.size,
            self.stream,
            self.time_us,
            self.frames,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(action={self.action!r}, device={self.device!r}, "
            f"addr={self.addr!r}, size={self.size!r}, stream={self.stream!r}, "
            f"time_us={self.time_us!r}, frames={self.frames!r})"
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]


class BlockInfo:
    __slots__ = ("size", "requested_size", "allocated", "active", "frames")
    __match_args__ = ("size", "requested_size", "allocated", "active", "frames")
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self, size: int, requested_size: int, allocated: bool, active: bool, frames: Frames | None
    ) -> None:
        self.size = size
        self.requested_size = requested_size
        self.allocated = allocated
        self.active = active
        self.frames = frames

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(size={self.size!r}, "
            f"requested_size={self.requested_size!r}, allocated={self.allocated!r}, "
            f"active={self.active!r}, frames={self.frames!r})"
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        o: BlockInfo = other  # type: ignore[assignment]
        return (self.size, self.requested_size, self.allocated, self.active, self.frames) == (
            o.size,
            o.requested_size,
            o.allocated,
            o.active,
            o.frames,
        )


class SegmentInfo:
    __slots__ = (
        "device",
        "address",
        "stream",
        "is_large",
        "total_size",
        "allocated_size",
        "active_size",
        "requested_size",
        "frames",
        "blocks",
    )
    __match_args__ = (
        "device",
        "address",
        "stream",
        "is_large",
        "total_size",
        "allocated_size",
        "active_size",
        "requested_size",
        "frames",
        "blocks",
    )
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        device: int,
        address: int,
        stream: int,
        is_large: bool,
        total_size: int = 0,
        allocated_size: int = 0,
        active_size: int = 0,
        requested_size: int = 0,
        frames: Frames | None = None,
        blocks: list[BlockInfo] | None = None,  # None: a new []
    ) -> None:
        self.device = device
        self.address = address
        self.stream = stream
        self.is_large = is_large
        self.total_size = total_size
        self.allocated_size = allocated_size
        self.active_size = active_size
        self.requested_size = requested_size
        self.frames = frames
        self.blocks = [] if blocks is None else blocks

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.device,
            self.address,
            self.stream,
            self.is_large,
            self.total_size,
            self.allocated_size,
            self.active_size,
            self.requested_size,
            self.frames,
            self.blocks,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(device={self.device!r}, address={self.address!r}, "
            f"stream={self.stream!r}, is_large={self.is_large!r}, "
            f"total_size={self.total_size!r}, allocated_size={self.allocated_size!r}, "
            f"active_size={self.active_size!r}, requested_size={self.requested_size!r}, "
            f"frames={self.frames!r}, blocks={self.blocks!r})"
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]


class TraceEntryRingBuffer:
    """The last `max_entries` TraceEntries: a vector that, once full, is overwritten in a ring."""

    def __init__(self) -> None:
        self.alloc_trace: list[TraceEntry] = []
        self.alloc_trace_max_entries = 1
        self.alloc_trace_next = 0

    def setMaxEntries(self, size: int) -> None:
        self.alloc_trace_max_entries = max(1, size)

    def insertTraceEntries(self, te: TraceEntry) -> None:
        if len(self.alloc_trace) < self.alloc_trace_max_entries:
            self.alloc_trace.append(te)
        else:  # overwrite the oldest entry
            self.alloc_trace[self.alloc_trace_next] = te
            self.alloc_trace_next += 1
            if self.alloc_trace_next == self.alloc_trace_max_entries:
                self.alloc_trace_next = 0

    def getTraceEntries(self) -> list[TraceEntry]:
        """The entries, oldest first."""
        n = self.alloc_trace_next
        return self.alloc_trace[n:] + self.alloc_trace[:n]

    def clear(self) -> None:
        self.alloc_trace_next = 0
        self.alloc_trace.clear()


def gather_context(stacks: str) -> list[dict[str, Any]]:
    """The Python stack, innermost first (CapturedTraceback::gather, then symbolize).

    With stacks="all" the traced frames (the @traced wrappers, shown as `<traced c10::...>` and
    named as the C++) stay in, the way torch's "all" adds the C++ frames; with "python" they are
    dropped.
    """
    frames: list[dict[str, Any]] = []
    f: FrameType | None = sys._getframe(2)
    while f is not None:
        site = traced_site_of_frame(f)
        if f.f_code in code_swap.SITE_OF_CODE and not code_swap.is_active():
            pass  # a wrapper body left from a trace: the own-code frame it called names it
        elif site is not None:
            if stacks == "all":
                frames.append(
                    {"filename": f"<traced {site.name}>", "line": f.f_lineno, "name": site.name}
                )
        else:
            frames.append(
                {"filename": f.f_code.co_filename, "line": f.f_lineno, "name": f.f_code.co_name}
            )
            # a function traced by code swap, running while idle: its traced frame is not on
            # the stack, so it is named here (Note [Traced functions that cost nothing while idle])
            idle = code_swap.SITE_OF_IDLE_CODE.get(f.f_code)
            if idle is not None and stacks == "all" and not code_swap.is_active():
                frames.append(
                    {"filename": f"<traced {idle.name}>", "line": f.f_lineno, "name": idle.name}
                )
        f = f.f_back
    return frames
