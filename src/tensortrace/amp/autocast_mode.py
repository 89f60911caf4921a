"""torch.autocast: a context manager (or decorator) that runs a region in mixed precision.

Mirrors `torch/amp/autocast_mode.py`. Entering sets the thread's autocast state for the device
(torch.set_autocast_enabled puts the device's autocast key in the local dispatch key set, Note
[Autocast keys in the local include set] in c10/dispatch_key.py), its dtype and the cache flag;
leaving restores them, and the outermost exit clears the cache of cast weights. The casting
itself is done by the AutocastCPU / AutocastCUDA kernels (aten/autocast_mode.py).
"""

from __future__ import annotations

import collections.abc
import functools
import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

import tensortrace as torch
from tensortrace.csrc import autocast_mode as _autocast_bindings
from tensortrace.csrc.dtype import dtype as _dtype

__all__ = [
    "autocast_decorator",
    "autocast",
    "is_autocast_available",
    "custom_fwd",
    "custom_bwd",
]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast is available on `device_type` ('cpu', 'cuda')."""
    return _autocast_bindings._is_autocast_available(device_type)


def autocast_decorator(autocast_instance: autocast, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


class autocast:
    """Run a region in mixed precision: each op in the op-specific dtype autocast chooses
    (lower precision for matmuls and convolutions, float32 for reductions and losses, the
    widest input dtype for ops that mix them). `dtype` defaults to
    torch.get_autocast_dtype(device_type): bfloat16 on the CPU, float16 on CUDA."""

    def __init__(
        self,
        device_type: str,
        dtype: _dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = torch.get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{self.device}'"
            )
        device_supported_dtypes = [torch.bfloat16, torch.float16]
        self._cache_enabled = (
            torch.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        device_name = self.device.upper()
        if enabled:
            if self.device == "cuda":
                if torch.cuda.amp.common.amp_definitely_not_available():
                    warnings.warn(
                        "CUDA is not available or torch_xla is imported. Disabling autocast.",
                        stacklevel=2,
                    )
                    enabled = False
                elif self.fast_dtype == torch.bfloat16 and not torch.cuda.is_bf16_supported():
                    raise RuntimeError(
                        "Current CUDA Device does not support bfloat16. Please switch dtype to "
                        "float16."
                    )
            elif self.fast_dtype not in device_supported_dtypes:
                error_message = (
                    f"In {device_name} autocast, but the target dtype is not supported. "
                    "Disabling autocast.\n"
                    f"{device_name} Autocast only supports dtypes of "
                    + ", ".join(map(str, device_supported_dtypes))
                    + " currently."
                )
                warnings.warn(error_message, stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = torch.is_autocast_cache_enabled()
        self.prev = torch.is_autocast_enabled(self.device)
        self.prev_fastdtype = torch.get_autocast_dtype(self.device)
        torch.set_autocast_enabled(self.device, self._enabled)
        torch.set_autocast_dtype(self.device, self.fast_dtype)
        torch.autocast_increment_nesting()
        torch.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> Literal[False]:
        # Drop the cache when we exit to a nesting level that's outside any instance of autocast
        if torch.autocast_decrement_nesting() == 0:
            torch.clear_autocast_cache()
        torch.set_autocast_enabled(self.device, self.prev)
        torch.set_autocast_dtype(self.device, self.prev_fastdtype)
        torch.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)"
            )
        return autocast_decorator(self, func)


class _UnmanagedAutocast(autocast):
    pass


def _enter_autocast(*vals: Any) -> autocast:
    mode = _UnmanagedAutocast(*vals)
    mode.__enter__()
    return mode


def _exit_autocast(mode: autocast) -> None:
    mode.__exit__(None, None, None)


def _cast(value: Any, device_type: str, dtype: _dtype) -> Any:
    """Cast the floating tensors (not float64) of `device_type` in a nested structure."""
    if isinstance(value, torch.Tensor):
        is_eligible = (
            value.is_floating_point()
            and value.device.type == device_type
            and (value.dtype is not torch.float64)
        )
        return value.to(dtype) if is_eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {
            _cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()
        }
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        if isinstance(value, (list, tuple)):
            return type(value)(iterable)
        return iterable
    return value


def custom_fwd(
    fwd: Callable[..., Any] | None = None,
    *,
    device_type: str,
    cast_inputs: _dtype | None = None,
) -> Any:
    """Decorate a custom autograd Function's forward: with `cast_inputs`, inside an autocast
    region, its floating inputs are cast to that dtype and it runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    forward = fwd

    @functools.wraps(forward)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        args[0]._dtype = torch.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = torch.is_autocast_enabled(device_type)
            return forward(*args, **kwargs)
        autocast_context = torch.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return forward(
                    *_cast(args, device_type, cast_inputs),
                    **_cast(kwargs, device_type, cast_inputs),
                )
        return forward(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """Decorate a custom autograd Function's backward: it runs with forward's autocast state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    backward = bwd

    @functools.wraps(backward)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        with autocast(
            device_type=device_type,
            enabled=args[0]._fwd_used_autocast,
            dtype=args[0]._dtype,
        ):
            return backward(*args, **kwargs)

    return decorate_bwd
