"""The emulated CUDA runtime's device queries: how many devices, which one is current.

Mirrors `c10/cuda/CUDAFunctions.cpp` (device_count, current_device, set_device,
device_synchronize, ExchangeDevice) and `c10/cuda/CUDAGuard.h` (CUDAGuard: set a device for a
scope). Note [The emulated CUDA device]: tensortrace has no GPU. A `cuda` tensor's memory is host
memory handed out by the CUDA caching allocator, and its kernels run the CPU's NumPy loops, but
every step is the one PyTorch takes on a GPU: the CUDA dispatch key, the CUDA kernels and stubs,
the caching allocator, Device Type 1 in the `[memory]` instants. There is one device by default;
set TENSORTRACE_CUDA_DEVICES=n (0 to 16) before importing tensortrace to have n of them.
"""

from __future__ import annotations

import os
import threading

from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "c10/cuda/CUDAFunctions.cpp"
C10_COMPILE_TIME_MAX_GPUS = 16  # c10/cuda/impl/cuda_cmake_macros.h


def _device_count_from_env() -> int:
    raw = os.environ.get("TENSORTRACE_CUDA_DEVICES", "1")
    try:
        count = int(raw)
    except ValueError:
        raise RuntimeError(f"TENSORTRACE_CUDA_DEVICES must be an integer, got '{raw}'") from None
    TORCH_CHECK(
        0 <= count <= C10_COMPILE_TIME_MAX_GPUS,
        "TENSORTRACE_CUDA_DEVICES must be between 0 and ",
        C10_COMPILE_TIME_MAX_GPUS,
        ", got ",
        count,
    )
    return count


_device_count = _device_count_from_env()
_tls = threading.local()  # cudaSetDevice is per host thread


def device_count() -> int:
    """c10::cuda::device_count(): the emulated devices (TENSORTRACE_CUDA_DEVICES, default 1)."""
    return _device_count


def device_count_ensure_non_zero() -> int:
    TORCH_CHECK(_device_count > 0, "No CUDA GPUs are available")
    return _device_count


def current_device() -> int:
    return getattr(_tls, "device", 0)


def check_device_index(index: int) -> None:
    """cudaSetDevice / cudaGetDeviceProperties on a bad ordinal: cudaErrorInvalidDevice."""
    device_count_ensure_non_zero()
    TORCH_CHECK(
        0 <= index < _device_count,
        "CUDA error: invalid device ordinal\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so "
        "the stacktrace below might be incorrect.\nFor debugging consider passing "
        "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
        "assertions.\n",
    )


@traced("allocator", "c10::cuda::set_device", SOURCE, legacy="cudaSetDevice")
def set_device(index: int) -> None:
    check_device_index(index)
    _tls.device = index


def ExchangeDevice(index: int) -> int:
    """Make `index` current and return the previous device (c10::cuda::ExchangeDevice)."""
    previous = current_device()
    if index != previous:
        set_device(index)
    return previous


@traced("kernel", "c10::cuda::device_synchronize", SOURCE, legacy="cudaDeviceSynchronize")
def device_synchronize() -> None:
    """cudaDeviceSynchronize: the emulated kernels ran synchronously, so nothing is pending."""
    device_count_ensure_non_zero()


class CUDAGuard:
    """`with CUDAGuard(i):` runs the block with device i current, then restores the old one."""

    __slots__ = ("index", "original")

    def __init__(self, index: int | None) -> None:
        self.index = index
        self.original = -1

    def __enter__(self) -> CUDAGuard:
        if self.index is not None and self.index >= 0:
            self.original = ExchangeDevice(self.index)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.original >= 0:
            ExchangeDevice(self.original)
