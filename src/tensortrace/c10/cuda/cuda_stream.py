"""CUDA streams of the emulated device: the default stream, created streams, the current one.

Mirrors `c10/cuda/CUDAStream.h` / `CUDAStream.cpp` (CUDAStream, getDefaultCUDAStream,
getStreamFromPool, getCurrentCUDAStream, setCurrentCUDAStream). The emulated kernels run
synchronously, so a stream is an identity that work and memory blocks are tagged with: the
caching allocator keeps a block on the stream it was allocated on and, after record_stream,
does not reuse it for another stream until that stream's work is done (which is at once here).
Stream id 0 is the default (legacy null) stream, as in c10.
"""

from __future__ import annotations

import itertools
import threading

from tensortrace.c10.cuda import cuda_caching_allocator
from tensortrace.c10.cuda.cuda_functions import check_device_index, current_device, device_count
from tensortrace.c10.device import Device, DeviceType

_next_id = itertools.count(1)
_tls = threading.local()


class CUDAStream:
    __slots__ = ("device_index", "stream_id", "priority")

    def __init__(self, device_index: int, stream_id: int, priority: int = 0) -> None:
        self.device_index = device_index
        self.stream_id = stream_id
        self.priority = priority

    def id(self) -> int:
        return self.stream_id

    def device(self) -> Device:
        return Device(DeviceType.CUDA, self.device_index)

    def query(self) -> bool:
        return True  # every emulated kernel has finished when its call returns

    def synchronize(self) -> None:
        """cudaStreamSynchronize: nothing is pending on an emulated stream."""

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, CUDAStream)
            and self.device_index == other.device_index
            and self.stream_id == other.stream_id
        )

    def __hash__(self) -> int:
        return hash((self.device_index, self.stream_id))

    def __repr__(self) -> str:
        return f"stream {self.stream_id} on device cuda:{self.device_index}"


def getDefaultCUDAStream(device_index: int = -1) -> CUDAStream:
    index = current_device() if device_index < 0 else device_index
    check_device_index(index)
    return CUDAStream(index, 0)


def getStreamFromPool(priority: int = 0, device_index: int = -1) -> CUDAStream:
    index = current_device() if device_index < 0 else device_index
    check_device_index(index)
    return CUDAStream(index, next(_next_id), priority)


def _current_streams() -> dict[int, CUDAStream]:
    streams = getattr(_tls, "streams", None)
    if streams is None:
        streams = _tls.streams = {}
    return streams


def getCurrentCUDAStream(device_index: int = -1) -> CUDAStream:
    index = current_device() if device_index < 0 else device_index
    return _current_streams().get(index) or getDefaultCUDAStream(index)


def setCurrentCUDAStream(stream: CUDAStream) -> None:
    _current_streams()[stream.device_index] = stream


def _install_allocator_hooks() -> None:
    """The caching allocator serves the current device and stream (c10::cuda::current_device(),
    getCurrentCUDAStream()): give it this runtime's answers."""
    alloc = cuda_caching_allocator.allocator
    alloc.current_device = current_device
    alloc.current_stream = lambda device: getCurrentCUDAStream(device).stream_id
    alloc.device_count = device_count


_install_allocator_hooks()
