"""The CUDA caching allocator: block and segment layouts and statistics derived by hand.

Each scenario runs a scripted sequence of mallocs and frees on a private emulated device and
checks the layout (per segment: pool, size, and each block's offset from the segment start, size,
state, split flag) and the whole memory_stats() dict against values worked out from the rules of
CUDACachingAllocator.cpp, written out in the comments.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tensortrace.c10.cuda import cuda_caching_allocator as cca
from tensortrace.c10.cuda.block_pool import Block
from tensortrace.c10.cuda.cuda_allocator_config import CUDAAllocatorConfig
from tensortrace.c10.cuda.cuda_caching_allocator import DeviceCachingAllocator
from tensortrace.c10.exception import OutOfMemoryError
from tensortrace.cuda import memory

KiB, MiB = 1024, 1024 * 1024
SEG_SMALL, SEG_LARGE = 2 * MiB, 20 * MiB
DEVICE = 5  # a private emulated device: its memory is separate from device 0's


@pytest.fixture
def new_alloc() -> Iterator[Callable[..., DeviceCachingAllocator]]:
    """Make a fresh DeviceCachingAllocator on DEVICE, with a PYTORCH_CUDA_ALLOC_CONF string and
    a device capacity; afterwards free what is live, empty the cache and restore the config."""
    config = CUDAAllocatorConfig.instance()
    made: list[DeviceCachingAllocator] = []

    def make(conf: str | None = None, capacity: int = 1 << 30) -> DeviceCachingAllocator:
        config.parseArgs(conf)
        cca.set_device_capacity(capacity, DEVICE)
        da = DeviceCachingAllocator(DEVICE)
        cca.allocator.device_allocator[DEVICE] = da
        made.append(da)
        return da

    try:
        yield make
    finally:
        for da in made:
            for block in list(da.active_blocks):
                if block.allocated:
                    da.free(block)
            da.emptyCache()
        cca.allocator.device_allocator.pop(DEVICE, None)
        config.parseArgs(None)
        assert cca.device_memory(DEVICE).used == 0


@pytest.fixture
def alloc(new_alloc: Callable[..., DeviceCachingAllocator]) -> DeviceCachingAllocator:
    return new_alloc()


def layout(da: DeviceCachingAllocator) -> list[tuple[str, int, list[tuple[int, int, str, bool]]]]:
    """Per segment in address order: (pool, size, [(offset, size, state, is_split), ...])."""
    heads = sorted((b for b in da.get_all_blocks() if b.prev is None), key=lambda b: b.ptr)
    out = []
    for head in heads:
        blocks = []
        b: Block | None = head
        while b is not None:
            state = (
                "allocated"
                if b.allocated
                else "pending"
                if b.event_count or b.stream_uses
                else "free"
            )
            blocks.append((b.ptr - head.ptr, b.size, state, b.is_split()))
            b = b.next
        assert head.pool is not None
        out.append(
            (
                "small" if head.pool.is_small else "large",
                sum(size for _, size, _, _ in blocks),
                blocks,
            )
        )
    return out


METRICS = ("current", "peak", "allocated", "freed")
ARRAYS = (
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


def expected_stats(pool: str, max_split_size: int = -1, **given: Any) -> dict[str, int]:
    """The full flattened memory_stats(): zeros, with `given` (current, peak, allocated, freed)
    for each StatArray in `pool` and in `all`, and the given counters and oversize stats."""
    out: dict[str, int] = {"max_split_size": max_split_size}
    for name in (
        "num_alloc_retries",
        "num_ooms",
        "num_sync_all_streams",
        "num_device_alloc",
        "num_device_free",
        "num_oom_rejections",
    ):
        out[name] = given.pop(name, 0)
    for name in ARRAYS:
        values = given.pop(name, (0, 0, 0, 0))
        for sub in ("all", "small_pool", "large_pool"):
            used = sub == "all" or sub == f"{pool}_pool"
            for metric, v in zip(METRICS, values):
                out[f"{name}.{sub}.{metric}"] = v if used else 0
    for name in ("oversize_allocations", "oversize_segments"):
        for metric, v in zip(METRICS, given.pop(name, (0, 0, 0, 0))):
            out[f"{name}.{metric}"] = v
    assert not given, given
    return dict(sorted(out.items()))


def stats() -> dict[str, int]:
    return dict(memory.memory_stats(DEVICE))


def test_round_size_and_allocation_size() -> None:
    CUDAAllocatorConfig.instance().parseArgs(None)
    rs, gas = DeviceCachingAllocator.round_size, DeviceCachingAllocator.get_allocation_size
    assert [rs(n) for n in (1, 48, 511, 512, 513, 1000, 1025)] == [512] * 4 + [1024] * 2 + [1536]
    assert gas(512) == gas(MiB) == SEG_SMALL  # up to 1 MiB: a 2 MiB small segment
    assert gas(MiB + 512) == gas(10 * MiB - 512) == SEG_LARGE  # 1..10 MiB: a 20 MiB buffer
    assert gas(10 * MiB) == 10 * MiB and gas(10 * MiB + 512) == 12 * MiB  # rounded to 2 MiB


def test_roundup_power2_divisions(new_alloc: Callable[..., DeviceCachingAllocator]) -> None:
    alloc = new_alloc("roundup_power2_divisions:[2:8,>:2]")
    rs = DeviceCachingAllocator.round_size
    # [2:8, >:2]: the 1 MiB interval gets 8 divisions, the 2 MiB interval and above get 2
    assert rs(1200) == 1536  # 1200 <= 512 * 8: plain 512-byte rounding
    assert rs(1_258_291) == 1_310_720  # 1.2 MiB: 1 MiB + k * 128 KiB
    assert rs(3_000_000) == 3 * MiB  # 2 MiB + k * 1 MiB
    assert rs(4 * MiB) == 4 * MiB  # a power of two stays
    block = alloc.malloc(DEVICE, 3_000_000, 0)
    assert block.size == 3 * MiB and block.requested_size == 3_000_000


def test_seed_three_48_byte_requests_then_free_and_reuse(alloc: DeviceCachingAllocator) -> None:
    a, b, c = (alloc.malloc(DEVICE, 48, 0) for _ in range(3))
    # 48 -> round_size 512 -> small pool -> one 2 MiB segment, split three times
    rest = SEG_SMALL - 3 * 512
    assert layout(alloc) == [
        (
            "small",
            SEG_SMALL,
            [
                (0, 512, "allocated", True),
                (512, 512, "allocated", True),
                (1024, 512, "allocated", True),
                (1536, rest, "free", True),
            ],
        )
    ]
    # the first split creates one inactive split block of 2 MiB - 512; each later split shrinks it
    assert stats() == expected_stats(
        "small",
        allocation=(3, 3, 3, 0),
        segment=(1, 1, 1, 0),
        active=(3, 3, 3, 0),
        inactive_split=(1, 1, 1, 0),
        allocated_bytes=(1536, 1536, 1536, 0),
        reserved_bytes=(SEG_SMALL, SEG_SMALL, SEG_SMALL, 0),
        active_bytes=(1536, 1536, 1536, 0),
        inactive_split_bytes=(rest, SEG_SMALL - 512, SEG_SMALL - 512, 1024),
        requested_bytes=(144, 144, 144, 0),
        num_device_alloc=1,
    )

    alloc.free(b)  # neighbours are allocated: no merge; b becomes a second inactive split block
    assert layout(alloc)[0][2][1] == (512, 512, "free", True)
    assert memory.memory_allocated(DEVICE) == 1024
    assert memory.memory_reserved(DEVICE) == SEG_SMALL  # del does not lower reserved memory

    d = alloc.malloc(DEVICE, 100, 0)  # best fit: b's 512 bytes (smaller than the remainder)
    assert d.ptr == b.ptr and d.size == 512
    assert layout(alloc) == [
        (
            "small",
            SEG_SMALL,
            [
                (0, 512, "allocated", True),
                (512, 512, "allocated", True),
                (1024, 512, "allocated", True),
                (1536, rest, "free", True),
            ],
        )
    ]
    assert stats() == expected_stats(
        "small",
        allocation=(3, 3, 4, 1),
        segment=(1, 1, 1, 0),
        active=(3, 3, 4, 1),
        inactive_split=(1, 2, 2, 1),
        allocated_bytes=(1536, 1536, 2048, 512),
        reserved_bytes=(SEG_SMALL, SEG_SMALL, SEG_SMALL, 0),
        active_bytes=(1536, 1536, 2048, 512),
        inactive_split_bytes=(rest, SEG_SMALL - 512, SEG_SMALL, 1536),
        requested_bytes=(196, 196, 244, 48),
        num_device_alloc=1,
    )


def test_large_split_then_merge_back_then_empty_cache(alloc: DeviceCachingAllocator) -> None:
    a = alloc.malloc(DEVICE, 3 * MiB, 0)  # 1..10 MiB: a 20 MiB segment, split (17 MiB > 1 MiB)
    b = alloc.malloc(DEVICE, 5 * MiB, 0)  # best fit: the 17 MiB remainder, split again
    assert layout(alloc) == [
        (
            "large",
            SEG_LARGE,
            [
                (0, 3 * MiB, "allocated", True),
                (3 * MiB, 5 * MiB, "allocated", True),
                (8 * MiB, 12 * MiB, "free", True),
            ],
        )
    ]
    alloc.free(a)  # next is allocated: no merge
    assert layout(alloc)[0][2][0] == (0, 3 * MiB, "free", True)
    alloc.free(b)  # merges with both free neighbours: one unsplit 20 MiB block again
    assert layout(alloc) == [("large", SEG_LARGE, [(0, SEG_LARGE, "free", False)])]
    assert stats() == expected_stats(
        "large",
        allocation=(0, 2, 2, 2),
        segment=(1, 1, 1, 0),
        active=(0, 2, 2, 2),
        inactive_split=(0, 2, 2, 2),
        allocated_bytes=(0, 8 * MiB, 8 * MiB, 8 * MiB),
        reserved_bytes=(SEG_LARGE, SEG_LARGE, SEG_LARGE, 0),
        active_bytes=(0, 8 * MiB, 8 * MiB, 8 * MiB),
        # +17 MiB (first split) -5 MiB (second) +3 MiB (a freed) -15 MiB (merged away)
        inactive_split_bytes=(0, 17 * MiB, 20 * MiB, 20 * MiB),
        requested_bytes=(0, 8 * MiB, 8 * MiB, 8 * MiB),
        num_device_alloc=1,
    )

    alloc.emptyCache()  # the unsplit cached segment goes back to the device
    assert layout(alloc) == []
    assert stats() == expected_stats(
        "large",
        allocation=(0, 2, 2, 2),
        segment=(0, 1, 1, 1),
        active=(0, 2, 2, 2),
        inactive_split=(0, 2, 2, 2),
        allocated_bytes=(0, 8 * MiB, 8 * MiB, 8 * MiB),
        reserved_bytes=(0, SEG_LARGE, SEG_LARGE, SEG_LARGE),
        active_bytes=(0, 8 * MiB, 8 * MiB, 8 * MiB),
        inactive_split_bytes=(0, 17 * MiB, 20 * MiB, 20 * MiB),
        requested_bytes=(0, 8 * MiB, 8 * MiB, 8 * MiB),
        num_device_alloc=1,
        num_device_free=1,
        num_sync_all_streams=1,
    )


def test_split_segment_survives_empty_cache(alloc: DeviceCachingAllocator) -> None:
    a = alloc.malloc(DEVICE, 48, 0)
    alloc.emptyCache()  # the segment is split (a is live): nothing can be released
    assert memory.memory_reserved(DEVICE) == SEG_SMALL
    alloc.free(a)  # merges with the remainder: the segment is whole and free
    alloc.emptyCache()
    assert memory.memory_reserved(DEVICE) == 0


def test_small_and_large_pools_do_not_share(alloc: DeviceCachingAllocator) -> None:
    small = alloc.malloc(DEVICE, MiB, 0)  # 1 MiB is still small: a 2 MiB small segment
    large = alloc.malloc(DEVICE, MiB + 1, 0)  # rounds to 1 MiB + 512: large, a 20 MiB segment
    assert [(pool, size) for pool, size, _ in layout(alloc)] in (
        [("small", SEG_SMALL), ("large", SEG_LARGE)],
        [("large", SEG_LARGE), ("small", SEG_SMALL)],
    )
    assert large.size == MiB + 512
    # the small segment's 1 MiB remainder (> 512 bytes) was split off
    small_seg = next(blocks for pool, _, blocks in layout(alloc) if pool == "small")
    assert small_seg == [(0, MiB, "allocated", True), (MiB, MiB, "free", True)]
    large_seg = next(blocks for pool, _, blocks in layout(alloc) if pool == "large")
    assert large_seg == [
        (0, MiB + 512, "allocated", True),
        (MiB + 512, SEG_LARGE - MiB - 512, "free", True),
    ]
    alloc.free(small)
    alloc.free(large)


def test_large_remainder_of_one_mib_or_less_is_not_split(alloc: DeviceCachingAllocator) -> None:
    # a 19.5 MiB request takes a 20 MiB buffer; the 0.5 MiB rest is not > kSmallSize: no split
    block = alloc.malloc(DEVICE, 19 * MiB + 512 * KiB, 0)
    assert layout(alloc) == [("large", SEG_LARGE, [(0, SEG_LARGE, "allocated", False)])]
    assert block.requested_size == 19 * MiB + 512 * KiB
    assert memory.memory_stats(DEVICE)["allocated_bytes.all.current"] == SEG_LARGE


def test_oversize_reuse_retry_after_release_and_oom(
    new_alloc: Callable[..., DeviceCachingAllocator],
) -> None:
    alloc = new_alloc("max_split_size_mb:20", 64 * MiB)
    a = alloc.malloc(DEVICE, 24 * MiB, 0)  # >= max_split_size: own 24 MiB segment, never split
    alloc.free(a)
    b = alloc.malloc(DEVICE, 4 * MiB, 0)  # < max_split: may not take the oversize 24 MiB block
    assert b.ptr != a.ptr
    c = alloc.malloc(DEVICE, 22 * MiB, 0)  # oversize request: 24 MiB < 22 + 20 MiB, reused whole
    assert c.ptr == a.ptr and c.size == 24 * MiB and c.requested_size == 22 * MiB
    alloc.free(c)
    # 30 MiB: no cached fit; 44 + 30 > 64 MiB, so release_available_cached_blocks frees the
    # 24 MiB oversize block (not enough alone), release_cached_blocks finds nothing unsplit to
    # free, and the retry (num_alloc_retries) fits in 20 + 30 MiB
    d = alloc.malloc(DEVICE, 30 * MiB, 0)
    segments = layout(alloc)
    assert [pool for pool, _, _ in segments] == ["large", "large"]
    assert {size: blocks for _, size, blocks in segments} == {
        SEG_LARGE: [(0, 4 * MiB, "allocated", True), (4 * MiB, 16 * MiB, "free", True)],
        30 * MiB: [(0, 30 * MiB, "allocated", False)],
    }

    with pytest.raises(OutOfMemoryError) as err:
        alloc.malloc(DEVICE, 40 * MiB, 0)  # 50 + 40 > 64 MiB, nothing left to release
    assert str(err.value) == (
        "CUDA out of memory. Tried to allocate 40.00 MiB. GPU 5 has a total capacity of "
        "64.00 MiB of which 14.00 MiB is free. Of the allocated memory 34.00 MiB is allocated "
        "by PyTorch, and 16.00 MiB is reserved by PyTorch but unallocated. If reserved but "
        "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:"
        "True to avoid fragmentation.  See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )
    assert isinstance(err.value, RuntimeError)
    assert stats() == expected_stats(
        "large",
        max_split_size=20 * MiB,
        allocation=(2, 2, 4, 2),
        segment=(2, 2, 3, 1),
        active=(2, 2, 4, 2),
        inactive_split=(1, 1, 1, 0),
        allocated_bytes=(34 * MiB, 34 * MiB, 82 * MiB, 48 * MiB),
        reserved_bytes=(50 * MiB, 50 * MiB, 74 * MiB, 24 * MiB),
        active_bytes=(34 * MiB, 34 * MiB, 82 * MiB, 48 * MiB),
        inactive_split_bytes=(16 * MiB, 16 * MiB, 16 * MiB, 0),
        requested_bytes=(34 * MiB, 34 * MiB, 80 * MiB, 46 * MiB),
        oversize_allocations=(1, 1, 3, 2),
        oversize_segments=(2, 2, 3, 1),
        num_alloc_retries=2,
        num_ooms=1,
        num_sync_all_streams=2,
        num_device_alloc=3,
        num_device_free=1,
    )
    alloc.free(b)
    alloc.free(d)


def test_retry_after_release_cached_blocks(
    new_alloc: Callable[..., DeviceCachingAllocator],
) -> None:
    alloc = new_alloc(capacity=48 * MiB)
    # no max_split_size: release_available_cached_blocks does nothing, release_cached_blocks
    # frees the cached unsplit 24 MiB segment, and the retry succeeds
    alloc.free(alloc.malloc(DEVICE, 24 * MiB, 0))
    big = alloc.malloc(DEVICE, 30 * MiB, 0)  # 24 + 30 > 48: release, retry
    s = stats()
    assert (s["num_alloc_retries"], s["num_device_free"], s["segment.all.current"]) == (1, 1, 1)
    assert layout(alloc) == [("large", 30 * MiB, [(0, 30 * MiB, "allocated", False)])]
    alloc.free(big)


def test_oom_leaves_no_leak_and_per_process_fraction(
    new_alloc: Callable[..., DeviceCachingAllocator],
) -> None:
    alloc = new_alloc(capacity=64 * MiB)
    before = stats()
    with pytest.raises(
        OutOfMemoryError,
        match=r"Tried to allocate 66\.00 MiB\. GPU 5 has a "
        r"total capacity of 64\.00 MiB of which 64\.00 MiB is free\.",
    ):
        alloc.malloc(DEVICE, 65 * MiB + 1, 0)
    after = stats()
    assert after["num_ooms"] == 1 and after["num_alloc_retries"] == 1
    assert {
        k: v
        for k, v in after.items()
        if k not in ("num_ooms", "num_alloc_retries", "num_sync_all_streams")
    } == {
        k: v
        for k, v in before.items()
        if k not in ("num_ooms", "num_alloc_retries", "num_sync_all_streams")
    }
    alloc.setMemoryFraction(0.5)  # 32 MiB allowed
    with pytest.raises(
        OutOfMemoryError,
        match=r"of which 64\.00 MiB is free\. 32\.00 MiB "
        r"allowed; Of the allocated memory 0 bytes is allocated",
    ):
        alloc.malloc(DEVICE, 40 * MiB, 0)


def test_garbage_collection_threshold(new_alloc: Callable[..., DeviceCachingAllocator]) -> None:
    alloc = new_alloc("garbage_collection_threshold:0.5", 100 * MiB)
    alloc.setMemoryFraction(1.0)  # gc only runs with a memory fraction set
    a = alloc.malloc(DEVICE, 24 * MiB, 0)
    b = alloc.malloc(DEVICE, 30 * MiB, 0)
    alloc.free(a)
    alloc.free(b)
    # 54 MiB reserved > 50 MiB threshold: both cached blocks are as old as the average; freed
    c = alloc.malloc(DEVICE, 40 * MiB, 0)
    assert layout(alloc) == [("large", 40 * MiB, [(0, 40 * MiB, "allocated", False)])]
    s = stats()
    assert (s["num_device_free"], s["num_alloc_retries"]) == (2, 0)
    alloc.free(c)


def test_record_stream_defers_the_free(alloc: DeviceCachingAllocator) -> None:
    a = alloc.malloc(DEVICE, 48, 0)
    a_ptr = a.ptr
    alloc.recordStream(a, 0)  # the allocation stream itself: ignored
    assert not a.stream_uses
    alloc.recordStream(a, 7)
    alloc.free(a)
    # free requested, not completed: the block waits for stream 7's work (an event)
    assert layout(alloc)[0][2][0] == (0, 512, "pending", True)
    s = stats()
    assert (s["allocated_bytes.all.current"], s["active_bytes.all.current"]) == (0, 512)
    snap = [seg for seg in memory.memory_snapshot() if seg["device"] == DEVICE]
    assert snap[0]["blocks"][0]["state"] == "active_pending_free"
    # process_events: the event has completed, a merges back and its address is served again
    b = alloc.malloc(DEVICE, 48, 0)
    assert b.ptr == a_ptr
    alloc.free(b)


def test_streams_have_separate_blocks(alloc: DeviceCachingAllocator) -> None:
    alloc.free(alloc.malloc(DEVICE, 48, 0))
    other = alloc.malloc(DEVICE, 48, 3)  # stream 3 cannot use stream 0's cached block
    assert len(layout(alloc)) == 2 and other.stream == 3
    alloc.free(other)


def test_random_sequences_leave_no_leak(alloc: DeviceCachingAllocator) -> None:
    rng = random.Random(10)
    for _ in range(5):
        live: list[Block] = []
        for _ in range(200):
            if live and rng.random() < 0.45:
                alloc.free(live.pop(rng.randrange(len(live))))
            else:
                size = rng.choice([1, 48, 512, 4000, 100_000, MiB, 3 * MiB, 12 * MiB])
                live.append(alloc.malloc(DEVICE, rng.randrange(1, size + 1), 0))
            # invariants: blocks tile each segment; reserved = sum of segments
            segs = layout(alloc)
            assert sum(size for _, size, _ in segs) == memory.memory_reserved(DEVICE)
            assert sum(b.size for b in live) == memory.memory_allocated(DEVICE)
        for block in live:
            alloc.free(block)
        assert memory.memory_allocated(DEVICE) == 0
        s = stats()
        assert s["inactive_split.all.current"] == s["inactive_split_bytes.all.current"] == 0
        alloc.emptyCache()
        assert memory.memory_reserved(DEVICE) == 0 and cca.device_memory(DEVICE).used == 0


def test_format_size() -> None:
    assert [cca.format_size(n) for n in (0, 1024, 1025, MiB, MiB + 1, 1 << 30, 3 << 30)] == [
        "0 bytes",
        "1024 bytes",
        "1.00 KiB",
        "1024.00 KiB",
        "1.00 MiB",
        "1024.00 MiB",
        "3.00 GiB",
    ]


def test_release_several_oversize_blocks_largest_first(
    new_alloc: Callable[..., DeviceCachingAllocator],
) -> None:
    alloc = new_alloc("max_split_size_mb:20", 70 * MiB)
    a = alloc.malloc(DEVICE, 24 * MiB, 0)
    b = alloc.malloc(DEVICE, 26 * MiB, 0)
    alloc.free(a)
    alloc.free(b)
    # 30 MiB: 50 + 30 > 70. No single cached block is >= 30 MiB, so the oversize blocks are
    # released from the largest down (26 MiB, then 24 MiB) until 30 MiB are freed; then the
    # first alloc_block attempt again: not a retry
    c = alloc.malloc(DEVICE, 30 * MiB, 0)
    assert layout(alloc) == [("large", 30 * MiB, [(0, 30 * MiB, "allocated", False)])]
    s = stats()
    assert (s["num_device_free"], s["num_alloc_retries"], s["num_sync_all_streams"]) == (2, 0, 0)
    assert (s["oversize_segments.current"], s["oversize_segments.freed"]) == (1, 2)
    alloc.free(c)
