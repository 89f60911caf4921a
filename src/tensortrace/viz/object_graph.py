"""The object graph at a step: Python handle -> TensorImpl -> StorageImpl -> DataPtr, live.

Seed 001's class diagram (TensorBase holds an intrusive_ptr<TensorImpl>, TensorImpl holds a
Storage, Storage an intrusive_ptr<StorageImpl>, StorageImpl a DataPtr) drawn for the objects a
trace has alive at one step, with their refcounts: two TensorImpls pointing at one StorageImpl
are a view and its base (Note [Views share storage]), and the dashed edge from a view to its base
is the reference that makes `del _t1` free nothing (Note [A view holds its base]). The objects
the step's event touched are outlined. PyTorch has no such picture; the C++ it draws is
`c10/core/TensorImpl.h`, `c10/core/StorageImpl.h`, `c10/core/Allocator.h` (DataPtr).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tensortrace.trace import Trace
from tensortrace.viz import svg
from tensortrace.viz.state import ImplState, ObjectState, state_from_timeline, timeline_of
from tensortrace.viz.svg import EDGE, HIGHLIGHT, INK, KIND_COLORS, MUTED, SvgPicture

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline

COLUMNS = {"handle": 20, "impl": 210, "storage": 520, "dataptr": 790}
WIDTHS = {"handle": 130, "impl": 250, "storage": 210, "dataptr": 190}
BOX_H = 64
ROW_H = 84
TOP = 62


def _fmt_list(values: list[int]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


class ObjectGraph(SvgPicture):
    """The object graph of `state` (an ObjectState); see `object_graph(trace, step)`."""

    def __init__(self, state: ObjectState, caption: str | None = None) -> None:
        self.state = state
        self.boxes: dict[str, tuple[float, float, float, float]] = {}
        body, height = self._draw(caption)
        label = f"object graph at step {state.step}"
        super().__init__(
            COLUMNS["dataptr"] + WIDTHS["dataptr"] + 20,
            height,
            body,
            defs=[svg.arrow_marker("og-arrow", INK), svg.arrow_marker("og-arrow-base", "#a23cc0")],
            label=label,
        )

    @classmethod
    def from_trace(cls, trace: Trace, step: int | None = None) -> ObjectGraph:
        return cls(state_from_timeline(timeline_of(trace), step))

    # ---- layout -------------------------------------------------------------------------------
    def _rows(self) -> tuple[dict[str, float], dict[str, float]]:
        """The y of each TensorImpl (a row each) and of each StorageImpl (its impls' mean)."""
        s = self.state
        impls = sorted(s.impls.values(), key=lambda i: _number(i.name))
        impl_y: dict[str, float] = {impl.name: TOP + k * ROW_H for k, impl in enumerate(impls)}
        storage_y: dict[str, float] = {}
        used: list[float] = []
        next_free = TOP + len(impls) * ROW_H
        for st in sorted(s.storages.values(), key=lambda x: _number(x.name)):
            ys = [impl_y[i.name] for i in impls if i.storage == st.name]
            if ys:
                y = sum(ys) / len(ys)
            else:  # an orphan storage mid-release: its own row at the bottom
                y, next_free = next_free, next_free + ROW_H
            while any(abs(y - u) < BOX_H + 8 for u in used):  # keep storages from overlapping
                y += BOX_H + 10
            used.append(y)
            storage_y[st.name] = y
        return impl_y, storage_y

    def _draw(self, caption: str | None) -> tuple[list[str], float]:
        s = self.state
        body: list[str] = []
        for kind, head in (
            ("handle", "Python handle"),
            ("impl", "TensorImpl"),
            ("storage", "StorageImpl"),
            ("dataptr", "DataPtr"),
        ):
            body.append(
                svg.text(
                    COLUMNS[kind], 24, head, 13, font_weight="bold", fill=INK, class_="column-head"
                )
            )
        body.append(svg.text(COLUMNS["handle"], 42, "Tensor.cdata", 10, **MUTED))
        body.append(svg.text(COLUMNS["impl"], 42, "intrusive_ptr<TensorImpl>", 10, **MUTED))
        body.append(svg.text(COLUMNS["storage"], 42, "Storage storage_", 10, **MUTED))
        body.append(svg.text(COLUMNS["dataptr"], 42, "DataPtr data_ptr_ (a block)", 10, **MUTED))

        impl_y, storage_y = self._rows()
        edges: list[str] = []
        boxes: list[str] = []

        for st in s.storages.values():
            y = storage_y[st.name]
            boxes.append(
                self._box(
                    "storage",
                    st.name,
                    COLUMNS["storage"],
                    y,
                    [
                        f"{st.nbytes} bytes on {st.device}",
                        f"data_ptr_ -> {hex(st.addr)}",
                    ],
                    refcount=st.refcount,
                )
            )
            live = st.addr in s.blocks
            block_name = f"block@{st.addr}"
            boxes.append(
                self._box(
                    "dataptr",
                    block_name,
                    COLUMNS["dataptr"],
                    y,
                    [
                        hex(st.addr),
                        f"{s.blocks.get(st.addr, st.nbytes)} bytes, "
                        + ("allocated" if live else "freed"),
                    ],
                    heading="DataPtr",
                    dim=not live,
                )
            )
            edges.append(self._edge(st.name, block_name))

        for impl in s.impls.values():
            y = impl_y[impl.name]
            view = "view" if impl.is_view else ""
            boxes.append(
                self._box(
                    "impl",
                    impl.name,
                    COLUMNS["impl"],
                    y,
                    [
                        f"sizes {_fmt_list(impl.sizes)} strides {_fmt_list(impl.strides)}",
                        f"offset {impl.offset}  {impl.dtype}  {view}",
                    ],
                    refcount=impl.refcount,
                )
            )
            if impl.storage in s.storages:
                edges.append(self._edge(impl.name, impl.storage))

        handles_by_impl: dict[str, list[str]] = {}
        for h in s.handles.values():
            handles_by_impl.setdefault(h.impl, []).append(h.name)
        for impl_name, names in handles_by_impl.items():
            base_y = impl_y.get(impl_name, TOP)
            for k, name in enumerate(names):
                y = base_y + k * (BOX_H / 2 + 4)
                boxes.append(
                    self._box(
                        "handle",
                        name,
                        COLUMNS["handle"],
                        y,
                        ["torch.Tensor"],
                        compact=len(names) > 1,
                    )
                )
                if impl_name in s.impls:
                    edges.append(self._edge(name, impl_name))

        for impl in s.impls.values():
            if impl.base and impl.base in s.impls:
                edges.append(self._base_edge(impl))

        height = max([TOP + ROW_H] + [b[1] + b[3] + 20 for b in self.boxes.values()])
        if not s.impls and not s.storages and not s.handles:
            body.append(
                svg.text(
                    COLUMNS["impl"],
                    TOP + 30,
                    "no tensor objects alive",
                    13,
                    **MUTED,
                    class_="empty",
                )
            )
        lines = [caption] if caption else []
        lines.append(f"step {s.step}: {s.describe_event()}")
        lines.append(
            f"allocated: {sum(s.blocks.values())} bytes in {len(s.blocks)} block"
            + ("" if len(s.blocks) == 1 else "s")
        )
        for k, content in enumerate(lines):
            body.append(svg.text(20, height + 4 + k * 18, content, 12, fill=INK, class_="caption"))
        height += 4 + len(lines) * 18 + 6
        return body + edges + boxes, height

    # ---- pieces -------------------------------------------------------------------------------
    def _box(
        self,
        kind: str,
        name: str,
        x: float,
        y: float,
        lines: list[str],
        refcount: int | None = None,
        heading: str | None = None,
        dim: bool = False,
        compact: bool = False,
    ) -> str:
        w, h = WIDTHS[kind], (BOX_H / 2 if compact else BOX_H)
        self.boxes[name] = (x, y, w, h)
        fill, stroke = KIND_COLORS[kind]
        focus = name in self.state.focus
        classes = f"node {kind}" + (" focus" if focus else "") + (" dim" if dim else "")
        parts = [
            svg.rect(
                x,
                y,
                w,
                h,
                rx=6,
                fill=stroke if not dim else "none",
                fill_opacity=0.13,
                stroke=HIGHLIGHT if focus else stroke,
                stroke_width=3 if focus else 1.5,
                stroke_dasharray="4 3" if dim else None,
            )
        ]
        parts.append(svg.text(x + 8, y + 17, heading or name, 13, font_weight="bold", fill=INK))
        if not compact:
            for k, content in enumerate(lines):
                parts.append(svg.text(x + 8, y + 35 + k * 15, content, 10.5, fill=INK))
        if refcount is not None:
            bx = x + w - 78
            parts.append(
                svg.rect(
                    bx, y + 5, 72, 17, rx=8, fill="none", stroke=stroke, class_="refcount-badge"
                )
            )
            parts.append(
                svg.text(
                    bx + 36,
                    y + 17.5,
                    f"refcount {refcount}",
                    10.5,
                    "middle",
                    class_="refcount",
                    fill=INK,
                )
            )
        parts.append(svg.title(f"{name}: " + "; ".join(lines)))
        return svg.group(
            parts,
            class_=classes,
            data_object=name,
            data_refcount=refcount if refcount is not None else None,
        )

    def _edge(self, src: str, dst: str) -> str:
        x1, y1, w1, h1 = self.boxes[src]
        x2, y2, _, h2 = self.boxes[dst]
        sx, sy, ex, ey = x1 + w1, y1 + h1 / 2, x2 - 2, y2 + h2 / 2
        mid = (sx + ex) / 2
        return svg.path(
            f"M {sx:.1f} {sy:.1f} C {mid:.1f} {sy:.1f} {mid:.1f} {ey:.1f} {ex:.1f} {ey:.1f}",
            fill="none",
            **EDGE,
            stroke_width=1.5,
            marker_end="url(#og-arrow)",
            class_="edge",
            data_src=src,
            data_dst=dst,
        )

    def _base_edge(self, view: ImplState) -> str:
        """The view's hold on its base: a dashed curve left of the TensorImpl column."""
        x1, y1, _, h1 = self.boxes[view.name]
        x2, y2, _, h2 = self.boxes[str(view.base)]
        sy, ey = y1 + h1 / 2 + 8, y2 + h2 / 2 + 8
        bulge = x1 - 40
        return svg.group(
            [
                svg.path(
                    f"M {x1:.1f} {sy:.1f} C {bulge:.1f} {sy:.1f} {bulge:.1f} {ey:.1f} "
                    f"{x1 - 1:.1f} {ey:.1f}",
                    fill="none",
                    stroke="#a23cc0",
                    stroke_width=1.5,
                    stroke_dasharray="5 4",
                    marker_end="url(#og-arrow-base)",
                ),
                svg.text(bulge + 6, (sy + ey) / 2 + 4, "base_", 10, fill=INK),
            ],
            class_="edge base",
            data_src=view.name,
            data_dst=str(view.base),
        )


def _number(name: str) -> int:
    try:
        return int(name.rsplit("#", 1)[1])
    except (IndexError, ValueError):
        return 0


def object_graph(source: Trace | Timeline, step: int | None = None) -> ObjectGraph:
    """The object graph at `step` (default: the last) of a Trace or of the replay's Timeline.

    A Trace is replayed by a Timeline built here; pass the Timeline to draw many steps.
    """
    return ObjectGraph(state_from_timeline(timeline_of(source), step))
