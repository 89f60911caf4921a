"""A finished trace: plain data that saves to JSON, loads back, and exports for Chrome.

Mirrors what `torch.profiler.profile` hands back after its `with` block: the collected events,
with `export_chrome_trace` writing the same Chrome Trace Event shape torch.profiler writes
(`X` frames with `cat` = layer, `[memory]` instants with `Bytes` / `Total Allocated` / `Addr`).
Saving is JSON only, never pickle: a trace file is data, safe to open from anyone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat, starmap
from typing import Any

from tensortrace.trace.chrome import chrome_trace, write_chrome_trace
from tensortrace.trace.columns import EventColumns
from tensortrace.trace.events import BEGIN, END, INSTANT, Event, FrameSite
from tensortrace.trace.schema import ALLOC, FREE

FORMAT_VERSION = 2  # trace/format.py's VERSION (format.py imports json: loaded on first use)
# Note [Small traces stay lists]: columns (columns.py) cost ~2 us per event to build, mostly
# each args object's JSON text, and pay back in RAM only at scale (a 10k-event trace's list
# holds ~5 MB); a recording of fewer events becomes a list of Events (events_of_rows), which
# every consumer reads alike (save and the Chrome export build the columns from it then).
COLUMNS_FROM = 4096


def events_of_rows(rows: list[tuple[Any, ...]]) -> Sequence[Event]:
    """A stopped recording's events, from its rows (Note [Events made when the recording stops]
    in recorder.py): columns from COLUMNS_FROM events on (unless an args object is not JSON
    data, which columns cannot hold), else a list of Events, made in one C loop."""
    if len(rows) >= COLUMNS_FROM:
        from tensortrace.trace.format import gc_paused

        with gc_paused():
            try:
                return EventColumns.from_events(rows)
            except (TypeError, ValueError):
                pass
    return list(starmap(_tuple_new, zip(repeat(Event), rows)))


_tuple_new = tuple.__new__


@dataclass
class FrameNode:
    """A frame of the call tree, rebuilt from its BEGIN/END pair."""

    name: str
    layer: str
    site: FrameSite | None
    begin: int  # index of the BEGIN event
    end: int  # index of the END event
    args: dict[str, Any]
    outcome: dict[str, Any]
    children: list[FrameNode] = field(default_factory=list)
    instants: list[Event] = field(default_factory=list)
    # what the frame recorded besides its arguments (an operator's dispatch key set, kernel)
    details: dict[str, Any] = field(default_factory=dict)
    # children and instants interleaved in the order they happened
    items: list[FrameNode | Event] = field(default_factory=list)

    def walk(self) -> Iterator[FrameNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Trace:
    """The events of one `tensortrace.record()` block and the sites their frames point to."""

    # while recording, the recorder's list of rows (each event's fields as a plain tuple, Note
    # [Events made when the recording stops] in recorder.py); once finished, a list of Events,
    # or EventColumns (columns.py, from COLUMNS_FROM events on, or loaded from a file): a
    # read-only Sequence that builds each Event when it is read
    events: Sequence[Event]
    sites: list[FrameSite]
    meta: dict[str, Any] = field(default_factory=dict)
    # Note [Values beside the events]: step -> what tensors held then, read by the replay
    values: dict[int, dict[str, Any]] = field(default_factory=dict)

    # ---- persistence (format.py; docs/trace-format.md) ---------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The trace as JSON data (the file's version-2 document): a copy, so that editing it
        never edits the trace."""
        import json

        return json.loads(self.dumps())

    def dumps(self) -> str:
        """The trace file's text."""
        from tensortrace.trace import format as trace_format  # json stays off the import path

        return trace_format.dumps(self.events, self.sites, self.meta, self.values)

    @classmethod
    def from_json(cls, data: Any, file: str = "<data>") -> Trace:
        """A trace from JSON data, checked: TraceFormatError names what is wrong and where."""
        from tensortrace.trace import format as trace_format

        return cls(*trace_format.from_data(data, file))

    @classmethod
    def loads(cls, text: str | bytes, file: str = "<string>") -> Trace:
        from tensortrace.trace import format as trace_format

        return cls.from_json(trace_format.parse(text, file), file)

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.dumps())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Trace:
        """Load a trace file: any file either loads into a Trace that every consumer survives
        or raises one TraceFormatError (a ValueError) naming the file, the place, the fix."""
        from tensortrace.trace import format as trace_format

        return cls(*trace_format.load_path(path))

    # ---- threads (Note [Each thread has its own stack]) ---------------------------------------
    def threads(self) -> list[int]:
        """The threads that ran events: 0 (the tracing thread) first, then native ids."""
        if isinstance(self.events, EventColumns):
            return sorted(set(self.events.tids()))
        return sorted({e.tid for e in self.events})

    def thread_view(self, tid: int = 0) -> Trace:
        """The events one thread ran, as a trace of their own (this trace if there is one)."""
        if tid == 0 and isinstance(self.events, EventColumns) and self.events.tid is None:
            return self
        if all(e.tid == tid for e in self.events):
            return self
        kept = [i for i, e in enumerate(self.events) if e.tid == tid]
        # the values are read on the tracing thread only: renumbered with its steps
        step_of = {old: new for new, old in enumerate(kept)} if tid == 0 else {}
        values = {step_of[s]: v for s, v in self.values.items() if s in step_of}
        return Trace([self.events[i] for i in kept], self.sites, self.meta, values)

    # ---- structure ---------------------------------------------------------------------------
    def site_of(self, event: Event) -> FrameSite | None:
        return self.sites[event.site] if event.site >= 0 else None

    def roots(self) -> list[FrameNode]:
        """The call tree: top-level frames, each with its children and its instants.

        Instants outside any frame (a handle dying between statements) become leaf nodes of
        their own so nothing is lost.
        """
        roots: list[FrameNode] = []
        stacks: dict[int, list[FrameNode]] = {0: []}  # one per thread
        for index, event in enumerate(self.events):
            stack = stacks.get(event.tid)
            if stack is None:
                stack = stacks[event.tid] = []
            if event.ph == BEGIN:
                node = FrameNode(
                    event.name,
                    event.layer,
                    self.site_of(event),
                    index,
                    -1,
                    event.args.get("args", {}),
                    {},
                    details={k: v for k, v in event.args.items() if k != "args"},
                )
                if stack:
                    stack[-1].children.append(node)
                    stack[-1].items.append(node)
                else:
                    roots.append(node)
                stack.append(node)
            elif event.ph == END:
                node = stack.pop()
                node.end = index
                node.outcome = event.args
            elif stack:
                stack[-1].instants.append(event)
                stack[-1].items.append(event)
            else:
                roots.append(
                    FrameNode(
                        event.name,
                        event.layer,
                        None,
                        index,
                        index,
                        event.args,
                        {},
                        instants=[event],
                        items=[event],
                    )
                )
        return roots

    def frames(self) -> Iterator[FrameNode]:
        for root in self.roots():
            yield from root.walk()

    def instants(self, kind: str | None = None) -> list[Event]:
        return [e for e in self.events if e.ph == INSTANT and (kind is None or e.kind == kind)]

    def operator_tree(self, profiler_view: bool = False) -> list[tuple[str, list[Any]]]:
        """The operator frames only (`aten::`, `myns::`), nested as torch.profiler nests them.

        With `profiler_view`, an operator whose only child has its own name is merged with it,
        as torch.profiler's EventList._remove_dup_nodes does: `x.sum()` really is aten::sum
        calling aten::sum (two overloads), which the profiler's tables show as one.
        """

        def collect(nodes: list[FrameNode]) -> list[tuple[str, list[Any]]]:
            out: list[tuple[str, list[Any]]] = []
            for node in nodes:
                inner = collect(node.children)
                # Dispatcher::call's frames: aten's operators, and those torch.library
                # defines in other namespaces (`myns::foo`), which carry the same details
                if node.name.startswith("aten::") or "overload" in node.details:
                    while profiler_view and len(inner) == 1 and inner[0][0] == node.name:
                        inner = inner[0][1]
                    out.append((node.name, inner))
                else:
                    out.extend(inner)
            return out

        return collect(self.roots())

    def memory_events(self) -> list[Event]:
        """Allocations and frees, in order, as torch.profiler's `[memory]` instants."""
        return [e for e in self.events if e.ph == INSTANT and e.kind in (ALLOC, FREE)]

    # ---- Chrome trace ------------------------------------------------------------------------
    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write a Chrome Trace Event file shaped like torch.profiler's export_chrome_trace,
        streamed as the events are walked (chrome.py)."""
        with open(path, "w", encoding="utf-8") as f:
            write_chrome_trace(self, f)

    def chrome_trace_events(self) -> dict[str, Any]:
        """The Chrome file's document as data (chrome.py)."""
        return chrome_trace(self)

    # Note [A Trace shows itself]
    # In a terminal (rich) and in Jupyter a Trace displays as the replay's Timeline overview.
    # The replay is imported when a trace is first shown, not with the package: it is the
    # viewer side (rich, the timeline), which a program that only records does not need.
    def __rich__(self) -> Any:
        from tensortrace.replay.timeline import trace_rich

        return trace_rich(self)

    def _repr_html_(self) -> str:
        from tensortrace.replay.timeline import trace_repr_html

        return trace_repr_html(self)

    def __len__(self) -> int:
        return len(self.events)
