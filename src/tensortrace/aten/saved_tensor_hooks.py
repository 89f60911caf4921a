"""The thread-local stack of default pack/unpack hooks for saved tensors, and its off switch.

Mirrors `aten/src/ATen/SavedTensorHooks.h` / `SavedTensorHooks.cpp`
(SavedTensorDefaultHooks, SavedTensorDefaultHooksTLS). `torch.autograd.graph.saved_tensors_hooks`
pushes a pair on entry and pops it on exit; a SavedVariable made meanwhile takes the pair on top
(autograd/saved_variable.py). `disable_saved_tensors_hooks(message)` makes any use of them raise
`message`.

Note [Saved tensor hooks cost one flag test until first used]
`SavedTensorDefaultHooks.is_initialized` is False until a pair is first pushed, and stays True
after (torch's `is_initialized`): until then a SavedVariable tests that one flag and reads no
thread-local state.
"""

from __future__ import annotations

import threading
from typing import Any

from tensortrace.c10.exception import TORCH_CHECK


class SavedTensorDefaultHooksTLS(threading.local):
    def __init__(self) -> None:
        self.stack: list[tuple[Any, Any]] = []
        # NOTE: [disabled_error_message invariant]: a message here means the hooks are disabled
        self.disabled_error_message: str | None = None


tls = SavedTensorDefaultHooksTLS()


class SavedTensorDefaultHooks:
    is_initialized = False  # Note [Saved tensor hooks cost one flag test until first used]

    @staticmethod
    def is_enabled() -> bool:
        return tls.disabled_error_message is None

    @staticmethod
    def _assert_not_disabled() -> None:
        """assertSavedTensorHooksNotDisabled."""
        TORCH_CHECK(SavedTensorDefaultHooks.is_enabled(), tls.disabled_error_message)

    @staticmethod
    def disable(message: str) -> None:
        tls.disabled_error_message = message
        if tls.stack:
            SavedTensorDefaultHooks._assert_not_disabled()

    @staticmethod
    def enable() -> None:
        tls.disabled_error_message = None

    @staticmethod
    def get_disabled_error_message() -> str | None:
        return tls.disabled_error_message

    @staticmethod
    def lazy_initialize() -> None:
        SavedTensorDefaultHooks.is_initialized = True

    @staticmethod
    def push_hooks(pack_hook: Any, unpack_hook: Any) -> None:
        assert SavedTensorDefaultHooks.is_initialized
        SavedTensorDefaultHooks._assert_not_disabled()
        tls.stack.append((pack_hook, unpack_hook))

    @staticmethod
    def pop_hooks() -> tuple[Any, Any]:
        assert SavedTensorDefaultHooks.is_initialized and tls.stack
        return tls.stack.pop()

    @staticmethod
    def get_hooks() -> tuple[Any, Any] | None:
        if not SavedTensorDefaultHooks.is_initialized or not tls.stack:
            return None
        return tls.stack[-1]


__all__ = ["SavedTensorDefaultHooks", "SavedTensorDefaultHooksTLS"]
