"""Blocks and BlockPools: the caching allocator's bookkeeping of device memory.

Mirrors the `Block`, `BlockPool`, `BlockComparatorSize` and `AllocParams` structs of
`c10/cuda/CUDACachingAllocator.cpp`. A Block is a piece of one segment (one cudaMalloc); the
blocks of a segment form a doubly linked list in address order (`prev` / `next`), and a free
block sits in its pool, a set ordered by (stream, size, address) so that `lower_bound` of a
search key is the best fit.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

import numpy as np

BlockKey = tuple[int, int, int]


class Block:
    """A piece of a segment: allocated to a tensor, or free and cached in its pool.

    `segment` is the segment's host buffer and `base` its address: the emulated device memory
    this block is a window of (Note [The emulated device's memory]).
    """

    __slots__ = (
        "device",
        "stream",
        "stream_uses",
        "size",
        "requested_size",
        "pool",
        "ptr",
        "allocated",
        "prev",
        "next",
        "event_count",
        "gc_count_base",
        "context_when_allocated",
        "context_when_segment_allocated",
        "segment",
        "base",
    )

    def __init__(
        self,
        device: int,
        stream: int,
        size: int,
        pool: BlockPool | None = None,
        ptr: int = 0,
        segment: np.ndarray | None = None,
        base: int = 0,
    ) -> None:
        self.device = device
        self.stream = stream
        self.stream_uses: set[int] = set()
        self.size = size
        self.requested_size = 0
        self.pool = pool
        self.ptr = ptr
        self.allocated = False
        self.prev: Block | None = None
        self.next: Block | None = None
        self.event_count = 0
        self.gc_count_base = 0
        self.context_when_allocated: list[dict[str, Any]] | None = None
        self.context_when_segment_allocated: list[dict[str, Any]] | None = None
        self.segment = segment
        self.base = base

    def key(self) -> BlockKey:
        """BlockComparatorSize's order: stream, then size, then address."""
        return (self.stream, self.size, self.ptr)

    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    def gc_count(self) -> int:
        assert self.pool is not None
        return self.pool.get_free_blocks_call_count - self.gc_count_base

    def view(self, nbytes: int) -> np.ndarray:
        """The first `nbytes` of this block, as a window of its segment's buffer."""
        assert self.segment is not None
        offset = self.ptr - self.base
        return self.segment[offset : offset + nbytes]

    def _trace_summary(self) -> dict[str, Any]:
        return {
            "ptr": self.ptr,
            "offset": self.ptr - self.base,
            "size": self.size,
            "pool": "small" if self.pool is not None and self.pool.is_small else "large",
            "allocated": self.allocated,
            "split": self.is_split(),
            "stream": self.stream,
        }

    def __repr__(self) -> str:
        return (
            f"Block(ptr={self.ptr:#x}, offset={self.ptr - self.base}, size={self.size}, "
            f"allocated={self.allocated}, split={self.is_split()})"
        )


class BlockPool:
    """The free blocks of one pool, ordered by (stream, size, address)."""

    __slots__ = ("keys", "blocks", "is_small", "get_free_blocks_call_count")

    def __init__(self, small: bool) -> None:
        self.keys: list[BlockKey] = []
        self.blocks: list[Block] = []
        self.is_small = small
        self.get_free_blocks_call_count = 0

    def insert_into_blocks(self, block: Block) -> bool:
        """Add `block` (stamping its gc age base); False if it is already there."""
        block.gc_count_base = self.get_free_blocks_call_count
        key = block.key()
        i = bisect_left(self.keys, key)
        if i < len(self.keys) and self.blocks[i] is block:
            return False
        self.keys.insert(i, key)
        self.blocks.insert(i, block)
        return True

    def erase(self, block: Block) -> bool:
        i = bisect_left(self.keys, block.key())
        if i < len(self.blocks) and self.blocks[i] is block:
            del self.keys[i]
            del self.blocks[i]
            return True
        return False

    def lower_bound(self, key: BlockKey) -> int:
        """The index of the first block not ordered before `key` (std::set::lower_bound)."""
        return bisect_left(self.keys, key)

    def __contains__(self, block: object) -> bool:
        return isinstance(block, Block) and any(b is block for b in self.blocks)

    def __iter__(self) -> Iterator[Block]:
        return iter(list(self.blocks))

    def __len__(self) -> int:
        return len(self.blocks)


class AllocParams:
    """One malloc request: the search key (device, stream, rounded size), pool and segment size."""

    __slots__ = ("device", "stream", "size", "pool", "alloc_size", "block", "err", "fresh")

    def __init__(
        self, device: int, size: int, stream: int, pool: BlockPool, alloc_size: int
    ) -> None:
        self.device = device
        self.size = size
        self.stream = stream
        self.pool = pool
        self.alloc_size = alloc_size
        self.block: Block | None = None
        self.err = "cudaSuccess"
        self.fresh = False  # the block is a new segment, not one served from the cache

    def search_key(self) -> BlockKey:
        return (self.stream, self.size, 0)


__all__ = ["AllocParams", "Block", "BlockKey", "BlockPool"]
