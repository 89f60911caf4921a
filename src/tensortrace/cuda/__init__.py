"""torch.cuda for the emulated CUDA device (Note [The emulated CUDA device] in
c10/cuda/cuda_functions.py).

Mirrors `torch/cuda/__init__.py` (is_available, device_count, current_device, set_device, the
`device` context manager, get_device_name, get_device_properties, synchronize), `torch/cuda/
streams.py` (Stream, Event), `torch/cuda/random.py` (manual_seed, manual_seed_all) and re-exports
the caching allocator's API of `torch/cuda/memory.py`.

`torch.cuda.is_available()` is True (when TENSORTRACE_CUDA_DEVICES is not 0): the device is
emulated, and the point of it is to be watched, so a program that picks
`"cuda" if torch.cuda.is_available() else "cpu"` runs on the emulated device, through the CUDA
dispatch key, the CUDA kernels and the caching allocator, and computes the same values as on the
CPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tensortrace.aten.cuda.cuda_generator_impl import (
    all_default_cuda_generators,
    getDefaultCUDAGenerator,
)
from tensortrace.c10.cuda import cuda_functions as _functions
from tensortrace.c10.cuda import cuda_stream as _streams
from tensortrace.c10.cuda.cuda_caching_allocator import allocator as _allocator
from tensortrace.c10.cuda.cuda_caching_allocator import cudaMemGetInfo
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK, OutOfMemoryError
from tensortrace.csrc.dtype import contiguous_format
from tensortrace.csrc.generator import Generator
from tensortrace.cuda import amp, memory
from tensortrace.cuda.memory import (
    caching_allocator_alloc,
    caching_allocator_delete,
    empty_cache,
    get_allocator_backend,
    get_per_process_memory_fraction,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)

DEVICE_NAME = "tensortrace emulated CUDA device"


def _get_device_index(device: Any, optional: bool = True) -> int:
    return memory._get_device_index(device, optional)


def is_available() -> bool:
    """True: the emulated device is always there (unless TENSORTRACE_CUDA_DEVICES=0)."""
    return _functions.device_count() > 0


_initialized = True  # torch.cuda._initialized: the emulated device needs no lazy init


def is_initialized() -> bool:
    return _initialized


def init() -> None:
    _functions.device_count_ensure_non_zero()


def device_count() -> int:
    return _functions.device_count()


def current_device() -> int:
    return _functions.current_device()


def set_device(device: Any) -> None:
    index = _get_device_index(device)
    if index >= 0:
        _functions.set_device(index)


def synchronize(device: Any = None) -> None:
    """cudaDeviceSynchronize on `device`: the emulated kernels have all finished already."""
    with _functions.CUDAGuard(_get_device_index(device)):
        _functions.device_synchronize()


def get_device_name(device: Any = None) -> str:
    return get_device_properties(device).name


def get_device_capability(device: Any = None) -> tuple[int, int]:
    prop = get_device_properties(device)
    return prop.major, prop.minor


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current device computes in bfloat16: compute capability 8.0 (Ampere) and
    up, or, `including_emulation`, any device (torch/cuda/__init__.py)."""
    if not is_available():
        return False
    if get_device_properties(current_device()).major >= 8:
        return True
    return including_emulation


