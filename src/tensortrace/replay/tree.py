"""The call-stack tree of a trace, drawn with rich: every frame, colored by layer.

Like the tree views of torch.profiler's viewers, but with each frame's PyTorch counterpart (the
source file and C++ symbol it models, and the 2019 name seed 000 gives it) and the instants
(allocations, frees, refcount changes, handles) in place. `--layers` in the CLI hides layers:
a hidden frame's children move up to its nearest shown ancestor, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text
from rich.tree import Tree

from tensortrace.replay.state import ObjectIds
from tensortrace.trace import LAYERS, Event, FrameNode, Trace
from tensortrace.trace.schema import (
    ALLOC,
    DECREF,
    DELETE,
    FREE,
    HANDLE_DEL,
    HANDLE_NEW,
    INCREF,
    MAKE_INTRUSIVE,
    STATEMENT,
)

LAYER_STYLES: dict[str, str] = {
    "python": "bold bright_blue",
    "dispatch": "bold magenta",
    "autograd": "bold yellow",
    "native": "bold green",
    "kernel": "bold red",
    "allocator": "bold cyan",
    "refcount": "bright_black",
}

INSTANT_LAYER = {
    "alloc": "allocator",
    "free": "allocator",
    "make_intrusive": "refcount",
    "incref": "refcount",
    "decref": "refcount",
    "delete": "refcount",
    "handle_new": "python",
    "handle_del": "python",
    "statement": "python",
    "names": "python",
    "tensor_meta": "native",
    "tensor_storage": "native",
    "storage_data": "native",
    "view_base": "autograd",
}

# instants that only restate what a frame already says: kept in the data, not drawn
QUIET_INSTANTS = frozenset({"names", "tensor_meta", "tensor_storage", "storage_data"})


def frame_label(node: FrameNode, show_pytorch: bool = True) -> Text:
    """One frame on one line: a narrow terminal crops it with an ellipsis, never wraps it."""
    label = Text(
        node.name, style=LAYER_STYLES.get(node.layer, ""), no_wrap=True, overflow="ellipsis"
    )
    label.append(f"  [{node.layer}]", style="dim")
    if "dispatch_key" in node.details:
        label.append(
            f"  {node.details.get('dispatch_key_set')} → {node.details['dispatch_key']}",
            style="magenta",
        )
    error = node.outcome.get("error")
    if error:
        label.append(f"  ✗ {error}", style="bold red")
    if show_pytorch and node.site is not None:
        label.append(f"  {node.site.source}", style="dim italic")
        if node.site.symbol != node.name:
            label.append(f" :: {node.site.symbol}", style="dim italic")
        if node.site.legacy:
            label.append(f"  (2019: {node.site.legacy})", style="dim")
    return label


def instant_label(event: Event, ids: ObjectIds | None = None) -> Text:
    """One instant as a line; `ids` renumbers objects per trace, as the Timeline does."""
    a = event.args
    kind = event.kind
    style = LAYER_STYLES.get(INSTANT_LAYER.get(kind, ""), "")
    ref = ids.display if ids is not None else str  # references renumbered per trace
    if kind == ALLOC:
        text = f"+ alloc {a['bytes']} B at {a['addr']:#x}  (allocated: {a['total_allocated']} B)"
    elif kind == FREE:
        text = f"- free {a['bytes']} B at {a['addr']:#x}  (allocated: {a['total_allocated']} B)"
    elif kind == MAKE_INTRUSIVE:
        text = f"make_intrusive {ref(a['object'])}  refcount=1"
    elif kind in (INCREF, DECREF):
        arrow = "↑" if kind == INCREF else "↓"
        text = f"{kind} {ref(a['object'])} {arrow} refcount={a['refcount']}"
    elif kind == DELETE:
        text = f"delete {ref(a['object'])}"
    elif kind == HANDLE_NEW:
        text = (
            f"new Python handle _h{a['handle']} -> {ref(a['impl'])} {a.get('sizes')} "
            f"{a.get('dtype')}"
        )
    elif kind == HANDLE_DEL:
        text = f"Python handle _h{a['handle']} dies -> {ref(a['impl'])}"
    elif kind == STATEMENT:
        text = f"line {a['lineno']}: {a['source']}"
    else:
        text = f"{kind} {ref(event.name)}"
    return Text(
        ("• " if kind != STATEMENT else "▶ ") + text, style=style, no_wrap=True, overflow="ellipsis"
    )


def _visible(layer: str, layers: Collection[str] | None) -> bool:
    return layers is None or layer in layers


def _add_node(
    parent: Tree,
    node: FrameNode,
    layers: Collection[str] | None,
    show_pytorch: bool,
    show_instants: bool,
    ids: ObjectIds,
) -> None:
    if node.site is None:  # a lone instant outside any frame
        for event in node.instants:
            _add_instant(parent, event, layers, show_instants, ids)
        return
    target = parent
    if _visible(node.layer, layers):
        target = parent.add(frame_label(node, show_pytorch))
    for child in node.items:
        if isinstance(child, FrameNode):
            _add_node(target, child, layers, show_pytorch, show_instants, ids)
        else:
            _add_instant(target, child, layers, show_instants, ids)


def _add_instant(
    parent: Tree, event: Event, layers: Collection[str] | None, show_instants: bool, ids: ObjectIds
) -> None:
    if not show_instants or event.kind in QUIET_INSTANTS:
        return
    if _visible(INSTANT_LAYER.get(event.kind, event.layer), layers):
        parent.add(instant_label(event, ids))


def trace_ids(trace: Trace) -> ObjectIds:
    """Per-trace object numbers in order of appearance: the same ones the Timeline shows."""
    ids = ObjectIds()
    for event in trace.events:
        if event.ph == "i":
            ids.object(event.args.get("object"))
    return ids


def render_tree(
    trace: Trace,
    layers: Collection[str] | None = None,
    show_pytorch: bool = True,
    show_instants: bool = True,
    title: str = "tensortrace",
) -> Tree:
    """The whole trace as one rich Tree. `layers` limits what is drawn (None: all)."""
    unknown = set(layers or ()) - set(LAYERS)
    if unknown:
        raise ValueError(f"unknown layer(s) {sorted(unknown)}; choose from {', '.join(LAYERS)}")
    root = Tree(Text(title, style="bold"), guide_style="bright_black")
    ids = trace_ids(trace)
    for node in trace.roots():
        _add_node(root, node, layers, show_pytorch, show_instants, ids)
    return root
