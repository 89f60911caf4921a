"""The trace recorder and its data: frames, instants, and the finished Trace.

Mirrors the record-function and profiler collection machinery of PyTorch
(`aten/src/ATen/record_function.h`, `torch/csrc/profiler/collection.h`). Imports only the
standard library, so every other layer can record into it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tensortrace.trace import recorder
from tensortrace.trace.events import LAYERS, Event, FrameSite
from tensortrace.trace.recorder import frame, summarize, traced
from tensortrace.trace.source import record_names, run_source
from tensortrace.trace.trace import FrameNode, Trace


@contextmanager
def record(**meta: Any) -> Iterator[Trace]:
    """Record everything run inside the block: `with tensortrace.record() as t: ...`.

    Named in the spirit of `torch.profiler.profile()`; `torch.trace` is PyTorch's op (the sum
    of a matrix's diagonal), so the recorder does not take that name.

    The Trace `t` fills in when the block exits (also when it exits by an exception).
    """
    rec = recorder.start()
    result = Trace(rec.events, rec.sites,
                   {"pid": os.getpid(), "tid": threading.get_native_id(), **meta})
    try:
        yield result
    finally:
        # the `with` block's own frame: its variables name the tensors that survive
        caller = sys._getframe(2)
        record_names(caller.f_locals)
        recorder.stop(rec)


def is_tracing() -> bool:
    return recorder.current is not None


__all__ = ["LAYERS", "Event", "FrameNode", "FrameSite", "Trace", "frame", "is_tracing",
           "record_names", "recorder", "record", "run_source", "summarize", "traced"]