@dataclass(frozen=True)
class _CudaDeviceProperties:
    """torch.cuda.get_device_properties(): total_memory is the emulated capacity."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    is_integrated: int = 0
    is_multi_gpu_board: int = 0

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
            f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    index = _get_device_index(device)
    _functions.check_device_index(index)
    _, total = cudaMemGetInfo(index)
    # compute capability 8.0 (an A100's): what the emulated kernels would be compiled for
    return _CudaDeviceProperties(DEVICE_NAME, 8, 0, total, 1)


class device:  # torch.cuda.device
    """`with torch.cuda.device(1):` makes device 1 current inside the block."""

    def __init__(self, device: Any) -> None:
        self.idx = _get_device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self) -> None:
        self.prev_idx = _functions.ExchangeDevice(self.idx) if self.idx >= 0 else -1

    def __exit__(self, *exc: object) -> None:
        if self.prev_idx >= 0:
            _functions.ExchangeDevice(self.prev_idx)


class device_of(device):
    """`with torch.cuda.device_of(t):` the device of tensor `t` (no-op for a CPU tensor)."""

    def __init__(self, obj: Any) -> None:
        super().__init__(obj.get_device() if obj.is_cuda else -1)


# ---- streams -------------------------------------------------------------------------------------
class Stream:
    """torch.cuda.Stream: a queue of work on a device. Blocks remember their stream."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        index = _get_device_index(device)
        self._cdata: _streams.CUDAStream = kwargs.get("_cdata") or _streams.getStreamFromPool(
            priority, index
        )

    @classmethod
    def _wrap(cls, cdata: _streams.CUDAStream) -> Stream:
        return cls(_cdata=cdata, device=cdata.device_index)

    @property
    def device(self) -> Device:
        return self._cdata.device()

    @property
    def stream_id(self) -> int:
        return self._cdata.stream_id

    @property
    def cuda_stream(self) -> int:
        return self._cdata.stream_id

    @property
    def priority(self) -> int:
        return self._cdata.priority

    def query(self) -> bool:
        return self._cdata.query()

    def synchronize(self) -> None:
        self._cdata.synchronize()

    def wait_stream(self, stream: Stream) -> None:
        """The work queued on `stream` is done before later work on self (here, always)."""

    def wait_event(self, event: Event) -> None:
        event.wait(self)

    def record_event(self, event: Event | None = None) -> Event:
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and self._cdata == other._cdata

    def __hash__(self) -> int:
        return hash(self._cdata)

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class Event:
    """torch.cuda.Event: a marker in a stream; the emulated device reaches it at once."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self.enable_timing = enable_timing
        self._recorded = False

    def record(self, stream: Stream | None = None) -> None:
        self._recorded = True

    def wait(self, stream: Stream | None = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end_event: Event) -> float:
        TORCH_CHECK(
            self.enable_timing and end_event.enable_timing,
            "Both events must be created with argument 'enable_timing=True'.",
        )
        return 0.0


def current_stream(device: Any = None) -> Stream:
    return Stream._wrap(_streams.getCurrentCUDAStream(_get_device_index(device)))


def default_stream(device: Any = None) -> Stream:
    return Stream._wrap(_streams.getDefaultCUDAStream(_get_device_index(device)))


def set_stream(stream: Stream) -> None:
    if stream is not None:
        _streams.setCurrentCUDAStream(stream._cdata)


@contextmanager
def stream(stream: Stream | None) -> Iterator[None]:
    """`with torch.cuda.stream(s):` work and allocations inside go to stream s."""
    if stream is None:
        yield
        return
    previous = _streams.getCurrentCUDAStream(stream._cdata.device_index)
    _streams.setCurrentCUDAStream(stream._cdata)
    try:
        yield
    finally:
        _streams.setCurrentCUDAStream(previous)


# ---- random --------------------------------------------------------------------------------------
def manual_seed(seed: int) -> None:
    """Seed the current device's generator (Note [The emulated CUDA generator])."""
    getDefaultCUDAGenerator(current_device()).set_current_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    for gen in all_default_cuda_generators():
        gen.set_current_seed(int(seed))


def seed() -> None:
    getDefaultCUDAGenerator(current_device()).seed()


def seed_all() -> None:
    for gen in all_default_cuda_generators():
        gen.seed()


def initial_seed() -> int:
    return getDefaultCUDAGenerator(current_device()).current_seed()


def _rng_device_index(device: Any) -> int:
    if isinstance(device, str):
        device = Device(device)
    elif isinstance(device, int):
        device = Device("cuda", device)
    index = device.index
    return current_device() if index is None else index


def get_rng_state(device: Any = "cuda") -> Any:
    """The device's generator state, as a uint8 tensor (torch/cuda/random.py)."""
    return Generator._wrap(getDefaultCUDAGenerator(_rng_device_index(device))).get_state()


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    new_state_copy = new_state.clone(memory_format=contiguous_format)
    Generator._wrap(getDefaultCUDAGenerator(_rng_device_index(device))).set_state(new_state_copy)


def _record_stream(tensor: Any, stream: Stream) -> None:
    """Tensor.record_stream(stream): the caching allocator keeps the tensor's block from being
    reused by another stream until the work queued on `stream` is done."""
    data_ptr = tensor.cdata.storage().unsafeGetStorageImpl().data_ptr()
    _allocator.recordStream(data_ptr, stream.stream_id)


__all__ = [
    "Event",
    "OutOfMemoryError",
    "Stream",
    "amp",
    "caching_allocator_alloc",
    "caching_allocator_delete",
    "current_device",
    "current_stream",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_allocator_backend",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_per_process_memory_fraction",
    "init",
    "get_rng_state",
    "initial_seed",
    "set_rng_state",
    "is_bf16_supported",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory",
    "memory_allocated",
    "memory_reserved",
    "memory_snapshot",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_summary",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_per_process_memory_fraction",
    "set_stream",
    "stream",
    "synchronize",
]
