"""The global nn.Module hooks: registered once, run for every Module.

Mirrors the module-level half of `torch/nn/modules/module.py`: the `_global_*` dicts and
register_module_forward_pre_hook / forward_hook / backward_hook / full_backward_pre_hook /
full_backward_hook and the buffer / module / parameter registration hooks. Module._call_impl
(module_hooks.py) runs the global hooks before the module's own; register_buffer /
register_parameter / add_module and __setattr__ (module.py) run the registration hooks, each of
which may return a replacement value. `_global_is_full_backward_hook` is rebound here, so
readers look it up through this module, never by a `from` import.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tensortrace.autograd.function import RemovableHandle

__all__ = [
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_global_buffer_registration_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable[..., Any]] = OrderedDict()

_global_backward_pre_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_backward_hooks: dict[int, Callable[..., Any]] = OrderedDict()
# None until a global backward hook is registered; then whether they are full hooks
_global_is_full_backward_hook: bool | None = None
_global_forward_pre_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks: dict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()

_MIXED_GLOBAL_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks as a "
    "global Module hook. Please use only one of them."
)


def _has_any_global_hook() -> bool:
    return bool(
        _global_backward_pre_hooks
        or _global_backward_hooks
        or _global_forward_pre_hooks
        or _global_forward_hooks
        or _global_forward_hooks_always_called
        or _global_forward_hooks_with_kwargs
    )


def _run_registration_hooks(
    hooks: dict[int, Callable[..., Any]], module: Any, name: str, value: Any
) -> Any:
    """Each hook(module, name, value) may return the value to register instead."""
    for hook in hooks.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def register_module_buffer_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, name, buffer) -> None or a new buffer, on every register_buffer."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, name, submodule) -> None or a new submodule, on every add_module."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, name, param) -> None or a new parameter, on every register_parameter."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, args) -> None or new args, before every Module's forward."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(
    hook: Callable[..., Any], *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """hook(module, args, output) -> None or a new output, after every Module's forward."""
    # as torch's: remove() does not clear the with_kwargs entry
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """The deprecated global backward hook, on the grad_fn of every Module's output."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError(_MIXED_GLOBAL_BACKWARD_HOOKS)
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, grad_output) -> None or a new grad_output, for every Module."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """hook(module, grad_input, grad_output) -> None or a new grad_input, for every Module."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError(_MIXED_GLOBAL_BACKWARD_HOOKS)
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle
