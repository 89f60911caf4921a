"""torch.use_deterministic_algorithms and its companions, from torch/__init__.py.

They set at::globalContext()'s deterministicAlgorithms flag (aten/context.py) through the
`_set_deterministic_algorithms` binding, whose argument checks they share. Every kernel of this
runtime is deterministic (NumPy on one device at a time, no atomics), so the flag alerts on no op.
"""

from __future__ import annotations

import builtins
from typing import Any

from tensortrace.aten.context import globalContext

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "use_deterministic_algorithms",
]


def _set_deterministic_algorithms(mode: Any, *, warn_only: Any = False) -> None:
    """torch._C._set_deterministic_algorithms: PythonArgParser's `bool mode, *, bool
    warn_only=False`."""
    if type(mode) is not bool:
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
            f"not {type(mode).__name__}"
        )
    if type(warn_only) is not bool:
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
            f"not {type(warn_only).__name__}"
        )
    globalContext().setDeterministicAlgorithms(mode, warn_only)


def use_deterministic_algorithms(mode: builtins.bool, *, warn_only: builtins.bool = False) -> None:
    """Sets whether operations must use deterministic algorithms (warn_only: warn instead of
    raising where an op has none)."""
    _set_deterministic_algorithms(mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled() -> builtins.bool:
    return globalContext().deterministic_algorithms


def is_deterministic_algorithms_warn_only_enabled() -> builtins.bool:
    return globalContext().deterministic_algorithms_warn_only


def set_deterministic_debug_mode(debug_mode: builtins.int | str) -> None:
    """0 / "default", 1 / "warn", 2 / "error": use_deterministic_algorithms by number."""
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, "
                f"`warn`, `error`, but got {debug_mode}"
            )
        debug_mode = modes[debug_mode]
    if debug_mode == 0:
        _set_deterministic_algorithms(False)
    elif debug_mode == 1:
        _set_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _set_deterministic_algorithms(True)
    else:
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )


def get_deterministic_debug_mode() -> builtins.int:
    if are_deterministic_algorithms_enabled():
        return 1 if is_deterministic_algorithms_warn_only_enabled() else 2
    return 0
