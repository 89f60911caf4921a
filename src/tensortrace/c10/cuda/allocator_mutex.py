"""The caching allocator's mutex, which here also holds off the cyclic garbage collector.

Note [The allocator's mutex and the cyclic GC]
DeviceCachingAllocator takes `std::recursive_mutex mutex` at each entry (malloc, free,
emptyCache, recordStream), so no other free can run while it splits a block, moves blocks
between pools or merges neighbours. In Python a thread of our own can interleave too: CPython's
cyclic collector runs whenever allocations pass its threshold, which can be in the middle of
malloc, and collecting a reference cycle that holds a CUDA tensor (an autograd graph, a
module with hooks) runs that tensor's deleter, so `free` re-entered the allocator halfway
through an operation and corrupted its block lists (two blocks for one address; found as
`assert erased` failing in try_merge_blocks after some allocation histories). So while the
mutex is held the collector is paused; it resumes, and may free those tensors, once the
operation is done. Re-entrant like the recursive_mutex: only the outermost exit resumes it.
"""

from __future__ import annotations

import gc
from typing import Any


class AllocatorMutex:
    """`with ALLOCATOR_MUTEX:` around an allocator operation."""

    __slots__ = ("depth", "resume")

    def __init__(self) -> None:
        self.depth = 0
        self.resume = False  # whether the outermost exit re-enables the collector

    def __enter__(self) -> None:
        if self.depth == 0:
            self.resume = gc.isenabled()
            gc.disable()
        self.depth += 1

    def __exit__(self, *exc: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.resume:
            gc.enable()


ALLOCATOR_MUTEX = AllocatorMutex()
