"""The CUDA caching allocator: one DeviceCachingAllocator per device, registered for CUDA.

Mirrors NativeCachingAllocator, local_raw_delete and the registration of
`c10/cuda/CUDACachingAllocator.cpp`. DataPtrs it hands out are windows of the emulated device's
segments (Note [The emulated device's memory] in emulated_device.py), on Device('cuda', i); their
deleter gives the block back to the cache. The allocator's rules are in
device_caching_allocator.py; this module re-exports the names the rest of tensortrace uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensortrace.c10.allocator import REGISTER_ALLOCATOR, Allocator, DataPtr
from tensortrace.c10.cpu_allocator import address_of
from tensortrace.c10.cuda.allocator_history import (
    ACTIONS,
    BlockInfo,
    RecordContext,
    SegmentInfo,
    TraceEntry,
)
from tensortrace.c10.cuda.allocator_mutex import ALLOCATOR_MUTEX
from tensortrace.c10.cuda.block_pool import Block
from tensortrace.c10.cuda.caching_allocator_sizes import (
    NS,
    SRC,
    format_size,
    kLargeBuffer,
    kMinBlockSize,
    kMinLargeAlloc,
    kRoundLarge,
    kSmallBuffer,
    kSmallSize,
)
from tensortrace.c10.cuda.device_caching_allocator import DeviceCachingAllocator, _as_int64
from tensortrace.c10.cuda.emulated_device import (
    DEFAULT_DEVICE_MEMORY,
    cudaFree,
    cudaMalloc,
    cudaMemGetInfo,
    device_memory,
    parse_memory_size,
    set_device_capacity,
)
from tensortrace.c10.device import Device, DeviceType
from tensortrace.c10.exception import TORCH_CHECK, OutOfMemoryError
from tensortrace.trace import traced

__all__ = [
    "ACTIONS",
    "DEFAULT_DEVICE_MEMORY",
    "Block",
    "BlockInfo",
    "DataPtr",
    "DeviceCachingAllocator",
    "NativeCachingAllocator",
    "OutOfMemoryError",
    "RecordContext",
    "SegmentInfo",
    "TraceEntry",
    "_as_int64",
    "allocator",
    "cudaFree",
    "cudaMalloc",
    "cudaMemGetInfo",
    "device_memory",
    "format_size",
    "get",
    "kLargeBuffer",
    "kMinBlockSize",
    "kMinLargeAlloc",
    "kRoundLarge",
    "kSmallBuffer",
    "kSmallSize",
    "local_raw_delete",
    "parse_memory_size",
    "set_device_capacity",
]


class NativeCachingAllocator(Allocator):
    """The CUDA allocator: one DeviceCachingAllocator per device, and the live blocks by address.

    `current_device`, `current_stream` and `device_count` are hooks the emulated device's runtime
    (torch.cuda) sets; by default there is one device, and everything runs on stream 0.
    """

    def __init__(self) -> None:
        self.device_allocator: dict[int, DeviceCachingAllocator] = {}
        self.allocated_blocks: dict[int, Block] = {}
        self.current_device: Callable[[], int] = lambda: 0
        self.current_stream: Callable[[int], int] = lambda device: 0
        self.device_count: Callable[[], int] = lambda: 1

    def device_allocator_for(self, device: int) -> DeviceCachingAllocator:
        da = self.device_allocator.get(device)
        if da is None:
            TORCH_CHECK(
                0 <= device < self.device_count(),
                "Invalid device argument ",
                device,
                ": did you call init?",
            )
            da = self.device_allocator[device] = DeviceCachingAllocator(device)
        return da

    def initialized(self) -> bool:
        return bool(self.device_allocator)

    def malloc(self, device: int, size: int, stream: int) -> Block:
        with ALLOCATOR_MUTEX:  # Note [The allocator's mutex and the cyclic GC]
            block = self.device_allocator_for(device).malloc(device, size, stream)
            self.allocated_blocks[block.ptr] = block
        return block

    @traced("allocator", NS + "NativeCachingAllocator::allocate", SRC)
    def allocate(self, nbytes: int) -> DataPtr:
        if nbytes >= 1152921504606846976:  # one exabyte
            raise OutOfMemoryError("CUDA out of memory. Tried to allocate more than 1EB memory.")
        device = self.current_device()
        cuda = Device(DeviceType.CUDA, device)
        if nbytes == 0:
            return DataPtr(0, None, local_raw_delete, cuda)
        block = self.malloc(device, nbytes, self.current_stream(device))
        return DataPtr(block.ptr, block.view(nbytes), local_raw_delete, cuda)

    def raw_deleter(self) -> Callable[[Any], None]:
        return local_raw_delete

    def raw_alloc_with_stream(self, nbytes: int, stream: int) -> int:
        if nbytes == 0:
            return 0
        return self.malloc(self.current_device(), nbytes, stream).ptr

    def raw_alloc(self, nbytes: int) -> int:
        return self.raw_alloc_with_stream(nbytes, self.current_stream(self.current_device()))

    @traced("allocator", NS + "NativeCachingAllocator::free", SRC)
    def free(self, ptr: int) -> None:
        if not ptr:
            return
        with ALLOCATOR_MUTEX:  # Note [The allocator's mutex and the cyclic GC]
            block = self.allocated_blocks.pop(ptr, None)
            TORCH_CHECK(block is not None, "invalid device pointer: ", hex(ptr))
            assert block is not None
            self.device_allocator[block.device].free(block)

    def raw_delete(self, ptr: int) -> None:
        self.free(ptr)

    def recordStream(self, data_ptr: DataPtr | int, stream: int) -> None:
        """Tensor.record_stream: the block must outlive the work queued on `stream`."""
        ptr = data_ptr if isinstance(data_ptr, int) else data_ptr.get()
        if not ptr:
            return  # an empty tensor has no block
        if not isinstance(data_ptr, int) and data_ptr.deleter is not local_raw_delete:
            return  # not memory of this allocator
        block = self.allocated_blocks.get(ptr)
        TORCH_CHECK(block is not None, "INTERNAL ASSERT FAILED: No allocated block can be found")
        assert block is not None
        with ALLOCATOR_MUTEX:
            self.device_allocator[block.device].recordStream(block, stream)

    def emptyCache(self) -> None:
        with ALLOCATOR_MUTEX:
            for da in self.device_allocator.values():
                da.emptyCache()

    def setMemoryFraction(self, fraction: float, device: int) -> None:
        TORCH_CHECK(
            0 <= fraction <= 1, "invalid fraction:", fraction, ". Please set within (0, 1)."
        )
        self.device_allocator_for(device).setMemoryFraction(fraction)

    def recordHistory(
        self,
        enabled: bool,
        when: RecordContext,
        max_entries: int,
        stacks: str = "python",
        skip_actions: frozenset[str] = frozenset(),
        clear_history: bool = False,
    ) -> None:
        self.device_allocator_for(self.current_device())
        for da in self.device_allocator.values():
            da.recordHistory(enabled, when, max_entries, stacks, skip_actions, clear_history)

    def snapshot(self) -> tuple[list[SegmentInfo], list[list[TraceEntry]]]:
        """(segments of every device, each device's history)."""
        segments: list[SegmentInfo] = []
        traces: list[list[TraceEntry]] = []
        for device in sorted(self.device_allocator):
            da = self.device_allocator[device]
            traces.append(da.trace())
            segments.extend(da.snapshot())
        return segments, traces


allocator = NativeCachingAllocator()


@traced("allocator", NS + "local_raw_delete", SRC)
def local_raw_delete(ctx: np.ndarray | None) -> None:
    """The DataPtr deleter: give the block back to the caching allocator."""
    if ctx is None or ctx.size == 0:
        return
    allocator.free(address_of(ctx))


REGISTER_ALLOCATOR(DeviceType.CUDA, allocator)


def get() -> NativeCachingAllocator:
    """CUDACachingAllocator::get(): the registered caching allocator."""
    return allocator
