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

from tensortrace.c10.frozen import Record
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


# Note [Records written out, not made by dataclass] in c10/frozen.py: these three are Records,
# as @dataclass(slots=True) made them (eq, and so no hash)
class TraceEntry(Record):
    """One step of the allocator's history (TraceEntry in CUDACachingAllocator.h)."""

    __slots__ = ("action", "device", "addr", "size", "stream", "time_us", "frames")
    __match_args__ = __slots__  # the fields, in order

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


class BlockInfo(Record):
    __slots__ = ("size", "requested_size", "allocated", "active", "frames")
    __match_args__ = __slots__  # the fields, in order

    def __init__(
        self, size: int, requested_size: int, allocated: bool, active: bool, frames: Frames | None
    ) -> None:
        self.size = size
        self.requested_size = requested_size
        self.allocated = allocated
        self.active = active
        self.frames = frames


class SegmentInfo(Record):
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
    __match_args__ = __slots__  # the fields, in order

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
