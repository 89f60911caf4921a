"""The emulated CUDA device's runtime: its memory, cudaMalloc, cudaFree, cudaMemGetInfo, events.

Stands in for the CUDA runtime API (`cuda_runtime_api.h`) that `c10/cuda/CUDACachingAllocator.cpp`
calls; PyTorch has no such file, the driver is the device.

Note [The emulated device's memory]
The emulated CUDA device has no memory of its own: its memory is host memory. cudaMalloc hands
out one NumPy uint8 buffer per segment, 512-byte aligned, and its address is the segment's
address; a block is a window of its segment at `ptr - base`, so the addresses a snapshot shows
are real, blocks of one segment are contiguous, and kernels read and write the bytes a tensor
owns. The device has a capacity (1 GiB by default, small so that out-of-memory can be shown;
TENSORTRACE_CUDA_MEMORY=8GiB or set_device_capacity() change it): cudaMalloc fails with
cudaErrorMemoryAllocation when the segments would exceed it, which drives the allocator's
release-and-retry and its OutOfMemoryError exactly as a full GPU does. Work on the emulated device
is synchronous, so the events that record_stream waits on have completed by the time the
allocator queries them; the free is still deferred to the next malloc, as in PyTorch.
"""

from __future__ import annotations

import os
import re

import numpy as np

from tensortrace.c10.cpu_allocator import address_of
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

kSegmentAlignment = 512  # the emulated cudaMalloc's alignment
DEFAULT_DEVICE_MEMORY = 1 << 30  # 1 GiB: small, so that a notebook can run out of it

_UNITS = {
    "": 1,
    "B": 1,
    "K": 1 << 10,
    "KB": 1 << 10,
    "KIB": 1 << 10,
    "M": 1 << 20,
    "MB": 1 << 20,
    "MIB": 1 << 20,
    "G": 1 << 30,
    "GB": 1 << 30,
    "GIB": 1 << 30,
}


def parse_memory_size(text: str) -> int:
    """`1073741824`, `512MiB`, `8GiB`, `2G`: the TENSORTRACE_CUDA_MEMORY syntax."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    TORCH_CHECK(
        match is not None and match.group(2).upper() in _UNITS,
        "TENSORTRACE_CUDA_MEMORY must be a size such as 1073741824, 512MiB or 8GiB, got '",
        text,
        "'",
    )
    assert match is not None
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


class EmulatedDeviceMemory:
    """One device's memory: a capacity, and the segments cudaMalloc has handed out."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.used = 0
        self.segments: dict[int, np.ndarray] = {}  # address -> the segment's buffer


_device_memory: dict[int, EmulatedDeviceMemory] = {}


def device_memory(device: int) -> EmulatedDeviceMemory:
    mem = _device_memory.get(device)
    if mem is None:
        env = os.environ.get("TENSORTRACE_CUDA_MEMORY")
        capacity = parse_memory_size(env) if env else DEFAULT_DEVICE_MEMORY
        mem = _device_memory[device] = EmulatedDeviceMemory(capacity)
    return mem


def set_device_capacity(nbytes: int, device: int = 0) -> None:
    """Give the emulated device `device` a total memory of `nbytes` (while it holds none)."""
    mem = device_memory(device)
    TORCH_CHECK(
        mem.used == 0,
        "set_device_capacity: device ",
        device,
        " still has ",
        mem.used,
        " bytes in segments; call torch.cuda.empty_cache() first",
    )
    TORCH_CHECK(nbytes > 0, "set_device_capacity: capacity must be positive, got ", nbytes)
    mem.capacity = int(nbytes)


@traced(
    "allocator",
    "cudaMalloc",
    "c10/cuda/CUDACachingAllocator.cpp",
    symbol="cudaMallocMaybeCapturing -> cudaMalloc (emulated: a host buffer)",
)
def cudaMalloc(size: int, device: int) -> tuple[str, int, np.ndarray | None]:
    """Reserve `size` bytes of the device: (error, address, buffer). See the module's Note."""
    mem = device_memory(device)
    if mem.used + size > mem.capacity:
        return "cudaErrorMemoryAllocation", 0, None
    try:
        raw = np.empty(size + kSegmentAlignment, dtype=np.uint8)
    except MemoryError:  # the host itself is out of memory: the same error for the allocator
        return "cudaErrorMemoryAllocation", 0, None
    start = -address_of(raw) % kSegmentAlignment
    buf = raw[start : start + size]
    ptr = address_of(buf)
    mem.used += size
    mem.segments[ptr] = buf
    return "cudaSuccess", ptr, buf


@traced(
    "allocator",
    "cudaFree",
    "c10/cuda/CUDACachingAllocator.cpp",
    symbol="cudaFree (emulated: drop the host buffer)",
)
def cudaFree(ptr: int, device: int) -> None:
    mem = device_memory(device)
    buf = mem.segments.pop(ptr)
    mem.used -= buf.size


def cudaMemGetInfo(device: int) -> tuple[int, int]:
    """(free, total) bytes of the emulated device."""
    mem = device_memory(device)
    return mem.capacity - mem.used, mem.capacity


class Event:
    """A cudaEvent recorded on `stream`: the emulated device has finished the work before it."""

    __slots__ = ("stream",)

    def __init__(self, stream: int) -> None:
        self.stream = stream

    def query(self) -> bool:
        return True  # work on the emulated device is synchronous
