"""A finished trace: plain data that saves to JSON, loads back, and exports for Chrome.

Mirrors what `torch.profiler.profile` hands back after its `with` block: the collected events,
with `export_chrome_trace` writing the same Chrome Trace Event shape torch.profiler writes
(`X` frames with `cat` = layer, `[memory]` instants with `Bytes` / `Total Allocated` / `Addr`).
Saving is JSON only, never pickle: a trace file is data, safe to open from anyone.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tensortrace.trace.events import BEGIN, END, INSTANT, Event, FrameSite

FORMAT_VERSION = 1


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists and scalars): copy.deepcopy without its memo."""
    kind = type(value)
    if kind is dict:
        return {k: _copy_json(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_copy_json(v) for v in value]
    return value


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

    events: list[Event]
    sites: list[FrameSite]
    meta: dict[str, Any] = field(default_factory=dict)

    # ---- persistence -------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The trace as JSON data: a deep copy, so that editing it never edits the trace."""
        return _copy_json(self._json_data())

    def _json_data(self) -> dict[str, Any]:
        # shares the events' own dicts: for save(), which only reads them
        return {
            "format": "tensortrace-trace",
            "version": FORMAT_VERSION,
            "meta": self.meta,
            "sites": [s.to_json() for s in self.sites],
            "events": [e.to_json() for e in self.events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Trace:
        if data.get("format") != "tensortrace-trace":
            raise ValueError("not a tensortrace trace file (missing 'format': 'tensortrace-trace')")
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"unsupported trace version {data.get('version')!r}, "
                             f"expected {FORMAT_VERSION}")
        sites = [FrameSite(**s) for s in data["sites"]]
        events = [Event.from_json(row) for row in data["events"]]
        return cls(events, sites, data.get("meta", {}))

    def save(self, path: str | os.PathLike[str]) -> None:
        import json  # only saving and loading need it: off the import path

        with open(path, "w") as f:
            json.dump(self._json_data(), f)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Trace:
        import json

        with open(path) as f:
            return cls.from_json(json.load(f))

    # ---- threads (Note [Each thread has its own stack]) ---------------------------------------
    def threads(self) -> list[int]:
        """The threads that ran events: 0 (the tracing thread) first, then native ids."""
        return sorted({e.tid for e in self.events})

    def thread_view(self, tid: int = 0) -> Trace:
        """The events one thread ran, as a trace of their own (this trace if there is one)."""
        if all(e.tid == tid for e in self.events):
            return self
        return Trace([e for e in self.events if e.tid == tid], self.sites, self.meta)

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
                node = FrameNode(event.name, event.layer, self.site_of(event), index, -1,
                                 event.args.get("args", {}), {},
                                 details={k: v for k, v in event.args.items() if k != "args"})
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
                roots.append(FrameNode(event.name, event.layer, None, index, index, event.args,
                                       {}, instants=[event], items=[event]))
        return roots

    def frames(self) -> Iterator[FrameNode]:
        for root in self.roots():
            yield from root.walk()

    def instants(self, kind: str | None = None) -> list[Event]:
        return [e for e in self.events
                if e.ph == INSTANT and (kind is None or e.kind == kind)]

    def operator_tree(self, profiler_view: bool = False) -> list[tuple[str, list[Any]]]:
        """The `aten::` frames only, nested as torch.profiler nests them: [(name, children)].

        With `profiler_view`, an operator whose only child has its own name is merged with it,
        as torch.profiler's EventList._remove_dup_nodes does: `x.sum()` really is aten::sum
        calling aten::sum (two overloads), which the profiler's tables show as one.
        """

        def collect(nodes: list[FrameNode]) -> list[tuple[str, list[Any]]]:
            out: list[tuple[str, list[Any]]] = []
            for node in nodes:
                inner = collect(node.children)
                if node.name.startswith("aten::"):
                    while profiler_view and len(inner) == 1 and inner[0][0] == node.name:
                        inner = inner[0][1]
                    out.append((node.name, inner))
                else:
                    out.extend(inner)
            return out

        return collect(self.roots())

    def memory_events(self) -> list[Event]:
        """Allocations and frees, in order, as torch.profiler's `[memory]` instants."""
        return [e for e in self.events if e.ph == INSTANT and e.kind in ("alloc", "free")]

    # ---- Chrome trace ------------------------------------------------------------------------
    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write a Chrome Trace Event file shaped like torch.profiler's export_chrome_trace."""
        import json

        with open(path, "w") as f:
            json.dump(self.chrome_trace_events(), f)

    def chrome_trace_events(self) -> dict[str, Any]:
        pid = int(self.meta.get("pid", os.getpid()))
        main_tid = int(self.meta.get("tid", threading.get_native_id()))
        out: list[dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "ts": 0,
             "args": {"name": "python"}},
            {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "ts": 0,
             "args": {"labels": "CPU"}},
        ]
        for tid in [t or main_tid for t in self.threads()] or [main_tid]:
            out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "ts": 0,
                        "args": {"name": f"thread {tid} (python)"}})
        begin_stacks: dict[int, list[int]] = {}  # one per thread
        for index, event in enumerate(self.events):
            ts = event.ts_ns / 1000.0
            begins = begin_stacks.setdefault(event.tid, [])
            tid = event.tid or main_tid
            if event.ph == BEGIN:
                begins.append(index)
            elif event.ph == END:
                begin = self.events[begins.pop()]
                site = self.site_of(begin)
                args: dict[str, Any] = {"Ev Idx": index}
                if site is not None:
                    args.update({"PyTorch source": site.source, "PyTorch symbol": site.symbol})
                    if site.legacy:
                        args["2019 name"] = site.legacy
                args["Inputs"] = begin.args.get("args", {})
                args.update({k.capitalize(): v for k, v in event.args.items()})
                out.append({"ph": "X", "cat": begin.layer, "name": begin.name, "pid": pid,
                            "tid": tid, "ts": begin.ts_ns / 1000.0,
                            "dur": (event.ts_ns - begin.ts_ns) / 1000.0, "args": args})
            elif event.kind in ("alloc", "free"):
                a = event.args
                out.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                            "pid": pid, "tid": tid, "ts": ts,
                            "args": {"Total Reserved": a.get("total_reserved", 0),
                                     "Total Allocated": a["total_allocated"],
                                     "Bytes": a["bytes"] if event.kind == "alloc"
                                     else -a["bytes"],
                                     # CUDA (DeviceType 1) and its index, as torch's
                                     "Device Id": a.get("device_id", -1),
                                     "Device Type": a.get("device_type", 0), "Addr": a["addr"],
                                     "Ev Idx": index}})
                out.append({"ph": "C", "name": "Memory Allocated", "pid": pid, "tid": tid,
                            "ts": ts, "args": {a.get("device", "cpu"): a["total_allocated"]}})
            else:
                out.append({"ph": "i", "cat": event.layer, "s": "t", "name": event.name,
                            "pid": pid, "tid": tid, "ts": ts,
                            "args": {"kind": event.kind, **event.args, "Ev Idx": index}})
        return {"schemaVersion": 1, "traceEvents": out, "traceName": "tensortrace",
                "displayTimeUnit": "ms"}

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
