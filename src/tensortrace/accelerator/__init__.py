"""torch.accelerator: the device-agnostic API tutorials start with (`device =
torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"`).

Mirrors `torch/accelerator/__init__.py`, `_utils.py` and `memory.py`, which delegate to the
accelerator the build has (`at::getAccelerator`, aten/device_accelerator.py): here the emulated
CUDA device (tensortrace.cuda), present unless TENSORTRACE_CUDA_DEVICES=0.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from tensortrace.aten.device_accelerator import getAccelerator
from tensortrace.c10.device import Device

__all__ = [
    "current_accelerator",
    "current_device_idx",  # deprecated
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",  # deprecated
    "set_device_index",
    "set_stream",
    "synchronize",
]


def _cuda() -> Any:
    # torch.get_device_module(acc): the accelerator's own module, imported on first use
    from tensortrace import cuda

    return cuda


def current_accelerator(check_available: bool = False) -> Device | None:
    """The accelerator's device type as a device with no index (`device(type='cuda')`)."""
    acc = getAccelerator()
    if acc is not None and (not check_available or is_available()):
        return Device(acc)
    return None


def device_count() -> int:
    return _cuda().device_count() if current_accelerator() is not None else 0


def is_available() -> bool:
    return current_accelerator() is not None and bool(_cuda().is_available())


def current_device_index() -> int:
    getAccelerator(checked=True)  # torch's error where there is none
    return _cuda().current_device()  # type: ignore[no-any-return]


def _get_device_index(device: Any, optional: bool = False) -> int:
    """torch/accelerator/_utils.py: an int as it is; a device of the accelerator's type."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = Device(device)
    device_index: int | None = None
    if isinstance(device, Device):
        acc = current_accelerator()
        if acc is None:
            raise RuntimeError("Accelerator expected")
        if acc.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator {acc}.")
        device_index = device.index
    if device_index is None:
        if not optional:
            raise ValueError(
                f"Expected a torch.device with a specified index or an integer, but got:{device}"
            )
        return current_device_index()
    return device_index


def set_device_index(device: Any, /) -> None:
    """Make `device` the current device; a negative index is a no-op."""
    index = _get_device_index(device, optional=False)
    if index >= 0:
        _cuda().set_device(index)


def current_device_idx() -> int:
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device: Any, /) -> None:
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def current_stream(device: Any = None, /) -> Any:
    return _cuda().current_stream(_get_device_index(device, optional=True))


def set_stream(stream: Any) -> None:
    _cuda().set_stream(stream)


def synchronize(device: Any = None, /) -> None:
    """Wait for the device's kernels (the emulated kernels have all finished already)."""
    _cuda().synchronize(_get_device_index(device, optional=True))


class device_index:  # noqa: N801 - torch's name
    """`with torch.accelerator.device_index(1):` makes device 1 current inside the block."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc_info: object) -> None:
        if self.idx is not None:
            set_device_index(self.prev_idx)


# ---- torch/accelerator/memory.py: the caching allocator's statistics, by device index ----------
def empty_cache() -> None:
    getAccelerator(checked=True)
    _cuda().empty_cache()


def memory_stats(device_index: Any = None, /) -> OrderedDict[str, Any]:
    index = _get_device_index(device_index, optional=True)
    return OrderedDict(_cuda().memory_stats(index))


def memory_allocated(device_index: Any = None, /) -> int:
    return int(memory_stats(device_index).get("allocated_bytes.all.current", 0))


def max_memory_allocated(device_index: Any = None, /) -> int:
    return int(memory_stats(device_index).get("allocated_bytes.all.peak", 0))


def memory_reserved(device_index: Any = None, /) -> int:
    return int(memory_stats(device_index).get("reserved_bytes.all.current", 0))


def max_memory_reserved(device_index: Any = None, /) -> int:
    return int(memory_stats(device_index).get("reserved_bytes.all.peak", 0))


def reset_accumulated_memory_stats(device_index: Any = None, /) -> None:
    _cuda().reset_accumulated_memory_stats(_get_device_index(device_index, optional=True))


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    _cuda().reset_peak_memory_stats(_get_device_index(device_index, optional=True))
