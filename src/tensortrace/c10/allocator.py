"""DataPtr, the Allocator interface, and the per-device allocator registry.

Mirrors `c10/core/Allocator.h` / `Allocator.cpp` (DataPtr, Allocator, SetAllocator with
priority, GetAllocator, REGISTER_ALLOCATOR) and `c10/util/UniqueVoidPtr.h`. A DataPtr owns
memory through its context and deleter: clearing it calls the deleter once, which is how a
StorageImpl returns memory to the allocator that gave it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensortrace.c10.device import Device, DeviceType
from tensortrace.c10.exception import torchCheckFail
from tensortrace.trace import recorder, traced

DeleterFnPtr = Callable[[Any], None]


class DataPtr:
    """A pointer to data plus the context that owns it (UniqueVoidPtr) and its device.

    `data` is the address; `ctx` owns the memory: here a NumPy uint8 array of exactly the
    allocated bytes, which kernels view with the tensor's dtype, sizes and strides.
    """

    __slots__ = ("data", "ctx", "deleter", "device")

    def __init__(
        self, data: int, ctx: np.ndarray | None, deleter: DeleterFnPtr | None, device: Device
    ) -> None:
        self.data = data
        self.ctx = ctx
        self.deleter = deleter
        self.device = device

    def get(self) -> int:
        return self.data

    def get_context(self) -> np.ndarray | None:
        return self.ctx

    def clear(self) -> None:
        """Run the deleter once and forget the memory (unique_ptr::reset on the context)."""
        ctx, deleter = self.ctx, self.deleter
        self.data, self.ctx, self.deleter = 0, None, None
        if deleter is not None:
            deleter(ctx)

    def __bool__(self) -> bool:
        return self.data != 0


class Allocator:
    """The interface: hand out a DataPtr of `nbytes`, whose deleter gives the memory back."""

    def allocate(self, nbytes: int) -> DataPtr:
        raise NotImplementedError

    def raw_deleter(self) -> DeleterFnPtr | None:
        return None


_allocator_array: dict[DeviceType, Allocator] = {}
_allocator_priority: dict[DeviceType, int] = {}


@traced("allocator", "c10::SetAllocator", "c10/core/Allocator.cpp")
def SetAllocator(t: DeviceType, alloc: Allocator, priority: int = 0) -> None:
    """Install `alloc` for device type `t` unless one of higher priority is already there."""
    if priority >= _allocator_priority.get(t, 0):
        _allocator_array[t] = alloc
        _allocator_priority[t] = priority


@traced("allocator", "c10::GetAllocator", "c10/core/Allocator.cpp")
def GetAllocator(t: DeviceType) -> Allocator:
    alloc = _allocator_array.get(t)
    if alloc is None:  # Note [TORCH_CHECK tests first]: t.lower() only on failure
        torchCheckFail("Allocator for ", t.lower(), " is not set.")
    return alloc  # type: ignore[return-value]


def REGISTER_ALLOCATOR(t: DeviceType, alloc: Allocator) -> None:
    """The static registerer: runs SetAllocator when the module defining `alloc` is loaded."""
    SetAllocator(t, alloc)


def reportMemoryUsageToProfiler(
    kind: str,
    ptr: int,
    alloc_size: int,
    total_allocated: int,
    total_reserved: int,
    device_type: DeviceType,
    device_id: int,
    extra: dict[str, Any],
) -> None:
    """c10::reportMemoryUsageToProfiler (Allocator.cpp): the `[memory]` instant of an allocation
    (`alloc`, positive bytes) or a free, with the allocator's totals after it."""
    rec = recorder.current
    if rec is not None:
        rec.instant(
            kind,
            "allocator",
            "[memory]",
            {
                "addr": ptr,
                "bytes": alloc_size,
                "device": f"{device_type.lower()}:{device_id}",
                "device_type": int(device_type),
                "device_id": device_id,
                "total_allocated": total_allocated,
                "total_reserved": total_reserved,
                **extra,
            },
        )
