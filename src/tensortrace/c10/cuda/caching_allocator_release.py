"""DeviceCachingAllocator's paths that give memory back, its stream events, and its snapshot.

Mirrors these members of DeviceCachingAllocator in `c10/cuda/CUDACachingAllocator.cpp`:
release_available_cached_blocks, release_cached_blocks, release_blocks, release_block,
garbage_collect_cached_blocks; the stream events of record_stream (insert_events,
process_events, synchronize_and_free_events); and snapshot(). The class is split in two files
only for length: `DeviceCachingAllocator` (device_caching_allocator.py) takes these methods from
this mixin and holds the rest (malloc, free, the pools, the history).
"""

from __future__ import annotations

from typing import Any, Protocol

from tensortrace.c10.cuda.allocator_history import BlockInfo, Frames, SegmentInfo
from tensortrace.c10.cuda.block_pool import AllocParams, Block, BlockPool
from tensortrace.c10.cuda.caching_allocator_sizes import DCA, SRC
from tensortrace.c10.cuda.cuda_allocator_config import SIZE_MAX, CUDAAllocatorConfig
from tensortrace.c10.cuda.device_stats import DeviceStats, decrease_stat
from tensortrace.c10.cuda.emulated_device import Event, cudaFree
from tensortrace.trace import recorder, traced
from tensortrace.trace.schema import SEGMENT_FREE


class _Allocator(Protocol):
    """What these members use of the DeviceCachingAllocator they belong to."""

    device: int
    stats: DeviceStats
    large_blocks: BlockPool
    small_blocks: BlockPool
    active_blocks: set[Block]
    cuda_events: dict[int, list[tuple[Event, Block]]]
    total_allocated_memory: int
    allowed_memory_maximum: int

    def record_trace(
        self, action: str, addr: int, size: int, stream: int, context: Frames | None
    ) -> None: ...
    def free_block(self, block: Block, context: Frames | None) -> None: ...
    def get_all_blocks(self) -> list[Block]: ...
    def _stat_types(self, pool: BlockPool | None) -> tuple[int, int]: ...
    def release_block(self, block: Block, context: Frames | None) -> None: ...
    def release_blocks(self, pool: BlockPool, context: Frames | None) -> None: ...
    def synchronize_and_free_events(self, context: Frames | None) -> None: ...


def allocator_instant(kind: str, name: str, **args: Any) -> None:
    rec = recorder.current
    if rec is not None:
        rec.instant(kind, "allocator", name, args)


