"""The replay's state machine: a trace compiled into per-event deltas on a few object tables.

PyTorch has no counterpart: torch.profiler records what happened, and its viewers draw the
records, but nothing rebuilds the objects alive at a given moment. Here each event becomes a list
of small deltas on four tables (Python handles, TensorImpls, StorageImpls, and a global row for
the allocator's running total), so the state at step `s` is the result of applying the deltas of
events 0..s. The Python Timeline and the JavaScript player apply the same deltas, which is what
keeps the two replays equal (see `payload.py`).

Object ids come from a process-wide counter (`TensorImpl#7`); `ObjectIds` renumbers them per type
in order of first appearance, so a trace reads `TensorImpl#1`, `StorageImpl#1` on every run.
This is the one numbering of a trace: the Timeline, the player and the pictures of `viz` all
read it from here.

Note [A view holds its base]: the runtime's as_view records a `view_base` instant
(`{object: view, base: base}`) right after it increfs the base, and that sets the view's
`view_of`. Traces recorded before that instant existed do not have it; for them (a trace with no
`view_base` anywhere) the base is inferred: the TensorImpl increfed next after a view is made that
shares the view's storage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tensortrace.replay.allocator_blocks import _SEGMENT_KINDS, Block, Segment, _Segments
from tensortrace.replay.deltas import (
    DROP,
    GLOBALS,
    HANDLES,
    NEW,
    STORAGES,
    TENSORS,
    UPDATE,
    Delta,
)
from tensortrace.trace import Event, Trace, schema
from tensortrace.trace.events import BEGIN, END
from tensortrace.trace.schema import (
    ALLOC,
    DECREF,
    DELETE,
    FREE,
    HANDLE_DEL,
    HANDLE_NEW,
    INCREF,
    MAKE_INTRUSIVE,
    STORAGE_DATA,
    TENSOR_META,
    TENSOR_STORAGE,
    VIEW_BASE,
)

_TYPE_TABLE = {schema.TENSOR_IMPL: TENSORS, schema.STORAGE_IMPL: STORAGES}


class ObjectIds:
    """Per-trace display numbers: `TensorImpl#7` -> ("t", 4), handle 12 -> 3."""

    def __init__(self) -> None:
        self._objects: dict[str, dict[int, int]] = {TENSORS: {}, STORAGES: {}}
        self._handles: dict[int, int] = {}
        self._seen: dict[str, tuple[str, int]] = {}  # reference -> object()'s answer

    def object(self, name: str | None) -> tuple[str, int] | None:
        """The (table, display id) of a raw object reference, or None for other types."""
        if type(name) is not str:
            return None
        found = self._seen.get(name)
        if found is not None:
            return found
        found = self._object(name)
        if found is not None:  # a number once given stays: remembered by the reference
            self._seen[name] = found
        return found

    def _object(self, name: str) -> tuple[str, int] | None:
        ref = schema.split_ref(name)
        if ref is None or ref[0] not in _TYPE_TABLE:
            return None
        table = _TYPE_TABLE[ref[0]]
        numbers = self._objects[table]
        raw = ref[1]
        if raw not in numbers:
            numbers[raw] = len(numbers) + 1
        return table, numbers[raw]

    def handle(self, raw: int) -> int:
        if raw not in self._handles:
            self._handles[raw] = len(self._handles) + 1
        return self._handles[raw]

    def known_handle(self, raw: int) -> int | None:
        return self._handles.get(raw)

    def display(self, name: str) -> str:
        """`TensorImpl#7` -> `TensorImpl#4`; anything else is returned unchanged."""
        found = self.object(name)
        if found is None:
            return name
        kind = schema.TENSOR_IMPL if found[0] == TENSORS else schema.STORAGE_IMPL
        return schema.object_ref(kind, found[1])

    def renumber_text(self, text: str) -> str:
        """Renumber the references inside a label that embeds them (an autograd node's
        `AccumulateGrad(TensorImpl#7)`, drawn by viz). The replay's own reading never needs it:
        the runtime records references and summaries as structured facts."""
        return schema.rename_refs(text, self.display)


@dataclass(slots=True)
class Frame:
    """One frame of the trace: its BEGIN/END events and its place in the call tree."""

    index: int  # position in Compiled.frames
    begin: int
    end: int  # -1 while never closed (an unbalanced trace)
    parent: int  # frame index, -1 at top level
    site: int
    name: str
    layer: str
    args: dict[str, Any]
    details: dict[str, Any]
    outcome: dict[str, Any] = field(default_factory=dict)


@dataclass
class Compiled:
    """Everything derived from the events in one pass."""

    deltas: list[tuple[Delta, ...]]  # per event
    frames: list[Frame]
    frame_of_begin: dict[int, int]  # BEGIN event index -> frame index
    innermost: list[int]  # per event: the innermost open frame after it (-1: none)
    event_frame: list[int]  # per event: the frame it belongs to (a B/E's own frame; else enclosing)
    blocks: list[Block]
    ids: ObjectIds
    handle_raw: dict[int, int]  # display handle id -> raw handle id
    segments: list[Segment] = field(default_factory=list)  # the caching allocator's, in order


_EMPTY: tuple[Delta, ...] = ()


def compile_trace(trace: Trace) -> Compiled:
    """Walk the events once: frames, deltas, allocator blocks."""
    ids = ObjectIds()
    deltas: list[tuple[Delta, ...]] = []
    frames: list[Frame] = []
    frame_of_begin: dict[int, int] = {}
    innermost: list[int] = []
    event_frame: list[int] = []
    blocks: list[Block] = []
    open_blocks: dict[int, int] = {}  # addr -> index into blocks
    segments = _Segments()
    handle_raw: dict[int, int] = {}
    stack: list[int] = []
    storage_of: dict[int, int | None] = {}  # tensor display id -> storage display id
    pending_view: int | None = None  # a view TensorImpl whose base is not yet known
    # a trace that records view_base says which tensor a view holds; older ones are inferred
    infer_bases = not any(e.kind == VIEW_BASE for e in trace.events)

    # the loop runs once per event: its appends bound once, a BEGIN's details made once per
    # args object (a loop shares them: columns.py; read-only, as the args themselves)
    add_delta, add_innermost, add_event_frame = deltas.append, innermost.append, event_frame.append
    details_of: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    empty: dict[str, Any] = {}
    for index, event in enumerate(trace.events):
        ph = event.ph
        if ph == BEGIN:
            args = event.args
            split = details_of.get(id(args))
            if split is None or split[1] is not args:
                split = details_of[id(args)] = (
                    {k: v for k, v in args.items() if k != "args"},
                    args,
                )
            own = len(frames)
            frames.append(
                Frame(
                    own,
                    index,
                    -1,
                    stack[-1] if stack else -1,
                    event.site,
                    event.name,
                    event.layer,
                    args.get("args", empty),
                    split[0],
                )
            )
            frame_of_begin[index] = own
            stack.append(own)
            add_event_frame(own)
            add_innermost(own)
            add_delta(_EMPTY)
            continue
        if ph == END:
            # pop to the matching frame; a stray END (no open frame) is kept as an orphan
            own = -1
            while stack:
                candidate = stack.pop()
                if frames[candidate].name == event.name or not stack:
                    own = candidate
                    break
            if own >= 0:
                frames[own].end = index
                frames[own].outcome = event.args
            add_event_frame(own)
            add_innermost(stack[-1] if stack else -1)
            add_delta(_EMPTY)
            continue
        out: list[Delta] = []
        add_event_frame(stack[-1] if stack else -1)
        if event.kind in _SEGMENT_KINDS:
            segments.apply(event, index, blocks, open_blocks, out)
        pending_view = _instant_deltas(
            event, index, ids, out, blocks, open_blocks, handle_raw, storage_of, pending_view
        )
        if not infer_bases:
            pending_view = None
        add_innermost(stack[-1] if stack else -1)
        add_delta(tuple(out) if out else _EMPTY)
    return Compiled(
        deltas,
        frames,
        frame_of_begin,
        innermost,
        event_frame,
        blocks,
        ids,
        handle_raw,
        segments.segments,
    )


def _instant_deltas(
    event: Event,
    index: int,
    ids: ObjectIds,
    out: list[Delta],
    blocks: list[Block],
    open_blocks: dict[int, int],
    handle_raw: dict[int, int],
    storage_of: dict[int, int | None],
    pending_view: int | None,
) -> int | None:
    """The deltas of one instant; returns the view still waiting for its base, if any."""
    a = event.args
    kind = event.kind
    if kind == MAKE_INTRUSIVE:
        found = ids.object(a.get("object"))
        if found is None:
            return pending_view
        table, key = found
        if table == TENSORS:
            storage = ids.object(a.get("storage"))
            base = ids.object(a.get("base"))
            row = {
                "sizes": list(a.get("sizes", [])),
                "strides": list(a.get("strides", [])),
                "offset": a.get("offset", 0),
                "dtype": a.get("dtype", "?"),
                "itemsize": a.get("itemsize", 0),
                "storage": storage[1] if storage else None,
                "refcount": a.get("refcount", 1),
                "is_view": bool(a.get("is_view")),
                "view_of": base[1] if base else None,
            }
            storage_of[key] = row["storage"]
            out.append((NEW, TENSORS, key, row))
            # Note [A view holds its base]: in a trace without view_base instants the base is
            # the TensorImpl increfed next that shares the view's storage
            if row["is_view"] and base is None:
                return key
            return None if row["is_view"] else pending_view
        out.append(
            (
                NEW,
                STORAGES,
                key,
                {
                    "nbytes": a.get("nbytes", 0),
                    "addr": a.get("addr", 0),
                    "device": a.get("device", "cpu"),
                    "refcount": a.get("refcount", 1),
                },
            )
        )
        block = open_blocks.get(a.get("addr", -1))
        if block is not None and blocks[block].storage is None:
            blocks[block].storage = key
    elif kind in (INCREF, DECREF):
        found = ids.object(a.get("object"))
        if found is None:
            return pending_view
        table, key = found
        out.append((UPDATE, table, key, {"refcount": a["refcount"]}))
        if (
            kind == INCREF
            and table == TENSORS
            and pending_view is not None
            and key != pending_view
            and storage_of.get(key) == storage_of.get(pending_view)
        ):
            out.append((UPDATE, TENSORS, pending_view, {"view_of": key}))
            return None
    elif kind == VIEW_BASE:
        view, base = ids.object(a.get("object")), ids.object(a.get("base"))
        if view is not None and view[0] == TENSORS:
            out.append(
                (
                    UPDATE,
                    TENSORS,
                    view[1],
                    {"view_of": base[1] if base is not None and base[0] == TENSORS else None},
                )
            )
            if view[1] == pending_view:
                return None
    elif kind == DELETE:
        found = ids.object(a.get("object"))
        if found is not None:
            out.append((DROP, found[0], found[1], {}))
            if found[1] == pending_view and found[0] == TENSORS:
                return None
    elif kind == TENSOR_META:
        found = ids.object(a.get("object"))
        if found is not None:
            out.append(
                (
                    UPDATE,
                    TENSORS,
                    found[1],
                    {
                        "sizes": list(a["sizes"]),
                        "strides": list(a["strides"]),
                        "offset": a["offset"],
                    },
                )
            )
    elif kind == TENSOR_STORAGE:
        found = ids.object(a.get("object"))
        storage = ids.object(a.get("storage"))
        if found is not None:
            storage_of[found[1]] = storage[1] if storage else None
            out.append((UPDATE, TENSORS, found[1], {"storage": storage_of[found[1]]}))
    elif kind == STORAGE_DATA:
        found = ids.object(a.get("object"))
        if found is not None:
            out.append(
                (
                    UPDATE,
                    STORAGES,
                    found[1],
                    {
                        "nbytes": a.get("nbytes", 0),
                        "addr": a.get("addr", 0),
                        "device": a.get("device", "cpu"),
                    },
                )
            )
            block = open_blocks.get(a.get("addr", -1))
            if block is not None:
                blocks[block].storage = found[1]
    elif kind == HANDLE_NEW:
        handle = ids.handle(a["handle"])
        handle_raw[handle] = a["handle"]
        impl = ids.object(a.get("impl"))
        out.append((NEW, HANDLES, handle, {"impl": impl[1] if impl else None}))
    elif kind == HANDLE_DEL:
        known = ids.known_handle(a["handle"])
        if known is not None:
            out.append((DROP, HANDLES, known, {}))
    elif kind in (ALLOC, FREE):
        addr = a["addr"]
        if kind == ALLOC:
            open_blocks[addr] = len(blocks)
            blocks.append(
                Block(
                    addr,
                    a["bytes"],
                    str(a.get("device", "cpu")),
                    index,
                    segment=a.get("segment"),
                    from_cache=a.get("from_cache"),
                )
            )
        else:
            block = open_blocks.pop(addr, None)
            if block is not None:
                blocks[block].free_step = index
        device = a.get("device", "cpu")
        if device == "cpu":
            out.append((UPDATE, GLOBALS, 0, {"allocated": a.get("total_allocated", 0)}))
        else:  # a caching allocator: allocated and reserved of that device
            out.append(
                (
                    UPDATE,
                    GLOBALS,
                    0,
                    {
                        f"allocated {device}": a.get("total_allocated", 0),
                        f"reserved {device}": a.get("total_reserved", 0),
                    },
                )
            )
    return pending_view
