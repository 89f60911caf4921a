"""Noticing a DataLoader worker that died without a word (killed, or exited by a crash).

Mirrors `torch/utils/data/_utils/signal_handling.py` and the C++ half it imports from
`torch/csrc/DataLoader.cpp` (_set_worker_pids, _remove_worker_pids, _error_if_any_worker_fails,
_set_worker_signal_handlers), written with os.waitid. The main process installs one SIGCHLD
handler; when a child changes state it looks, without reaping (WNOWAIT), at each registered
worker, and raises the error torch raises for one that exited with a failure or by a signal.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from tensortrace.utils.data import _utils
from tensortrace.utils.data._utils import IS_WINDOWS

# the worker pids of each live multi-process iterator, by the iterator's id()
_worker_pids: dict[int, tuple[int, ...]] = {}


def _set_worker_pids(key: int, pids: tuple[int, ...]) -> None:
    if key in _worker_pids:
        raise RuntimeError(
            "_set_worker_pids should be called only once for each _BaseDataLoaderIter."
        )
    _worker_pids[key] = pids


def _remove_worker_pids(key: int) -> None:
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError(
            "Cannot find worker information for _BaseDataLoaderIter with id " + str(key)
        )


def _error_if_any_worker_fails() -> None:
    for key, pids in list(_worker_pids.items()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue  # already reaped (joined)
            if info is None:
                continue  # still running
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                _worker_pids[key] = ()  # else the error kills the others and comes again
                raise RuntimeError(
                    f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                    f"{info.si_status}. Details are lost due to multiprocessing. Rerunning with "
                    "num_workers=0 may give better error trace."
                )
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                _worker_pids[key] = ()
                msg = (
                    f"DataLoader worker (pid {pid}) is killed by signal: "
                    f"{signal.strsignal(info.si_status)}. "
                )
                if info.si_status == signal.SIGBUS:
                    msg += (
                        "It is possible that dataloader's workers are out of shared memory. "
                        "Please try to raise your shared memory limit."
                    )
                raise RuntimeError(msg)


def _set_worker_signal_handlers(*arg: Any) -> None:
    """In a worker: a worker has no workers, so the SIGCHLD handler it inherited by fork goes.
    (torch's C handlers also print a hint for SIGBUS / SIGSEGV before dying; a Python handler
    cannot run on a fatal signal, so those keep their default action, and the main process
    reports the signal.)"""
    if not IS_WINDOWS:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)


_SIGCHLD_handler_set = False
r"""Whether SIGCHLD handler is set for DataLoader worker failures. Only one
handler needs to be set for all DataLoaders in a process."""


def _set_SIGCHLD_handler() -> None:
    if IS_WINDOWS:  # Windows doesn't support SIGCHLD handler
        return
    if not isinstance(threading.current_thread(), threading._MainThread):  # type: ignore[attr-defined]
        return  # can't set signal in child threads
    global _SIGCHLD_handler_set
    if _SIGCHLD_handler_set:
        return
    previous_handler = signal.getsignal(signal.SIGCHLD)
    if not callable(previous_handler):
        previous_handler = None  # the default handler of SIGCHLD does nothing

    def handler(signum: int, frame: Any) -> None:
        # at exit multiprocessing terminates the daemonic workers of iterators still alive:
        # that is no failure to report (and an error raised in atexit is only noise)
        if not _utils.python_exit_status:
            _error_if_any_worker_fails()
        if previous_handler is not None:
            previous_handler(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
