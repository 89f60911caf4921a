"""One line for each event of a trace: what just happened, as the player and the CLI say it.

No PyTorch counterpart: torch.profiler's viewers show an event's name and its fields; this says
it as a sentence (`+ alloc 48 B at 0x... (allocated: 96 B)`, `incref TensorImpl#1 -> refcount
2`, `new Python handle x -> TensorImpl#1 [3, 4] Float`), with the trace's own numbering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tensortrace.replay.snapshot import dims, shorten
from tensortrace.trace.events import BEGIN, END
from tensortrace.trace.schema import (
    ALLOC,
    DECREF,
    DELETE,
    FREE,
    FREE_COMPLETED,
    HANDLE_DEL,
    HANDLE_NEW,
    INCREF,
    MAKE_INTRUSIVE,
    NAMES,
    OOM,
    SEGMENT_ALLOC,
    SEGMENT_FREE,
    SPLIT,
    STATEMENT,
    STORAGE_DATA,
    TENSOR_META,
    TENSOR_STORAGE,
    VIEW_BASE,
)

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline


def describe_event(timeline: Timeline, step: int) -> str:
    """One line for the event at `step`: what just happened."""
    event = timeline.trace.events[timeline._check(step)]
    a = event.args
    ids = timeline.compiled.ids
    if event.ph == BEGIN:
        frame = timeline.compiled.frames[timeline.compiled.frame_of_begin[step]]
        return f"→ {event.name}({timeline.stack_frame(frame.index).args_text()})"
    if event.ph == END:
        if "error" in a:
            return f"✗ {event.name} raised {shorten(str(a['error']))}"
        return f"← {event.name} returned {timeline.format_value(a.get('result'))}"
    kind = event.kind
    if kind in (ALLOC, FREE) and "total_reserved" in a and a.get("device") != "cpu":
        sign = "+" if kind == ALLOC else "-"
        where = (
            " from the cache"
            if a.get("from_cache")
            else " in a new segment"
            if kind == ALLOC
            else " (waits for other streams)"
            if a.get("deferred")
            else " back to the cache"
        )
        return (
            f"{sign} {kind} {a['bytes']} B at {a['addr']:#x} on {a['device']}{where} "
            f"(allocated: {a['total_allocated']} B, reserved: {a['total_reserved']} B)"
        )
    if kind in (ALLOC, FREE):
        sign = "+" if kind == ALLOC else "-"
        return (
            f"{sign} {kind} {a['bytes']} B at {a['addr']:#x} (allocated: {a['total_allocated']} B)"
        )
    if kind in (SEGMENT_ALLOC, SEGMENT_FREE):
        verb = "cudaMalloc" if kind == SEGMENT_ALLOC else "cudaFree"
        return (
            f"{verb}: {a.get('pool')} segment of {a['bytes']} B at {a['addr']:#x} "
            f"on {a.get('device')} (reserved: {a.get('total_reserved')} B)"
        )
    if kind == SPLIT:
        return (
            f"split: {a['bytes']} B at {a['addr']:#x}, remainder {a['remainder_bytes']}"
            f" B at {a['remainder_addr']:#x} stays cached"
        )
    if kind == FREE_COMPLETED:
        return f"free completed: {a['bytes']} B at {a['addr']:#x} is cached for reuse"
    if kind == OOM:
        return (
            f"out of memory: {a['bytes']} B requested on {a['device']}, {a['device_free']} B free"
        )
    if kind in (MAKE_INTRUSIVE, INCREF, DECREF):
        return f"{kind} {ids.display(a['object'])} → refcount {a['refcount']}"
    if kind == DELETE:
        return f"delete {ids.display(a['object'])}"
    if kind == VIEW_BASE:
        return f"{ids.display(a['object'])} is a view of {ids.display(a['base'])} (holds it)"
    if kind == HANDLE_NEW:
        handle = ids.known_handle(a["handle"])
        return (
            f"new Python handle {timeline.names(handle or 0)} → {ids.display(a['impl'])} "
            f"{dims(a.get('sizes', []))} {a.get('dtype', '')}"
        )
    if kind == HANDLE_DEL:
        handle = ids.known_handle(a["handle"])
        return f"Python handle {timeline.names(handle or 0)} dies → {ids.display(a['impl'])}"
    if kind == STATEMENT:
        return f"▶ line {a.get('lineno')}: {shorten(str(a.get('source', '')))}"
    if kind == TENSOR_META:
        return (
            f"{ids.display(a['object'])}: sizes={dims(a['sizes'])} "
            f"strides={dims(a['strides'])} offset={a['offset']}"
        )
    if kind == TENSOR_STORAGE:
        return f"{ids.display(a['object'])} now uses {ids.display(a.get('storage') or '')}"
    if kind == STORAGE_DATA:
        return f"{ids.display(a['object'])}: {a.get('nbytes')} B at {a.get('addr', 0):#x}"
    if kind == NAMES:
        return "user variables: " + ", ".join(
            n for names in a.get("names", {}).values() for n in names
        )
    return f"{kind} {event.name}"
