"""torch.is_autocast_enabled, torch.get_autocast_dtype and the other autocast state functions.

Mirrors the autocast part of `torch/csrc/autograd/init.cpp` (is_autocast_enabled,
set_autocast_enabled, get_autocast_dtype, set_autocast_dtype, is_autocast_available,
clear_autocast_cache, autocast_increment_nesting, ...): each parses its device string as
`at::Device(device_type).type()` does and calls at::autocast (aten/autocast_mode.py).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import autocast_mode as at_autocast
from tensortrace.c10.device import Device
from tensortrace.csrc.dtype import dtype, get_dtype, to_scalar_type


def _device_type(fname: str, device_type: Any, position: int = 1) -> str:
    if not isinstance(device_type, str):
        raise TypeError(
            f"{fname}(): argument 'device_type' (position {position}) must be str, not "
            f"{type(device_type).__name__}"
        )
    return Device(device_type).type


def _autocast_device(fname: str, device_type: Any) -> str:
    kind = _device_type(fname, device_type)
    if not at_autocast.is_autocast_available(kind):
        # a device type torch autocasts on but this runtime does not have (xpu, mps, hpu ...)
        raise RuntimeError(
            "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
        )
    return kind


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """is_autocast_enabled(str device_type), or without it, CUDA's."""
    kind = _device_type("is_autocast_enabled", device_type)
    # a device type this runtime has no autocast key for never autocasts
    return at_autocast.is_autocast_available(kind) and at_autocast.is_autocast_enabled(kind)


def set_autocast_enabled(device_type: Any, enabled: Any = None) -> None:
    """set_autocast_enabled(str device_type, bool enabled), or (bool enabled) for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    if not isinstance(enabled, bool):
        raise TypeError(
            "set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
            f"{type(enabled).__name__}"
        )
    kind = _autocast_device("set_autocast_enabled", device_type)
    at_autocast.set_autocast_enabled(kind, enabled)


def get_autocast_dtype(device_type: str) -> dtype:
    kind = _autocast_device("get_autocast_dtype", device_type)
    return get_dtype(at_autocast.get_autocast_dtype(kind))


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    kind = _autocast_device("set_autocast_dtype", device_type)
    at_autocast.set_autocast_dtype(kind, to_scalar_type(dtype))


def _is_autocast_available(device_type: str) -> bool:
    return at_autocast.is_autocast_available(_device_type("_is_autocast_available", device_type))


def is_autocast_cache_enabled() -> bool:
    return at_autocast.is_autocast_cache_enabled()


def set_autocast_cache_enabled(enabled: bool) -> None:
    at_autocast.set_autocast_cache_enabled(bool(enabled))


def clear_autocast_cache() -> None:
    at_autocast.clear_cache()


def autocast_increment_nesting() -> int:
    return at_autocast.increment_nesting()


def autocast_decrement_nesting() -> int:
    return at_autocast.decrement_nesting()
