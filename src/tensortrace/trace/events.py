"""The trace's event model: frames (a call with a beginning and an end) and instants.

Mirrors the records that `aten/src/ATen/record_function.h` and the profiler's collection
(`torch/csrc/profiler/collection.h`) keep: a frame is a RecordFunction scope, an instant is a
memory report or a refcount change. Everything here is plain data (str, int, float, dict, list)
so that a Trace saves to JSON and loads back unchanged.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tensortrace.trace.schema import BEGIN, END, INSTANT, LAYERS

__all__ = ["BEGIN", "END", "INSTANT", "LAYERS", "Event", "FrameSite"]

_NO_ARGS: dict[str, Any] = {}


class FrameSite(NamedTuple):
    """The static description of a traced function: who it is in tensortrace and in PyTorch.

    `source` is the file in PyTorch's tree and `symbol` the C++ symbol it models; `legacy` is the
    name the July 2019 call stack (seed 000) gives the same step, when it differs. A NamedTuple
    (immutable, compared and hashed by value like a frozen dataclass) because import makes one
    per traced function, ~5,400 of them: a tuple is made in a third of the time.
    """

    layer: str
    name: str
    source: str
    symbol: str
    legacy: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "name": self.name,
            "source": self.source,
            "symbol": self.symbol,
            "legacy": self.legacy,
        }


class Event(NamedTuple):
    """One step of the timeline.

    `ph` is BEGIN, END or INSTANT (Chrome's phase letters). Frames carry `site` and their
    arguments and outcome in `args` (schema.BeginArgs, schema.EndArgs); instants carry a `kind`
    (one of schema.INSTANT_KINDS) and its facts in `args` (schema.INSTANT_ARGS[kind] declares
    them). `depth` is the call depth at the event, on its own thread. `tid` is 0 for the thread
    that opened the trace, else the native id of the thread that ran the event (torch.profiler's
    events carry their thread's id too).

    A named tuple (read-only): a trace's events are held as columns (columns.py) and built on
    access, and a tuple is built in C (`Event._make`), a dataclass by a Python `__init__`.
    Treat `args` as read-only too: identical args are shared.
    """

    ph: str
    name: str
    layer: str
    ts_ns: int
    depth: int
    site: int = -1  # index into Trace.sites, for frames
    kind: str = ""
    args: dict[str, Any] = _NO_ARGS  # shared: never edited
    tid: int = 0

    def to_json(self) -> list[Any]:
        row = [
            self.ph,
            self.name,
            self.layer,
            self.ts_ns,
            self.depth,
            self.site,
            self.kind,
            self.args,
        ]
        if self.tid:  # only events of other threads carry a ninth column
            row.append(self.tid)
        return row

    @classmethod
    def from_json(cls, row: list[Any]) -> Event:
        ph, name, layer, ts_ns, depth, site, kind, args, *rest = row
        return cls(ph, name, layer, ts_ns, depth, site, kind, args, rest[0] if rest else 0)
