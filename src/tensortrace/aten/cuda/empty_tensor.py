"""at::detail::empty_cuda and empty_strided_cuda: a tensor whose memory comes from the CUDA
caching allocator of the tensor's device.

Mirrors `aten/src/ATen/cuda/EmptyTensor.cpp`: lazy-initialize the device, put a DeviceGuard on
it (the caching allocator serves the current device), then `empty_generic` with the CUDA
allocator and the CUDA dispatch key, exactly as empty_cpu does with the CPU ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten.empty_tensor import (
    empty_cpu,
    empty_generic,
    empty_meta,
    empty_strided_generic,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.allocator import Allocator, GetAllocator
from tensortrace.c10.cuda import cuda_stream  # noqa: F401 - the allocator's device and stream hooks
from tensortrace.c10.cuda.cuda_functions import (
    CUDAGuard,
    check_device_index,
    current_device,
)
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.device import Device, DeviceType
from tensortrace.c10.dispatch_key import DispatchKey, DispatchKeySet
from tensortrace.c10.exception import TORCH_CHECK, TORCH_INTERNAL_ASSERT
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/cuda/EmptyTensor.cpp"
CUDA_KS = DispatchKeySet(DispatchKey.CUDA)


def device_or_default(device: Device | None) -> Device:
    """A cuda device with its index: `cuda` alone means the current device."""
    if device is None or device.index is None:
        return Device(DeviceType.CUDA, current_device())
    return device


@traced(
    "allocator",
    "at::cuda::getCUDADeviceAllocator",
    "aten/src/ATen/cuda/CUDAContextLight.h",
    symbol="c10::cuda::CUDACachingAllocator::get",
)
def getCUDADeviceAllocator() -> Allocator:
    return GetAllocator(DeviceType.CUDA)


def _prepare(device: Device | None, pin_memory: bool | None) -> Device:
    device = device_or_default(device)
    TORCH_INTERNAL_ASSERT(device.is_cuda(), "empty_cuda: expected a CUDA device, got ", device)
    TORCH_CHECK(not pin_memory, "Only dense CPU tensors can be pinned")
    check_device_index(device.index)  # type: ignore[arg-type]  # lazyInitDevice(CUDA)
    return device


@traced("native", "at::detail::empty_cuda", SOURCE)
def empty_cuda(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    device = _prepare(device, pin_memory)
    with CUDAGuard(device.index):
        return empty_generic(
            size,
            getCUDADeviceAllocator(),
            CUDA_KS,
            dtype if dtype is not None else get_default_dtype(),
        )


@traced("native", "at::detail::empty_strided_cuda", SOURCE)
def empty_strided_cuda(
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    device = _prepare(device, pin_memory)
    with CUDAGuard(device.index):
        return empty_strided_generic(
            size,
            stride,
            getCUDADeviceAllocator(),
            CUDA_KS,
            dtype if dtype is not None else get_default_dtype(),
        )


def empty_structured_output(
    size: Sequence[int], dtype: ScalarType | None, device: Device | None
) -> Tensor:
    """A structured kernel's output made by its set_output, on the device of the kernel's key:
    RegisterCPU.cpp's create_out calls at::detail::empty_cpu, RegisterCUDA.cpp's
    at::detail::empty_cuda, RegisterMeta.cpp's at::detail::empty_meta (a kernel registered for
    several keys reaches the right one)."""
    if device is not None and device.type_ == DeviceType.CUDA:
        return empty_cuda(size, dtype, device)
    if device is not None and device.type_ == DeviceType.Meta:
        return empty_meta(size, dtype, device)
    return empty_cpu(size, dtype, device)
