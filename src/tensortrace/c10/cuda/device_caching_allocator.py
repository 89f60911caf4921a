"""One device's caching allocator: pools of cached blocks, split and merged, over cudaMalloc.

Mirrors DeviceCachingAllocator of `c10/cuda/CUDACachingAllocator.cpp` rule for rule: round_size,
get_allocation_size, get_free_block (best fit, with max_split_size's oversize rules),
should_split, alloc_found_block, free_block, try_merge_blocks, release_available_cached_blocks,
release_cached_blocks, garbage_collect_cached_blocks, the retry on out-of-memory and the
OutOfMemoryError message, record_stream with deferred frees, the history, and snapshot(). The
release paths, stream events and snapshot are in caching_allocator_release.py (a mixin, for
length), the constants and size rules in caching_allocator_sizes.py, the structures in
block_pool.py, the options in cuda_allocator_config.py, the statistics in
device_stats.py, the history records in allocator_history.py, and the device it allocates from in
emulated_device.py (Note [The emulated device's memory]).
"""

from __future__ import annotations

import time

from tensortrace.c10.allocator import reportMemoryUsageToProfiler
from tensortrace.c10.cuda.allocator_history import (
    Frames,
    RecordContext,
    TraceEntry,
    TraceEntryRingBuffer,
    gather_context,
)
from tensortrace.c10.cuda.block_pool import AllocParams, Block, BlockPool
from tensortrace.c10.cuda.caching_allocator_release import CachedBlockRelease, allocator_instant
from tensortrace.c10.cuda.caching_allocator_sizes import (
    DCA,
    SRC,
    format_size,
    get_allocation_size,
    kSmallSize,
    round_size,
    roundup_power2_next_division,
    should_split,
)
from tensortrace.c10.cuda.cuda_allocator_config import CUDAAllocatorConfig
from tensortrace.c10.cuda.device_stats import DeviceStats, StatType, decrease_stat, increase_stat
from tensortrace.c10.cuda.emulated_device import Event, cudaMalloc, cudaMemGetInfo
from tensortrace.c10.device import DeviceType
from tensortrace.c10.exception import OutOfMemoryError
from tensortrace.trace import traced
from tensortrace.trace.schema import FREE_COMPLETED, OOM, SEGMENT_ALLOC, SPLIT


