"""torch.multiprocessing: the standard library's multiprocessing; tensors travel as shared memory.

Mirrors `torch/multiprocessing/__init__.py`. Everything multiprocessing exports is here under
the same names (Process, Queue, get_context, ...); importing this module registers the
ForkingPickler reductions of reductions.py, so a tensor put on a Queue arrives in the other
process as a tensor whose storage is the same shared memory (Note [Sharing a storage swaps its
memory]). The sharing strategy says how the memory is named: "file_descriptor" (the Linux
default: an unlinked shm object whose fd is passed over a socket) or "file_system" (a named
shm object that the receiver opens by its name).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import sys
from multiprocessing import *  # noqa: F403

from tensortrace.multiprocessing.reductions import init_reductions

__all__ = ["get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy"]
__all__ += multiprocessing.__all__  # type: ignore[attr-defined]

if sys.platform == "darwin" or sys.platform == "win32":
    _sharing_strategy = "file_system"
    _all_sharing_strategies = {"file_system"}
else:
    _sharing_strategy = "file_descriptor"
    _all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy: str) -> None:
    """Set the strategy for sharing CPU tensors: one of get_all_sharing_strategies()."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(
            f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}"
        )
    _sharing_strategy = new_strategy


def get_sharing_strategy() -> str:
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategies this system supports."""
    return _all_sharing_strategies


_PR_SET_NAME, _PR_GET_NAME = 15, 16  # prctl(2) options (linux/prctl.h)


def _set_thread_name(name: str) -> None:
    """Name the calling thread as `ps -L` and debuggers show it (pthread_setname_np in torch;
    prctl(PR_SET_NAME) is the same call on Linux). Elsewhere a no-op."""
    libc = _libc()
    if libc is not None:
        libc.prctl(_PR_SET_NAME, name.encode()[:15], 0, 0, 0)  # 15 bytes and a NUL at most


def _get_thread_name() -> str:
    """The calling thread's name (see _set_thread_name); "" where it cannot be read."""
    libc = _libc()
    if libc is None:
        return ""
    buf = ctypes.create_string_buffer(16)
    libc.prctl(_PR_GET_NAME, buf, 0, 0, 0)
    return buf.value.decode(errors="replace")


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(None, use_errno=True)


init_reductions()
