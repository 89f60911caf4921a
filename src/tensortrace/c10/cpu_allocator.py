"""The CPU allocator: 64-byte aligned memory, zero/junk fill, and reports to the profiler.

Mirrors `c10/core/impl/alloc_cpu.cpp` (alloc_cpu, free_cpu, gAlignment = 64, the zero-fill
and junk-fill flags) and `c10/core/CPUAllocator.cpp` (DefaultCPUAllocator, ReportAndDelete,
ProfiledCPUMemoryReporter, GetCPUAllocator, REGISTER_ALLOCATOR). Memory is real: NumPy allocates
it, and alloc_cpu hands out a 64-byte aligned window of it, as posix_memalign would.
"""

from __future__ import annotations

import ctypes

import numpy as np

from tensortrace.c10.allocator import (
    REGISTER_ALLOCATOR,
    Allocator,
    DataPtr,
    DeleterFnPtr,
    GetAllocator,
)
from tensortrace.c10.device import CPU, DeviceType, kCPU
from tensortrace.c10.exception import torchCheckFail
from tensortrace.c10.memory_stats import DeviceStats
from tensortrace.trace import recorder, traced
from tensortrace.trace.schema import ALLOC, FREE

gAlignment = 64  # PyTorch's name; AVX-512 wants 64-byte aligned loads

# FLAGS_caffe2_cpu_allocator_do_zero_fill / FLAGS_caffe2_cpu_allocator_do_junk_fill
FLAGS = {"caffe2_cpu_allocator_do_zero_fill": False, "caffe2_cpu_allocator_do_junk_fill": False}

# memset_junk's pattern: a signalling-NaN-ish word that makes reads of uninitialized memory obvious.
kJunkPattern = np.uint32(0x7FEDBEEF)


# ctypes.addressof and c_char.from_buffer, looked up once: reading `ctypes.c_char.from_buffer`
# goes through the ctypes metaclass each time and cost more than the call itself (timeit: 0.72 us
# per address_of with the lookups, 0.31 us without)
_addressof = ctypes.addressof
_new_object = object.__new__
_char_from_buffer = ctypes.c_char.from_buffer

# the element type of every block, made once: np.empty given a dtype object positionally parses
# its arguments faster than given `dtype=np.uint8` (timeit: 0.29 us against 0.37 us)
_BYTES = np.dtype(np.uint8)
_empty = np.empty  # Note [NumPy's names read once] in c10/tensor_impl.py


def address_of(data: np.ndarray) -> int:
    """The address of a (writable, contiguous, non-empty) array's first byte.

    `data.ctypes.data` builds a numpy `_ctypes` helper object on every call (~2 us); a ctypes view
    of the buffer gives the same address about seven times faster.
    """
    # ndarray is a Buffer; NumPy's stubs declare its __buffer__ only for Python >= 3.12
    return _addressof(_char_from_buffer(data))  # type: ignore[arg-type]


# Note [The address of each live block]
# C's allocator hands out an address; here a block is a NumPy array, whose address takes a ctypes
# buffer export to read (address_of, ~3x the cost of the np.empty itself). alloc_cpu must read
# the raw array's address once, to align the window; it notes the window's address under the
# window array's id(), and DefaultCPUAllocator.allocate and ReportAndDelete (which takes the
# note away) read it there instead of asking NumPy twice more. The window array lives in its
# DataPtr until the deleter runs, so no other array can have its id() meanwhile.
_block_addresses: dict[int, int] = {}


