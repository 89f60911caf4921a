"""torch.backends.cudnn: cuDNN's switches. Mirrors `torch/backends/cudnn/__init__.py`.

The emulated CUDA device has no cuDNN: is_available() is False and version() None, as on a
torch build without it; the flags (`torch.backends.cudnn.deterministic = True`, which tutorials
set) are kept in the global context all the same.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tensortrace.aten.context import check_bool, globalContext
from tensortrace.backends import ContextProp, PropModule, __allow_nonbracketed_mutation


def version() -> int | None:
    """cuDNN's version, or None: this build has no cuDNN."""
    return None


def is_available() -> bool:
    """Whether this build can use cuDNN."""
    return False


def is_acceptable(tensor: Any) -> bool:
    """Whether cuDNN would take this tensor (never, with no cuDNN)."""
    return False


def _setter(attr: str, name: str) -> Any:
    def set_flag(value: Any) -> None:
        setattr(globalContext(), attr, check_bool(value, name))

    return set_flag


def _getter(attr: str) -> Any:
    return lambda: getattr(globalContext(), attr)


def set_flags(
    _enabled: bool | None = None,
    _benchmark: bool | None = None,
    _benchmark_limit: int | None = None,
    _deterministic: bool | None = None,
    _allow_tf32: bool | None = None,
) -> tuple[Any, ...]:
    ctx = globalContext()
    orig_flags = (
        ctx.user_enabled_cudnn,
        ctx.benchmark_cudnn,
        None,
        ctx.deterministic_cudnn,
        ctx.allow_tf32_cudnn,
    )
    if _enabled is not None:
        ctx.user_enabled_cudnn = check_bool(_enabled, "set_enabled_cudnn")
    if _benchmark is not None:
        ctx.benchmark_cudnn = check_bool(_benchmark, "set_benchmark_cudnn")
    if _deterministic is not None:
        ctx.deterministic_cudnn = check_bool(_deterministic, "set_deterministic_cudnn")
    if _allow_tf32 is not None:
        ctx.allow_tf32_cudnn = check_bool(_allow_tf32, "set_allow_tf32_cublas")
    return orig_flags


@contextmanager
def flags(
    enabled: bool = False,
    benchmark: bool = False,
    benchmark_limit: int = 10,
    deterministic: bool = False,
    allow_tf32: bool = True,
) -> Iterator[None]:
    """Set the flags for the `with` block, and put the old ones back after it."""
    with __allow_nonbracketed_mutation():
        orig_flags = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    try:
        yield
    finally:
        with __allow_nonbracketed_mutation():
            set_flags(*orig_flags)


class CudnnModule(PropModule):
    enabled = ContextProp(
        _getter("user_enabled_cudnn"), _setter("user_enabled_cudnn", "set_enabled_cudnn")
    )
    deterministic = ContextProp(
        _getter("deterministic_cudnn"), _setter("deterministic_cudnn", "set_deterministic_cudnn")
    )
    benchmark = ContextProp(
        _getter("benchmark_cudnn"), _setter("benchmark_cudnn", "set_benchmark_cudnn")
    )
    # the limit is a cuDNN v8 API setting: None where cuDNN is not there
    benchmark_limit = None
    allow_tf32 = ContextProp(
        _getter("allow_tf32_cudnn"), _setter("allow_tf32_cudnn", "set_allow_tf32_cublas")
    )


sys.modules[__name__] = CudnnModule(sys.modules[__name__], __name__)

# for mypy and readers: the attributes the module object has
enabled: bool
deterministic: bool
benchmark: bool
allow_tf32: bool
benchmark_limit: int | None
