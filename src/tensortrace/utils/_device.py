"""DeviceContext: the mode that gives the factories a default device.

Mirrors `torch/utils/_device.py`. torch.set_default_device and `with torch.device(...)` put a
DeviceContext on the torch-function mode stack (aten/python_torch_function_tls.py); the
factories of _device_constructors() call its __torch_function__, which fills `device=` when the
call left it None (Note [The default device at the binding layer] in
csrc/python_torch_function_mode.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import tensortrace as torch
from tensortrace.aten.python_torch_function_tls import pop_stack as _pop_mode
from tensortrace.aten.python_torch_function_tls import push_onto_stack as _push_mode
from tensortrace.aten.python_torch_function_tls import stack_len as _len_torch_function_stack
from tensortrace.csrc.python_torch_function_mode import DEVICE_CONSTRUCTORS

CURRENT_DEVICE: torch.device | None = None


@functools.lru_cache(1)
def _device_constructors() -> frozenset[Callable[..., Any]]:
    # torch's set, of the factories this runtime has (the names are csrc's DEVICE_CONSTRUCTORS,
    # whose bindings call the mode); *_like are left out, as in torch: they follow their input
    return frozenset(
        getattr(torch.fft, name.removeprefix("fft_"))
        if name.startswith("fft_")
        else getattr(torch, name)
        for name in DEVICE_CONSTRUCTORS
    )


class DeviceContext:
    """A TorchFunctionMode in torch; here the one kind of mode there is."""

    def __init__(self, device: Any) -> None:
        self.device = torch.device(device) if not isinstance(device, torch.device) else device
        self.prev_mode: DeviceContext | None = None

    def __enter__(self) -> None:
        global CURRENT_DEVICE
        self.old_device = CURRENT_DEVICE
        CURRENT_DEVICE = self.device
        # the default device's mode goes to the bottom of the stack, so that leaving a mode
        # entered before it does not pop it
        cur_stack = [_pop_mode() for _ in range(_len_torch_function_stack())]

        _push_mode(self)

        for mode in reversed(cur_stack):
            if isinstance(mode, DeviceContext):
                self.prev_mode = mode
            else:
                _push_mode(mode)

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        global CURRENT_DEVICE
        CURRENT_DEVICE = self.old_device
        cur_stack = []
        # Invariant: one DeviceContext on the stack at most, at the bottom
        for _ in range(_len_torch_function_stack() - 1):
            mode = _pop_mode()
            if isinstance(mode, DeviceContext):
                raise AssertionError(
                    "Found nested DeviceContext on the mode stack where none expected"
                )
            cur_stack.append(mode)

        if _len_torch_function_stack() > 0:
            mode = _pop_mode()
            if not isinstance(mode, DeviceContext):
                raise AssertionError("Expected a DeviceContext at the bottom of the mode stack")
        if self.prev_mode is not None:
            _push_mode(self.prev_mode)

        for mode in reversed(cur_stack):
            _push_mode(mode)

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        if func in _device_constructors() and kwargs.get("device") is None:
            kwargs["device"] = self.device
        return func(*args, **kwargs)


def context_decorator(ctx: Callable[[], Any], func: Callable[..., Any]) -> Callable[..., Any]:
    """torch/utils/_contextlib.py's context_decorator, for a plain function: each call runs
    inside a fresh `with ctx():`."""

    @functools.wraps(func)
    def decorate_context(*args: Any, **kwargs: Any) -> Any:
        with ctx():
            return func(*args, **kwargs)

    return decorate_context


def device_decorator(device: torch.device, func: Callable[..., Any]) -> Callable[..., Any]:
    return context_decorator(lambda: device, func)


def set_device(device: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """
    Set the default device inside of the wrapped function by decorating it with this function.

    If you would like to use this as a context manager, use device as a
    context manager directly, e.g., ``with torch.device(device)``.
    """
    return lambda func: device_decorator(torch.device(device), func)
