"""The objects alive at a step of a trace, as the object graph draws them.

The profiler-side counterpart is the memory timeline of `torch/profiler/_memory_profiler.py`,
which also rebuilds lifetimes from recorded allocation events. Nothing is replayed here: the
replay's Timeline (`tensortrace.replay`) is the one replay of a trace, and `state_from_timeline`
turns its State at a step into the plain records below, keyed by display name
(`TensorImpl#1`, `StorageImpl#1`, `_t1` or the user's variable name), which the SVG draws.
Names and numbers are the Timeline's, so a picture and the player name the same objects alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace
from tensortrace.trace.events import BEGIN, END, Event
from tensortrace.trace.schema import ALLOC, FREE, HANDLE_DEL, HANDLE_NEW

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline


@dataclass
class HandleState:
    handle: int
    name: str  # `_t1` or the user's variable name
    impl: str


@dataclass
class ImplState:
    name: str
    refcount: int
    storage: str | None
    sizes: list[int]
    strides: list[int]
    offset: int
    dtype: str
    itemsize: int
    is_view: bool
    base: str | None = None  # the TensorImpl a view holds (Note [A view holds its base])


@dataclass
class StorageState:
    name: str
    refcount: int
    nbytes: int
    addr: int
    device: str


@dataclass
class ObjectState:
    """Everything alive after the event at `step` (step -1: before the first event)."""

    step: int
    event: Event | None
    handles: dict[int, HandleState] = field(default_factory=dict)
    impls: dict[str, ImplState] = field(default_factory=dict)
    storages: dict[str, StorageState] = field(default_factory=dict)
    blocks: dict[int, int] = field(default_factory=dict)  # addr -> bytes, allocator blocks
    focus: set[str] = field(default_factory=set)  # objects the event at `step` touched
    total_allocated: int = 0

    def describe_event(self) -> str:
        """One line on what the event at this step did, with renumbered names."""
        e = self.event
        if e is None:
            return "before the first event"
        a = e.args
        if e.ph == BEGIN:
            return f"call {e.name}  [{e.layer}]"
        if e.ph == END:
            return f"return from {e.name}  [{e.layer}]"
        obj = a.get("object", "")
        return {
            "alloc": f"allocate {a.get('bytes')} bytes at {hex(a.get('addr', 0))}",
            "free": f"free {a.get('bytes')} bytes at {hex(a.get('addr', 0))}",
            "make_intrusive": f"make_intrusive<{a.get('type')}>: {obj}, refcount 1",
            "incref": f"incref {obj} -> {a.get('refcount')}",
            "decref": f"decref {obj} -> {a.get('refcount')}",
            "delete": f"delete {obj}",
            "view_base": f"{obj} is a view of {a.get('base')} (holds it as base_)",
            "handle_new": f"Python handle {a.get('name', '')} born (THPVariable_Wrap)",
            "handle_del": f"Python handle {a.get('name', '')} dies (THPVariable_dealloc)",
            "statement": f"statement {a.get('source', '')!r}",
            "tensor_meta": f"{obj}: sizes {a.get('sizes')}, strides {a.get('strides')}",
            "tensor_storage": f"{obj} now uses {a.get('storage') or 'no storage'}",
            "storage_data": f"{obj}: {a.get('nbytes')} bytes at {hex(a.get('addr') or 0)}",
            "python_call": f"Python calls {a.get('python_name', e.name)}",
            "names": "user variables: "
            + ", ".join(n for names in a.get("names", {}).values() for n in names),
        }.get(e.kind, f"{e.kind} {e.name}")


def timeline_of(source: Trace | Timeline) -> Timeline:
    """The replay's Timeline of a Trace (built here), or the Timeline itself."""
    if isinstance(source, Timeline):
        return source
    if isinstance(source, Trace):
        return Timeline(source)
    raise TypeError(f"needs a Trace or a Timeline, got {type(source).__name__}")


def state_from_timeline(timeline: Timeline, step: int | None = None) -> ObjectState:
    """The objects alive after the event at `step` (default: the last), from the Timeline.

    The objects the step's event touched (`focus`) and the event itself are renumbered with the
    Timeline's own id table.
    """
    n = len(timeline)
    step = n - 1 if step is None else step
    if not -1 <= step < n:
        raise IndexError(f"step {step} is out of range for a trace of {n} events")
    if step == -1:  # before the first event: nothing exists yet
        return ObjectState(-1, None)
    state = timeline.state_at(step)
    out = ObjectState(step, None, total_allocated=state.allocated)
    for k, h in state.handles.items():
        out.handles[k] = HandleState(
            k, h.name, f"TensorImpl#{h.impl}" if h.impl is not None else ""
        )
    for k, t in state.tensors.items():
        out.impls[f"TensorImpl#{k}"] = ImplState(
            f"TensorImpl#{k}",
            t.refcount,
            f"StorageImpl#{t.storage}" if t.storage is not None else None,
            list(t.sizes),
            list(t.strides),
            t.offset,
            t.dtype,
            t.itemsize,
            t.is_view,
            f"TensorImpl#{t.view_of}" if t.view_of is not None else None,
        )
    for k, st in state.storages.items():
        out.storages[f"StorageImpl#{k}"] = StorageState(
            f"StorageImpl#{k}", st.refcount, st.nbytes, st.addr, st.device
        )
    out.blocks = {b.addr: b.bytes for b in state.live_blocks}
    event = timeline.trace.events[step]
    ids = timeline.compiled.ids
    args = dict(event.args)
    if "object" in args:
        args["object"] = ids.display(args["object"])
        out.focus = {args["object"]}
    if "base" in args and isinstance(args["base"], str):
        args["base"] = ids.display(args["base"])
    if event.kind in (HANDLE_NEW, HANDLE_DEL):
        display = ids.known_handle(args["handle"])
        args["name"] = timeline.names(display) if display is not None else ""
        out.focus = {args["name"]}
    if event.kind in (ALLOC, FREE):
        out.focus = {f"block@{args['addr']}"}
    out.event = Event(
        event.ph,
        ids.display(event.name),
        event.layer,
        event.ts_ns,
        event.depth,
        event.site,
        event.kind,
        args,
    )
    return out
