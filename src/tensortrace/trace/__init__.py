"""The trace recorder and its data: frames, instants, and the finished Trace.

Mirrors the record-function and profiler collection machinery of PyTorch
(`aten/src/ATen/record_function.h`, `torch/csrc/profiler/collection.h`). Imports only the
standard library, so every other layer can record into it.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from tensortrace.trace import recorder
from tensortrace.trace.errors import TraceFormatError
from tensortrace.trace.events import LAYERS, Event, FrameSite
from tensortrace.trace.recorder import frame, summarize, traced
from tensortrace.trace.source import record_names, run_source
from tensortrace.trace.trace import FrameNode, Trace, events_of_rows


@contextmanager
def record(**meta: Any) -> Iterator[Trace]:
    """Record everything run inside the block: `with tensortrace.record() as t: ...`.

    Named in the spirit of `torch.profiler.profile()`; `torch.trace` is PyTorch's op (the sum
    of a matrix's diagonal), so the recorder does not take that name.

    The Trace `t` fills in when the block exits (also when it exits by an exception).
    """
    rec = recorder.start()
    result = Trace(
        rec.events,  # type: ignore[arg-type] # its rows until it stops: events_of_rows
        rec.sites,
        {"pid": os.getpid(), "tid": threading.get_native_id(), **meta},
        rec.values,
    )
    try:
        yield result
    finally:
        # the `with` block's own frame: its variables name the tensors that survive
        _record_caller_names(sys._getframe(2))
        recorder.stop(rec)
        # the rows become Events, or columns (Note [Events made when the recording stops])
        result.events = events_of_rows(rec.events)


def _record_caller_names(caller: FrameType) -> None:
    """Record the names of the caller's tensors without pinning them.

    Before Python 3.13, reading a function frame's `f_locals` snapshots its fast locals into a
    dict cached on the frame, which holds a reference to every local until the function returns:
    `del x` after the block would free nothing. So the snapshot is emptied once read (it is only
    a copy: the next `f_locals` read refills it). From 3.13 `f_locals` is a write-through proxy
    (PEP 667) that pins nothing and must not be cleared; module and class frames hand back their
    real namespace, never cleared either.
    """
    local_vars = caller.f_locals
    try:
        record_names(local_vars)
    finally:
        if type(local_vars) is dict and caller.f_code.co_flags & inspect.CO_OPTIMIZED:
            local_vars.clear()


def is_tracing() -> bool:
    return recorder.current is not None


__all__ = [
    "LAYERS",
    "Event",
    "FrameNode",
    "FrameSite",
    "Trace",
    "TraceFormatError",
    "frame",
    "is_tracing",
    "record_names",
    "recorder",
    "record",
    "run_source",
    "summarize",
    "traced",
]
