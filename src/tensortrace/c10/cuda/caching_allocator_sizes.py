"""The caching allocator's sizes: its constants and the rules that round a request.

Mirrors the constants at the top of `c10/cuda/CUDACachingAllocator.cpp` (kMinBlockSize,
kSmallSize, kSmallBuffer, kLargeBuffer, kMinLargeAlloc, kRoundLarge), DeviceCachingAllocator's
static members round_size, roundup_power2_next_division, get_allocation_size and should_split,
and c10's format_size (the OutOfMemoryError message's sizes).
"""

from __future__ import annotations

from tensortrace.c10.cuda.block_pool import Block
from tensortrace.c10.cuda.cuda_allocator_config import CUDAAllocatorConfig
from tensortrace.c10.exception import TORCH_CHECK

SRC = "c10/cuda/CUDACachingAllocator.cpp"
NS = "c10::cuda::CUDACachingAllocator::Native::"
DCA = NS + "DeviceCachingAllocator::"

kMinBlockSize = 512  # all sizes are rounded to at least 512 bytes
kSmallSize = 1048576  # largest "small" allocation is 1 MiB
kSmallBuffer = 2097152  # "small" allocations are packed in 2 MiB blocks
kLargeBuffer = 20971520  # "large" allocations may be packed in 20 MiB blocks
kMinLargeAlloc = 10485760  # allocations between 1 and 10 MiB may use kLargeBuffer
kRoundLarge = 2097152  # round up large allocations to 2 MiB


def format_size(size: int) -> str:
    """c10's size pretty-printer: `512 bytes`, `2.00 KiB`, `20.00 MiB`, `1.00 GiB`."""
    if size <= 1024:
        return f"{size} bytes"
    if size <= 1048576:
        return f"{size / 1024.0:.2f} KiB"
    if size <= 1073741824:
        return f"{size / 1048576.0:.2f} MiB"
    return f"{size / 1073741824.0:.2f} GiB"


def roundup_power2_next_division(size: int, divisions: int) -> int:
    if size & (size - 1) == 0:
        return size
    TORCH_CHECK(divisions >= 2, "Only 2 or more divisions are supported")
    power2_floor = 1 << (size.bit_length() - 1)
    power2_division = power2_floor >> (divisions.bit_length() - 1)
    if power2_division == 0:
        return power2_floor << 1
    round_size_floor = size & ~(power2_division - 1)
    return size if round_size_floor == size else round_size_floor + power2_division


def round_size(size: int) -> int:
    """512-byte granularity, or the next power-of-two division when configured."""
    if size < kMinBlockSize:
        return kMinBlockSize
    divisions = CUDAAllocatorConfig.instance().roundup_power2_divisions(size)
    if divisions > 1 and size > kMinBlockSize * divisions:
        return roundup_power2_next_division(size, divisions)
    return kMinBlockSize * ((size + kMinBlockSize - 1) // kMinBlockSize)


def get_allocation_size(size: int) -> int:
    """The segment to cudaMalloc for a request: 2 MiB, 20 MiB, or rounded up to 2 MiB."""
    if size <= kSmallSize:
        return kSmallBuffer
    if size < kMinLargeAlloc:
        return kLargeBuffer
    return kRoundLarge * ((size + kRoundLarge - 1) // kRoundLarge)


def should_split(block: Block, size: int) -> bool:
    remaining = block.size - size
    assert block.pool is not None
    if block.pool.is_small:
        return remaining >= kMinBlockSize
    return size < CUDAAllocatorConfig.instance().max_split_size and remaining > kSmallSize
