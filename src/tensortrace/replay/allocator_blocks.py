"""The replay's allocator blocks and caching-allocator segments, rebuilt from the trace's instants.

Mirrors what `torch.cuda.memory._snapshot()` reports of `c10/cuda/CUDACachingAllocator.cpp`: a
segment is one cudaMalloc (`SegmentInfo`), a block one allocation inside it (`BlockInfo`), with
the steps at which each lived. The CPU allocator's blocks are the same `Block` without a segment.
`_Segments` follows the caching allocator's instants (segment_alloc, segment_free, a deferred
free and its free_completed) while replay/state.py compiles a trace.
"""

from __future__ import annotations

from dataclasses import dataclass

from tensortrace.replay.deltas import GLOBALS, UPDATE, Delta
from tensortrace.trace import Event
from tensortrace.trace.schema import FREE, FREE_COMPLETED, SEGMENT_ALLOC, SEGMENT_FREE


@dataclass
class Block:
    """An allocator block: `alloc_step` .. `free_step` (None while live at the trace's end)."""

    addr: int
    bytes: int
    device: str
    alloc_step: int
    free_step: int | None = None
    storage: int | None = None  # display id of the StorageImpl that owns it
    # a caching allocator's block (device "cuda:i"): its segment, whether the request was
    # served from the cache, and when its free completed (a free waiting on another stream's
    # work completes later than it was requested)
    segment: int | None = None
    from_cache: bool | None = None
    completed_step: int | None = None

    def live_at(self, step: int) -> bool:
        return self.alloc_step <= step and (self.free_step is None or step < self.free_step)

    def holds_at(self, step: int) -> bool:
        """Allocated, or freed but its free not yet completed (active_pending_free)."""
        done = self.completed_step if self.completed_step is not None else self.free_step
        return self.alloc_step <= step and (done is None or step < done)


@dataclass
class Segment:
    """A caching allocator's segment (one cudaMalloc): `alloc_step` .. `free_step` (cudaFree)."""

    addr: int
    bytes: int
    device: str
    pool: str  # "small" or "large"
    alloc_step: int
    free_step: int | None = None
    stream: int = 0

    def live_at(self, step: int) -> bool:
        return self.alloc_step <= step and (self.free_step is None or step < self.free_step)


_SEGMENT_KINDS = frozenset({SEGMENT_ALLOC, SEGMENT_FREE, FREE_COMPLETED, FREE})


class _Segments:
    """The caching allocator's segments, and frees that complete after they are requested."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.open: dict[int, int] = {}  # segment addr -> index into segments
        self.pending: dict[int, int] = {}  # addr of a freed block -> index into blocks

    def apply(
        self,
        event: Event,
        index: int,
        blocks: list[Block],
        open_blocks: dict[int, int],
        out: list[Delta],
    ) -> None:
        a = event.args
        kind = event.kind
        if kind == SEGMENT_ALLOC:
            self.open[a["addr"]] = len(self.segments)
            self.segments.append(
                Segment(
                    a["addr"],
                    a["bytes"],
                    str(a.get("device", "cuda:0")),
                    a.get("pool", "large"),
                    index,
                    stream=a.get("stream", 0),
                )
            )
            out.append(
                (UPDATE, GLOBALS, 0, {f"reserved {a.get('device')}": a.get("total_reserved", 0)})
            )
        elif kind == SEGMENT_FREE:
            seg = self.open.pop(a["addr"], None)
            if seg is not None:
                self.segments[seg].free_step = index
            out.append(
                (UPDATE, GLOBALS, 0, {f"reserved {a.get('device')}": a.get("total_reserved", 0)})
            )
        elif kind == FREE and a.get("deferred"):
            # the block was used on another stream: its free completes at a later
            # free_completed instant (an immediate free's free_completed comes before `free`)
            block = open_blocks.get(a["addr"])
            if block is not None:
                self.pending[a["addr"]] = block
        elif kind == FREE_COMPLETED:
            block = self.pending.pop(a["addr"], None)
            if block is not None:
                blocks[block].completed_step = index