class CachedBlockRelease:
    """The release, stream-event and snapshot members of DeviceCachingAllocator."""

    @traced("allocator", DCA + "release_available_cached_blocks", SRC)
    def release_available_cached_blocks(
        self: _Allocator, p: AllocParams, context: Frames | None
    ) -> bool:
        """Free oversize cached blocks (>= max_split_size), only enough for the request."""
        max_split = CUDAAllocatorConfig.instance().max_split_size
        if max_split == SIZE_MAX:
            return False
        pool = p.pool
        key_size = max(p.size, max_split)
        i = pool.lower_bound((p.stream, key_size, 0))
        if i == len(pool.blocks) or pool.blocks[i].stream != p.stream:
            # no single block is large enough: free several, starting with the largest
            if i == 0:
                return False
            total_released = 0
            i -= 1
            while (
                total_released < key_size
                and pool.blocks[i].size >= max_split
                and pool.blocks[i].stream == p.stream
            ):
                cur = pool.blocks[i]
                total_released += cur.size
                if i != 0:
                    i -= 1
                    self.release_block(cur, context)
                else:
                    self.release_block(cur, context)
                    break
            if total_released < key_size:
                return False
        else:
            self.release_block(pool.blocks[i], context)
        return True

    @traced("allocator", DCA + "release_cached_blocks", SRC)
    def release_cached_blocks(self: _Allocator, context: Frames | None) -> bool:
        """Wait for pending frees, then cudaFree every cached segment that is not split."""
        self.synchronize_and_free_events(context)
        self.release_blocks(self.large_blocks, context)
        self.release_blocks(self.small_blocks, context)
        return True

    def release_blocks(self: _Allocator, pool: BlockPool, context: Frames | None) -> None:
        for block in pool:
            if block.prev is None and block.next is None:
                self.release_block(block, context)

    @traced("allocator", DCA + "release_block", SRC)
    def release_block(self: _Allocator, block: Block, context: Frames | None) -> None:
        """cudaFree one whole, free segment."""
        self.stats.num_device_free += 1
        self.record_trace(
            "segment_free",
            block.ptr,
            block.size,
            block.stream,
            context or block.context_when_segment_allocated,
        )
        cudaFree(block.ptr, block.device)
        self.total_allocated_memory -= block.size
        pool = block.pool
        for t in self._stat_types(pool):
            decrease_stat(self.stats.segment[t], 1)
            decrease_stat(self.stats.reserved_bytes[t], block.size)
        if block.size >= CUDAAllocatorConfig.instance().max_split_size:
            decrease_stat(self.stats.oversize_segments, 1)
        assert pool is not None
        pool.erase(block)
        allocator_instant(
            SEGMENT_FREE,
            "segment_free",
            addr=block.ptr,
            bytes=block.size,
            device=f"cuda:{block.device}",
            pool="small" if pool.is_small else "large",
            stream=block.stream,
            total_reserved=self.stats.reserved_bytes[0].current,
        )

    @traced("allocator", DCA + "garbage_collect_cached_blocks", SRC)
    def garbage_collect_cached_blocks(self: _Allocator, context: Frames | None) -> None:
        """Free the oldest unsplit large cached blocks once reserved memory passes the threshold."""
        gc_threshold = int(
            CUDAAllocatorConfig.instance().garbage_collection_threshold
            * self.allowed_memory_maximum
        )
        if self.total_allocated_memory <= gc_threshold:
            return
        target_size = self.total_allocated_memory - gc_threshold
        gc_reclaimed = 0
        total_age = 0
        freeable_block_count = 0
        for b in self.large_blocks:
            if not b.is_split():
                total_age += b.gc_count()
                freeable_block_count += 1
        if freeable_block_count == 0:
            return
        block_freed = True
        while gc_reclaimed < target_size and block_freed and freeable_block_count > 0:
            age_threshold = total_age / freeable_block_count
            block_freed = False
            for block in self.large_blocks:
                if not block.is_split() and block.gc_count() >= age_threshold:
                    block_freed = True
                    gc_reclaimed += block.size
                    total_age -= block.gc_count()
                    freeable_block_count -= 1
                    self.release_block(block, context)

    # ---- streams and events ------------------------------------------------------------------
    def recordStream(self: _Allocator, block: Block, stream: int) -> None:
        """The block is also used on `stream`: its free must wait for that stream's work."""
        if stream == block.stream:
            return  # uses on the allocation stream need no synchronization
        block.stream_uses.add(stream)

    def insert_events(self: _Allocator, block: Block) -> None:
        streams, block.stream_uses = block.stream_uses, set()
        for stream in sorted(streams):
            block.event_count += 1
            self.cuda_events.setdefault(stream, []).append((Event(stream), block))

    def process_events(self: _Allocator, context: Frames | None) -> None:
        """Free the blocks whose streams' events have completed."""
        for stream in list(self.cuda_events):
            queue = self.cuda_events[stream]
            while queue and queue[0][0].query():
                _, block = queue.pop(0)
                block.event_count -= 1
                if block.event_count == 0:
                    self.free_block(block, context)
            if not queue:
                del self.cuda_events[stream]

    @traced("allocator", DCA + "synchronize_and_free_events", SRC)
    def synchronize_and_free_events(self: _Allocator, context: Frames | None) -> None:
        self.stats.num_sync_all_streams += 1
        for queue in self.cuda_events.values():
            for _, block in queue:
                block.event_count -= 1
                if block.event_count == 0:
                    self.free_block(block, context)
        self.cuda_events.clear()

    def snapshot(self: _Allocator) -> list[SegmentInfo]:
        """Every segment with its blocks in address order (DeviceCachingAllocator::snapshot)."""
        result: list[SegmentInfo] = []
        total_active = 0
        for head in self.get_all_blocks():
            if head.prev is not None:
                continue
            assert head.pool is not None
            seg = SegmentInfo(
                head.device,
                head.ptr,
                head.stream,
                not head.pool.is_small,
                frames=head.context_when_segment_allocated,
            )
            block: Block | None = head
            while block is not None:
                active = block.allocated or block.event_count > 0 or bool(block.stream_uses)
                seg.blocks.append(
                    BlockInfo(
                        block.size,
                        block.requested_size,
                        block.allocated,
                        active,
                        block.context_when_allocated,
                    )
                )
                seg.total_size += block.size
                if block.allocated:
                    seg.allocated_size += block.size
                if active:
                    seg.active_size += block.size
                    seg.requested_size += block.requested_size
                block = block.next
            total_active += seg.active_size
            result.append(seg)
        result.sort(key=lambda s: s.address)
        self.record_trace("snapshot", 0, total_active, 0, None)
        return result