def memset_junk(data: np.ndarray) -> None:
    words = data[: data.size // 4 * 4].view(np.uint32)
    words.fill(kJunkPattern)
    tail = data.size % 4
    if tail:
        data[-tail:] = np.frombuffer(kJunkPattern.tobytes(), np.uint8)[:tail]


@traced(
    "allocator",
    "c10::alloc_cpu",
    "c10/core/impl/alloc_cpu.cpp",
    legacy="alloc_cpu (posix_memalign)",
)
def alloc_cpu(nbytes: int) -> np.ndarray | None:
    """posix_memalign(&data, gAlignment, nbytes): here a 64-byte aligned window of NumPy memory."""
    if nbytes == 0:
        return None
    if nbytes < 0:  # Note [TORCH_CHECK tests first] (0 returned above)
        torchCheckFail("alloc_cpu() seems to have been called with negative number: ", nbytes)
    try:
        raw = _empty(nbytes + gAlignment, _BYTES)
    except (MemoryError, ValueError):  # ValueError: more than NumPy's largest dimension
        # posix_memalign fails with ENOMEM: alloc_cpu.cpp's CAFFE_ENFORCE_EQ(err, 0, ...)
        raise RuntimeError(
            f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
            f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate "
            f"memory)"
        ) from None
    raw_address = _addressof(_char_from_buffer(raw))  # type: ignore[arg-type]  # address_of(raw)
    start = -raw_address % gAlignment
    data = raw[start : start + nbytes]
    _block_addresses[id(data)] = raw_address + start  # Note [The address of each live block]
    if FLAGS["caffe2_cpu_allocator_do_zero_fill"]:
        data.fill(0)
    elif FLAGS["caffe2_cpu_allocator_do_junk_fill"]:
        memset_junk(data)
    return data


@traced("allocator", "c10::free_cpu", "c10/core/impl/alloc_cpu.cpp", legacy="free_cpu (free)")
def free_cpu(data: np.ndarray | None) -> None:
    """free(data). NumPy releases the memory once the last view of it is gone."""


class ProfiledCPUMemoryReporter:
    """Counts live CPU bytes and reports each allocation and free to the profiler."""

    def __init__(self) -> None:
        self.size_table: dict[int, int] = {}
        self.allocated = 0
        self.stats = DeviceStats()

    def New(self, ptr: int, nbytes: int) -> None:
        if nbytes == 0:
            return
        self.size_table[ptr] = nbytes
        self.allocated += nbytes
        self.stats.on_alloc(nbytes)
        if recorder.current is not None:
            recorder.current.instant(
                ALLOC,
                "allocator",
                "[memory]",
                {
                    "addr": ptr,
                    "bytes": nbytes,
                    "device": "cpu",
                    "total_allocated": self.allocated,
                    "total_reserved": self.allocated,
                },
            )

    def Delete(self, ptr: int) -> None:
        nbytes = self.size_table.pop(ptr, 0)
        if nbytes == 0:
            return
        self.allocated -= nbytes
        self.stats.on_free(nbytes)
        if recorder.current is not None:
            recorder.current.instant(
                FREE,
                "allocator",
                "[memory]",
                {
                    "addr": ptr,
                    "bytes": nbytes,
                    "device": "cpu",
                    "total_allocated": self.allocated,
                    "total_reserved": self.allocated,
                },
            )


_reporter = ProfiledCPUMemoryReporter()


def profiledCPUMemoryReporter() -> ProfiledCPUMemoryReporter:
    return _reporter


@traced("allocator", "c10::ReportAndDelete", "c10/core/CPUAllocator.cpp")
def ReportAndDelete(ctx: np.ndarray | None) -> None:
    """The DataPtr deleter of the default CPU allocator: report the free, then free_cpu."""
    if ctx is None:
        return
    ptr = _block_addresses.pop(id(ctx), None)  # Note [The address of each live block]
    _reporter.Delete(ptr if ptr is not None else address_of(ctx))
    free_cpu(ctx)


class DefaultCPUAllocator(Allocator):
    @traced("allocator", "c10::DefaultCPUAllocator::allocate", "c10/core/CPUAllocator.cpp")
    def allocate(self, nbytes: int) -> DataPtr:
        data = alloc_cpu(nbytes)
        if data is None:
            return DataPtr(0, None, ReportAndDelete, CPU)
        ptr = _block_addresses[id(data)]  # address_of(data): Note [The address of each live block]
        _reporter.New(ptr, nbytes)
        # DataPtr(ptr, data, ReportAndDelete, CPU): Note [Pointers made in C]
        data_ptr = _new_object(DataPtr)
        data_ptr.data, data_ptr.ctx, data_ptr.deleter, data_ptr.device = (
            ptr,
            data,
            ReportAndDelete,
            CPU,
        )
        return data_ptr

    def raw_deleter(self) -> DeleterFnPtr | None:
        return ReportAndDelete


g_cpu_alloc = DefaultCPUAllocator()
REGISTER_ALLOCATOR(DeviceType.CPU, g_cpu_alloc)


@traced(
    "allocator",
    "c10::GetCPUAllocator",
    "c10/core/CPUAllocator.cpp",
    legacy="at::getCPUAllocator -> getTHDefaultAllocator",
)
def GetCPUAllocator() -> Allocator:
    return GetAllocator(kCPU)  # Note [Enum members read once]
