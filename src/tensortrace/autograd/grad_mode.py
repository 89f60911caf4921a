"""Grad modes: whether autograd records, as a thread-local flag, and the guards that set it.

Mirrors `c10/core/GradMode.h` (GradMode, AutoGradMode), `c10/core/InferenceMode.h` and
`torch/autograd/grad_mode.py` (no_grad, enable_grad, set_grad_enabled, inference_mode: context
managers that are also decorators, like torch's `_DecoratorContextManager`).

Note [Grad mode is thread-local]
GradMode lives in thread-local state (AutogradState), so `with torch.no_grad():` in one thread
does not stop another thread from recording. `_state` is a threading.local with the two flags.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.dispatch_key import autograd_dispatch_keyset
from tensortrace.c10.local_dispatch_key_set import tls_local_dispatch_key_set

F = TypeVar("F", bound=Callable[..., Any])


_state = autograd_state  # c10::AutogradState: the per-thread grad and inference mode flags


def is_grad_enabled() -> bool:
    """GradMode::is_enabled()."""
    return _state.grad_mode


def _set_grad_enabled(mode: bool) -> None:
    """GradMode::set_enabled()."""
    _state.grad_mode = bool(mode)


def is_inference_mode_enabled() -> bool:
    """InferenceMode::is_enabled()."""
    return _state.inference_mode


class _DecoratorContextManager:
    """A context manager that also decorates functions (torch.utils._contextlib)."""

    def __call__(self, fn: F) -> F:
        if inspect.isclass(fn):
            raise RuntimeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(fn):
            raise NotImplementedError("decorating generator functions is not modelled")
        ctx_factory = self.clone

        @functools.wraps(fn)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with ctx_factory():
                return fn(*args, **kwargs)

        return decorated  # type: ignore[return-value]

    def clone(self) -> _DecoratorContextManager:
        return type(self)()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc: Any) -> None:
        raise NotImplementedError


class no_grad(_DecoratorContextManager):
    """Disable gradient recording in the block (AutoGradMode(false))."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _state.grad_mode
        _state.grad_mode = False

    def __exit__(self, *exc: Any) -> None:
        _state.grad_mode = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording in the block, also inside no_grad (AutoGradMode(true))."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _state.grad_mode
        _state.grad_mode = True

    def __exit__(self, *exc: Any) -> None:
        _state.grad_mode = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to `mode`: at once when called, and back to the old mode on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _state.grad_mode
        self.mode = bool(mode)
        _state.grad_mode = self.mode  # torch sets it in __init__: usable as a plain function

    def __call__(self, fn: F) -> F:
        _state.grad_mode = self.prev  # used as a decorator: the call only applies inside fn
        return super().__call__(fn)

    def __enter__(self) -> None:
        _state.grad_mode = self.mode

    def __exit__(self, *exc: Any) -> None:
        _state.grad_mode = self.prev

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)


class inference_mode(_DecoratorContextManager):
    """InferenceMode: no grad recording, no version counters; tensors made in it are
    inference tensors (c10/core/InferenceMode.h)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self.prev: tuple[bool, bool] = (True, False)
        self.prev_excluded: Any = None

    def __new__(cls, mode: Any = True) -> Any:
        # torch allows `@torch.inference_mode` without parentheses
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __enter__(self) -> None:
        self.prev = (_state.grad_mode, _state.inference_mode)
        tls = tls_local_dispatch_key_set()
        self.prev_excluded = tls.excluded_
        if self.mode:
            _state.grad_mode = False
            # the autograd kernels are skipped altogether inside inference mode
            tls.excluded_ = tls.excluded_ | autograd_dispatch_keyset
        else:
            tls.excluded_ = tls.excluded_ - autograd_dispatch_keyset
        _state.inference_mode = self.mode

    def __exit__(self, *exc: Any) -> None:
        _state.grad_mode, _state.inference_mode = self.prev
        tls_local_dispatch_key_set().excluded_ = self.prev_excluded

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)
