"""The thread-local stack of torch-function modes.

Mirrors `aten/src/ATen/PythonTorchFunctionTLS.cpp` (at::impl::PythonTorchFunctionTLS:
push_onto_stack, pop_stack, stack_len, get_stack_at), which torch.overrides' _push_mode /
_pop_mode and torch._C._len_torch_function_stack reach. Only DeviceContexts
(tensortrace/utils/_device.py) go on it here: Note [The default device at the binding layer]
in csrc/python_torch_function_mode.py.
"""

from __future__ import annotations

import threading
from typing import Any


class _PythonTorchFunctionTLS(threading.local):
    def __init__(self) -> None:
        self.stack_: list[Any] = []


# the bindings of the factories read `.stack_` themselves: torch_function_mode_enabled() is an
# inline TLS read in C++, not a call
PYTHON_TORCH_FUNCTION_TLS = _PythonTorchFunctionTLS()
_tls = PYTHON_TORCH_FUNCTION_TLS


def push_onto_stack(mode: Any) -> None:
    _tls.stack_.append(mode)


def pop_stack() -> Any:
    stack = _tls.stack_
    if not stack:  # TORCH_CHECK in PythonTorchFunctionTLS::pop_stack
        raise RuntimeError("trying to pop from empty mode stack")
    return stack.pop()


def stack_len() -> int:
    return len(_tls.stack_)


def get_stack_at(idx: int) -> Any:
    stack = _tls.stack_
    if idx >= len(stack):
        raise RuntimeError("Tried to get stack at idx that's too large")
    return stack[idx]


def torch_function_mode_enabled() -> bool:
    """at::impl::torch_function_mode_enabled: is any mode on the stack?"""
    return bool(_tls.stack_)