class DeviceCachingAllocator(CachedBlockRelease):
    """The caching allocator of one device: two pools, the active blocks and the statistics."""

    def __init__(self, device: int = 0) -> None:
        self.device = device
        self.stats = DeviceStats()
        self.large_blocks = BlockPool(small=False)
        self.small_blocks = BlockPool(small=True)
        self.active_blocks: set[Block] = set()
        self.cuda_events: dict[int, list[tuple[Event, Block]]] = {}
        self.total_allocated_memory = 0
        self.allowed_memory_maximum = 0
        self.set_fraction = False
        self.record_history = False
        self.record_context_ = RecordContext.NEVER
        self.stacks = "python"
        self.skip_actions: frozenset[str] = frozenset()
        self.alloc_buffer = TraceEntryRingBuffer()
        self.stats.max_split_size = _as_int64(CUDAAllocatorConfig.instance().max_split_size)

    # ---- history (recordHistory, record_trace, the TraceEntryRingBuffer) --------------------
    def recordHistory(
        self,
        enabled: bool,
        when: RecordContext,
        max_entries: int,
        stacks: str = "python",
        skip_actions: frozenset[str] = frozenset(),
        clear_history: bool = False,
    ) -> None:
        self.record_history = enabled
        self.alloc_buffer.setMaxEntries(max_entries)
        self.record_context_ = when if enabled else RecordContext.NEVER
        self.stacks = stacks
        self.skip_actions = skip_actions
        if not enabled or clear_history:
            self.alloc_buffer.clear()

    def maybeGatherContext(self, level: RecordContext) -> Frames | None:
        if self.record_context_ < level:
            return None
        return gather_context(self.stacks)

    def record_trace(
        self, action: str, addr: int, size: int, stream: int, context: Frames | None
    ) -> None:
        if not self.record_history or action in self.skip_actions:
            return
        te = TraceEntry(
            action,
            self.device,
            addr,
            size,
            stream,
            time.time_ns() // 1000,
            context if self.record_context_ >= RecordContext.ALLOC else None,
        )
        self.alloc_buffer.insertTraceEntries(te)

    def trace(self) -> list[TraceEntry]:
        """The history, oldest first."""
        return self.alloc_buffer.getTraceEntries()

    # ---- malloc ------------------------------------------------------------------------------
    @traced("allocator", DCA + "malloc", SRC)
    def malloc(self, device: int, orig_size: int, stream: int) -> Block:
        """Find or make a block of round_size(orig_size) bytes usable on `stream`."""
        context = self.maybeGatherContext(RecordContext.STATE)
        self.process_events(context)
        size = self.round_size(orig_size)
        pool = self.get_pool(size)
        alloc_size = self.get_allocation_size(size)
        params = AllocParams(device, size, stream, pool, alloc_size)

        # First, try to get a block from the existing pool.
        block_found = self.get_free_block(params)
        if not block_found:
            config = CUDAAllocatorConfig.instance()
            if self.set_fraction and config.garbage_collection_threshold > 0.0:
                self.garbage_collect_cached_blocks(context)
            block_found = (
                self.alloc_block(params, False, context)
                # free enough oversize cached blocks to satisfy the request, and retry
                or (
                    self.release_available_cached_blocks(params, context)
                    and self.alloc_block(params, False, context)
                )
                # free all non-split cached blocks, and retry
                or (self.release_cached_blocks(context) and self.alloc_block(params, True, context))
            )
        if not block_found:
            self._raise_out_of_memory(params, alloc_size, context)
        assert params.block is not None
        split_remainder = self.should_split(params.block, params.size)
        return self.alloc_found_block(params, orig_size, context, split_remainder)

    def _raise_out_of_memory(
        self, params: AllocParams, alloc_size: int, context: Frames | None
    ) -> None:
        device_free, device_total = cudaMemGetInfo(self.device)
        allowed_info = (
            format_size(self.allowed_memory_maximum) + " allowed; " if self.set_fraction else ""
        )
        self.record_trace("oom", device_free, params.size, params.stream, context)
        self.stats.num_ooms += 1
        allocated = self.stats.allocated_bytes[StatType.AGGREGATE].current
        reserved = self.stats.reserved_bytes[StatType.AGGREGATE].current
        allocator_instant(
            OOM,
            "[OutOfMemory]",
            bytes=params.size,
            device=f"cuda:{self.device}",
            device_type=int(DeviceType.CUDA),
            device_id=self.device,
            total_allocated=allocated,
            total_reserved=reserved,
            device_free=device_free,
        )
        raise OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {format_size(alloc_size)}. GPU "
            f"{self.device} has a total capacity of {format_size(device_total)} of which "
            f"{format_size(device_free)} is free. {allowed_info}Of the allocated memory "
            f"{format_size(allocated)} is allocated by PyTorch, and "
            f"{format_size(reserved - allocated)} is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
            "documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
        )

    @traced("allocator", DCA + "alloc_found_block", SRC)
    def alloc_found_block(
        self, params: AllocParams, orig_size: int, context: Frames | None, split_remainder: bool
    ) -> Block:
        """Hand out the found block, first splitting off the remainder when should_split says."""
        size, pool, stats = params.size, params.pool, self.stats
        block = params.block
        assert block is not None
        types = self._stat_types(pool)
        already_split = block.is_split()
        from_cache = not params.fresh
        if split_remainder:
            remaining = block
            block = Block(
                params.device,
                params.stream,
                size,
                pool,
                remaining.ptr,
                remaining.segment,
                remaining.base,
            )
            block.prev = remaining.prev
            if block.prev is not None:
                block.prev.next = block
            block.next = remaining
            remaining.prev = block
            remaining.ptr += size
            remaining.size -= size
            pool.insert_into_blocks(remaining)
            if already_split:
                # an already-split inactive block is being shrunk by size bytes
                for t in types:
                    decrease_stat(stats.inactive_split_bytes[t], block.size)
            else:
                # a new split inactive block is being created from a previously unsplit block
                for t in types:
                    increase_stat(stats.inactive_split_bytes[t], remaining.size)
                    increase_stat(stats.inactive_split[t], 1)
            allocator_instant(
                SPLIT,
                "split",
                addr=block.ptr,
                bytes=block.size,
                remainder_addr=remaining.ptr,
                remainder_bytes=remaining.size,
                segment=block.base,
                device=f"cuda:{self.device}",
            )
        elif already_split:
            # an already-split block is becoming active
            for t in types:
                decrease_stat(stats.inactive_split_bytes[t], block.size)
                decrease_stat(stats.inactive_split[t], 1)

        block.allocated = True
        block.requested_size = orig_size
        block.context_when_allocated = context
        self.record_trace("alloc", block.ptr, orig_size, block.stream, context)
        self.active_blocks.add(block)
        for t in types:
            increase_stat(stats.allocation[t], 1)
            increase_stat(stats.allocated_bytes[t], block.size)
            increase_stat(stats.active[t], 1)
            increase_stat(stats.active_bytes[t], block.size)
            increase_stat(stats.requested_bytes[t], block.requested_size)
        if block.size >= CUDAAllocatorConfig.instance().max_split_size:
            increase_stat(stats.oversize_allocations, 1)
        reportMemoryUsageToProfiler(
            "alloc",
            block.ptr,
            block.size,
            stats.allocated_bytes[0].current,
            stats.reserved_bytes[0].current,
            DeviceType.CUDA,
            self.device,
            {
                "requested": orig_size,
                "stream": block.stream,
                "segment": block.base,
                "pool": "small" if pool.is_small else "large",
                "from_cache": from_cache,
            },
        )
        return block

    # ---- free --------------------------------------------------------------------------------
    @traced("allocator", DCA + "free", SRC)
    def free(self, block: Block) -> None:
        """The tensor is done with `block`: cache it now, or once its other streams are done."""
        context = self.maybeGatherContext(RecordContext.ALL)
        block.allocated = False
        orig_ptr, orig_size = block.ptr, block.size
        stats = self.stats
        for t in self._stat_types(block.pool):
            decrease_stat(stats.allocation[t], 1)
            decrease_stat(stats.allocated_bytes[t], block.size)
        self.record_trace(
            "free_requested",
            block.ptr,
            block.requested_size,
            block.stream,
            context or block.context_when_allocated,
        )
        if block.size >= CUDAAllocatorConfig.instance().max_split_size:
            decrease_stat(stats.oversize_allocations, 1)
        deferred = bool(block.stream_uses)
        if deferred:
            self.insert_events(block)
        else:
            self.free_block(block, context)
        reportMemoryUsageToProfiler(
            "free",
            orig_ptr,
            orig_size,
            stats.allocated_bytes[0].current,
            stats.reserved_bytes[0].current,
            DeviceType.CUDA,
            self.device,
            {"deferred": deferred},
        )

    @traced("allocator", DCA + "free_block", SRC)
    def free_block(self, block: Block, context: Frames | None) -> None:
        """Move a block into its pool of cached free blocks, merged with free neighbours."""
        assert not block.allocated and block.event_count == 0 and not block.stream_uses
        self.record_trace(
            "free_completed",
            block.ptr,
            block.requested_size,
            block.stream,
            context or block.context_when_allocated,
        )
        allocator_instant(
            FREE_COMPLETED,
            "free_completed",
            addr=block.ptr,
            bytes=block.size,
            device=f"cuda:{self.device}",
        )
        block.context_when_allocated = None
        original_block_size, requested_size = block.size, block.requested_size
        pool = block.pool
        assert pool is not None
        net_blocks = net_bytes = 0
        for candidate in (block.prev, block.next):
            subsumed = self.try_merge_blocks(block, candidate, pool)
            if subsumed > 0:
                net_blocks -= 1
                net_bytes -= subsumed
        self.active_blocks.discard(block)
        inserted = pool.insert_into_blocks(block)
        assert inserted
        if block.is_split():
            net_blocks += 1
            net_bytes += block.size
        stats = self.stats
        for t in self._stat_types(pool):
            if net_blocks > 0:
                increase_stat(stats.inactive_split[t], net_blocks)
            elif net_blocks < 0:
                decrease_stat(stats.inactive_split[t], -net_blocks)
            if net_bytes > 0:
                increase_stat(stats.inactive_split_bytes[t], net_bytes)
            elif net_bytes < 0:
                decrease_stat(stats.inactive_split_bytes[t], -net_bytes)
            decrease_stat(stats.active[t], 1)
            decrease_stat(stats.active_bytes[t], original_block_size)
            decrease_stat(stats.requested_bytes[t], requested_size)

    @traced("allocator", DCA + "try_merge_blocks", SRC)
    def try_merge_blocks(self, dst: Block, src: Block | None, pool: BlockPool) -> int:
        """Absorb the free neighbour `src` into `dst`; the bytes subsumed, or 0."""
        if src is None or src.allocated or src.event_count > 0 or src.stream_uses:
            return 0
        assert dst.is_split() and src.is_split()
        if dst.prev is src:  # [src dst]
            dst.ptr = src.ptr
            dst.prev = src.prev
            if dst.prev is not None:
                dst.prev.next = dst
            dst.context_when_segment_allocated = src.context_when_segment_allocated
        else:  # [dst src]
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        subsumed = src.size
        dst.size += subsumed
        erased = pool.erase(src)
        assert erased
        return subsumed

    # ---- sizes and pools ---------------------------------------------------------------------
    # the size rules (caching_allocator_sizes.py): static members of the class in C++
    roundup_power2_next_division = staticmethod(roundup_power2_next_division)
    round_size = staticmethod(round_size)
    get_allocation_size = staticmethod(get_allocation_size)
    should_split = staticmethod(should_split)

    def get_pool(self, size: int) -> BlockPool:
        return self.small_blocks if size <= kSmallSize else self.large_blocks

    @staticmethod
    def _stat_types(pool: BlockPool | None) -> tuple[int, int]:
        assert pool is not None
        return (StatType.AGGREGATE, StatType.SMALL_POOL if pool.is_small else StatType.LARGE_POOL)

    @traced("allocator", DCA + "get_free_block", SRC)
    def get_free_block(self, p: AllocParams) -> bool:
        """Best fit: the smallest cached block on the stream at least as large as the request."""
        pool = p.pool
        config = CUDAAllocatorConfig.instance()
        if self.set_fraction and config.garbage_collection_threshold > 0.0:
            pool.get_free_blocks_call_count += 1  # track block reuse only when gc is enabled
        i = pool.lower_bound(p.search_key())
        if i == len(pool.blocks) or pool.blocks[i].stream != p.stream:
            return False
        block = pool.blocks[i]
        max_split = config.max_split_size
        # do not return an oversized block for a large request
        if p.size < max_split and block.size >= max_split:
            return False
        # allow an oversized block to be rounded up, but within a limit
        if p.size >= max_split and block.size >= p.size + config.max_non_split_rounding_size:
            return False
        p.block = block
        pool.erase(block)
        return True

    # ---- new segments ------------------------------------------------------------------------
    @traced("allocator", DCA + "alloc_block", SRC)
    def alloc_block(
        self,
        p: AllocParams,
        isRetry: bool,
        ctx: Frames | None,
    ) -> bool:
        """cudaMalloc a new segment of p.alloc_size bytes, as one unsplit block of the pool."""
        size = p.alloc_size
        if isRetry:
            self.stats.num_alloc_retries += 1
        if self.set_fraction and self.total_allocated_memory + size > self.allowed_memory_maximum:
            p.err = "cudaErrorMemoryAllocation"
            return False
        p.err, ptr, buf = cudaMalloc(size, p.device)
        if p.err != "cudaSuccess":
            return False
        self.total_allocated_memory += size
        p.block = Block(p.device, p.stream, size, p.pool, ptr, buf, ptr)
        p.fresh = True
        for t in self._stat_types(p.pool):
            increase_stat(self.stats.segment[t], 1)
            increase_stat(self.stats.reserved_bytes[t], size)
        if size >= CUDAAllocatorConfig.instance().max_split_size:
            increase_stat(self.stats.oversize_segments, 1)
        self.stats.num_device_alloc += 1
        self.record_trace("segment_alloc", ptr, size, p.stream, ctx)
        p.block.context_when_segment_allocated = ctx
        allocator_instant(
            SEGMENT_ALLOC,
            "segment_alloc",
            addr=ptr,
            bytes=size,
            device=f"cuda:{p.device}",
            pool="small" if p.pool.is_small else "large",
            stream=p.stream,
            total_reserved=self.stats.reserved_bytes[0].current,
        )
        return True

    # ---- the public operations ---------------------------------------------------------------
    def setMemoryFraction(self, fraction: float) -> None:
        _, device_total = cudaMemGetInfo(self.device)
        self.allowed_memory_maximum = int(fraction * device_total)
        self.set_fraction = True

    def getMemoryFraction(self) -> float:
        if not self.set_fraction:
            return 1.0
        return self.allowed_memory_maximum / cudaMemGetInfo(self.device)[1]

    def emptyCache(self) -> None:
        self.release_cached_blocks(self.maybeGatherContext(RecordContext.ALL))

    def cacheInfo(self) -> int:
        """The size of the largest cached free block."""
        return max((b.size for p in (self.large_blocks, self.small_blocks) for b in p), default=0)

    def getStats(self) -> DeviceStats:
        return self.stats

    def resetAccumulatedStats(self) -> None:
        self.stats.reset_accumulated()

    def resetPeakStats(self) -> None:
        self.stats.reset_peak()

    def get_all_blocks(self) -> list[Block]:
        return [*self.small_blocks.blocks, *self.large_blocks.blocks, *self.active_blocks]


def _as_int64(v: int) -> int:
    """static_cast<int64_t>(size_t): SIZE_MAX reads as -1."""
    return v - (1 << 64) if v >= 1 << 63 else v
