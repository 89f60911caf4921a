"""The autograd graph a trace recorded: Backward nodes, their edges, AccumulateGrad, saved tensors.

Seed 004's picture (`a + b` records an AddGradFunction holding its inputs' edges; backward()
walks from the loss to the leaves, where the gradients accumulate), drawn from the `grad_fn`
instants the autograd kernel records (autograd/graph_record.py), so it needs only a finished
trace. Each node is a box: its name (`MulBackward0`), sequence number, the tensors it saved
(`self = TensorImpl#3 (version 0)`) and the tensor whose grad_fn it is; an arrow goes from a node
to each of its next_edges (labelled with the input_nr), down to the leaves' AccumulateGrad
nodes. The root (the loss's node) is on top, as torchviz draws it. When the trace also ran
backward(), the nodes the engine evaluated up to `step` are filled, with their order of
evaluation. Sequence numbers and TensorImpls are numbered within the trace, as the Timeline
numbers objects, so a picture does not depend on what the process ran before. PyTorch's
counterpart is the graph `torch/csrc/autograd/function.h` holds (Node, Edge, SavedVariable),
which torchviz draws from the live objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tensortrace.trace import Trace
from tensortrace.trace.events import BEGIN, INSTANT
from tensortrace.trace.schema import GRAD_FN
from tensortrace.viz import svg
from tensortrace.viz.state import timeline_of
from tensortrace.viz.svg import EDGE, HIGHLIGHT, INK, LAYER_COLORS, MUTED, SvgPicture

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline

BOX_W = 250
ROW_H = 120
COL_W = 280
TOP = 50
LEFT = 20
ACCUMULATE = "torch::autograd::AccumulateGrad"
EVALUATE = "autograd::engine::evaluate_function: "
_SUMMARY = re.compile(r"^(?P<name>.+)\(sequence_nr=(?P<seq>\d+)\)$")
_ACCUMULATE_SUMMARY = re.compile(r"^torch::autograd::AccumulateGrad\(variable=(?P<variable>.+)\)$")


@dataclass
class GraphNode:
    """One Node of the recorded graph, as the trace describes it."""

    label: str  # unique in the trace: MulBackward0#12, AccumulateGrad(TensorImpl#3)
    name: str  # Node::name(): MulBackward0, torch::autograd::AccumulateGrad
    sequence_nr: int | None
    edges: list[tuple[str | None, int]] = field(default_factory=list)  # (target label, input_nr)
    saved: dict[str, Any] = field(default_factory=dict)
    outputs: list[str | None] = field(default_factory=list)  # grad_fn of these TensorImpls
    variable: str | None = None  # AccumulateGrad: the leaf it accumulates into
    order: int | None = None  # the engine evaluated it this many-th (1-based), if it did

    @property
    def is_leaf_accumulator(self) -> bool:
        return self.variable is not None


def graph_nodes(trace: Trace, step: int | None = None) -> dict[str, GraphNode]:
    """The nodes recorded up to `step` (default: the whole trace), with their evaluation order."""
    last = len(trace.events) - 1 if step is None else step
    nodes: dict[str, GraphNode] = {}
    evaluated: list[str] = []
    for e in trace.events[: last + 1]:
        if e.ph == INSTANT and e.kind == GRAD_FN:
            a = e.args
            node = GraphNode(
                a["node"],
                a["name"],
                a["sequence_nr"],
                [(t, nr) for t, nr, _ in a["next_edges"]],
                dict(a["saved"]),
                list(a["outputs"]),
            )
            nodes[node.label] = node
            for target, _nr, name in a["next_edges"]:
                if name == ACCUMULATE and target not in nodes:
                    leaf = target[len("AccumulateGrad(") : -1]
                    nodes[target] = GraphNode(target, ACCUMULATE, None, variable=leaf)
        elif e.ph == BEGIN and e.name.startswith(EVALUATE):
            evaluated.append(_evaluated_label(e.args, e.name[len(EVALUATE) :]))
    for k, label in enumerate(evaluated, 1):
        if label in nodes and nodes[label].order is None:
            nodes[label].order = k
    return _renumbered(nodes)


def _renumbered(nodes: dict[str, GraphNode]) -> dict[str, GraphNode]:
    """Sequence numbers count from 0 within the trace (the process-wide counter depends on
    what ran before), as the Timeline renumbers TensorImpls: MulBackward0#1 is the trace's
    second Node, whatever the process made earlier."""
    numbers = sorted({n.sequence_nr for n in nodes.values() if n.sequence_nr is not None})
    local = {seq: k for k, seq in enumerate(numbers)}
    relabel = {
        n.label: (f"{n.name}#{local[n.sequence_nr]}" if n.sequence_nr is not None else n.label)
        for n in nodes.values()
    }
    out: dict[str, GraphNode] = {}
    for n in nodes.values():
        n.label = relabel[n.label]
        n.sequence_nr = local.get(n.sequence_nr) if n.sequence_nr is not None else None
        n.edges = [(relabel.get(t, t) if t is not None else None, nr) for t, nr in n.edges]
        out[n.label] = n
    return out


def _evaluated_label(args: dict[str, Any], name: str) -> str:
    """The label of the node an evaluate_function frame ran (AccumulateGrad: by its leaf)."""
    summary = (args.get("args") or {}).get("node", "")
    m = _ACCUMULATE_SUMMARY.match(summary)
    if m:
        return f"AccumulateGrad({m.group('variable')})"
    m = _SUMMARY.match(summary)
    return f"{m.group('name')}#{m.group('seq')}" if m else name


class AutogradGraph(SvgPicture):
    """The autograd graph of `nodes` (see `autograd_graph(trace, step)`)."""

    def __init__(
        self, nodes: dict[str, GraphNode], rename: Any = None, caption: str | None = None
    ) -> None:
        self.nodes = nodes
        self.rename = rename or (lambda text: text)
        self.boxes: dict[str, tuple[float, float, float, float]] = {}
        body, width, height = self._draw(caption)
        super().__init__(
            width, height, body, defs=[svg.arrow_marker("ag-arrow", INK)], label="autograd graph"
        )

    @classmethod
    def from_trace(
        cls, trace: Trace | Timeline, step: int | None = None, caption: str | None = None
    ) -> AutogradGraph:
        timeline = timeline_of(trace)
        return cls(graph_nodes(timeline.trace, step), timeline.rename, caption)

    # ---- layout -------------------------------------------------------------------------------
    def _layers(self) -> list[list[GraphNode]]:
        """Rows from the roots down: a node sits one row below the lowest node pointing at it."""
        # a node's inputs were made before it: decreasing sequence numbers are a topological
        # order, with the leaves' accumulators (no number) last
        order = sorted(
            self.nodes.values(),
            key=lambda n: (n.sequence_nr is None, -(n.sequence_nr or 0), n.label),
        )
        depth: dict[str, int] = {n.label: 0 for n in order}
        for node in order:
            for target, _ in node.edges:
                if target in depth:
                    depth[target] = max(depth[target], depth[node.label] + 1)
        rows: list[list[GraphNode]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
        for node in order:
            rows[depth[node.label]].append(node)
        return rows

    def _draw(self, caption: str | None) -> tuple[list[str], float, float]:
        rows = self._layers()
        widest = max((len(r) for r in rows), default=1)
        width = LEFT * 2 + max(widest, 1) * COL_W
        boxes: list[str] = []
        for r, row in enumerate(rows):
            offset = (width - len(row) * COL_W) / 2
            for c, node in enumerate(row):
                boxes.append(
                    self._box(node, offset + c * COL_W + (COL_W - BOX_W) / 2, TOP + r * ROW_H)
                )
        edges = [
            self._edge(node.label, target, nr)
            for node in self.nodes.values()
            for target, nr in node.edges
            if target is not None and target in self.boxes
        ]
        body = [
            svg.text(
                LEFT, 24, "autograd graph", 13, font_weight="bold", fill=INK, class_="column-head"
            ),
            svg.text(
                LEFT + 130,
                24,
                "grad_fn -> next_functions (input_nr), leaves at the bottom",
                10.5,
                **MUTED,
            ),
        ]
        height = TOP + max(len(rows), 1) * ROW_H
        if not self.nodes:
            body.append(
                svg.text(LEFT, TOP + 30, "no autograd graph recorded", 13, **MUTED, class_="empty")
            )
        ran = sorted(
            (n for n in self.nodes.values() if n.order is not None), key=lambda n: n.order or 0
        )
        lines = [caption] if caption else []
        if ran:  # the engine's order, a few nodes a line
            names = [self._short(n) for n in ran]
            for k in range(0, len(names), 3):
                head = "backward evaluated: " if k == 0 else "    "
                tail = " ->" if k + 3 < len(names) else ""
                lines.append(head + " -> ".join(names[k : k + 3]) + tail)
        for k, content in enumerate(lines):
            body.append(svg.text(LEFT, height + k * 18, content, 12, fill=INK, class_="caption"))
        height += len(lines) * 18 + 10
        return body + edges + boxes, width, height

    # ---- pieces -------------------------------------------------------------------------------
    def _short(self, node: GraphNode) -> str:
        if node.is_leaf_accumulator:
            return f"AccumulateGrad({self.rename(node.variable or '')})"
        return node.name

    def _lines(self, node: GraphNode) -> list[str]:
        if node.is_leaf_accumulator:
            return [f"leaf: {self.rename(node.variable or '')}", ".grad accumulates here"]
        lines = [f"sequence_nr {node.sequence_nr}"]
        outputs = [self.rename(o) for o in node.outputs if o]
        if outputs:
            lines.append("grad_fn of " + ", ".join(outputs))
        for name, value in sorted(node.saved.items()):
            if isinstance(value, dict) and "tensor" in value:
                tag = "result" if value.get("is_output") else "saved"
                lines.append(
                    f"{tag} {name} = {self.rename(value['tensor'] or 'undefined')} "
                    f"(v{value.get('version')})"
                )
        others = [
            f"{k}={v}" for k, v in sorted(node.saved.items()) if not isinstance(v, (dict, list))
        ]
        if others:
            lines.append(", ".join(others))
        return lines

    def _box(self, node: GraphNode, x: float, y: float) -> str:
        lines = self._lines(node)
        h = 26 + 14 * min(len(lines), 5)
        self.boxes[node.label] = (x, y, BOX_W, h)
        kind = "accumulate" if node.is_leaf_accumulator else "backward"
        ran = node.order is not None
        fill = LAYER_COLORS["autograd"] if kind == "backward" else LAYER_COLORS["native"]
        stroke = LAYER_COLORS["autograd"] if kind == "backward" else LAYER_COLORS["native"]
        classes = f"node {kind}" + (" ran" if ran else "")
        title = node.name if not node.is_leaf_accumulator else "AccumulateGrad"
        parts = [
            svg.rect(
                x,
                y,
                BOX_W,
                h,
                rx=6,
                fill=fill,
                fill_opacity=0.22 if ran else 0.1,
                stroke=HIGHLIGHT if ran else stroke,
                stroke_width=2.5 if ran else 1.5,
            ),
            svg.text(x + 8, y + 17, title, 12.5, font_weight="bold", fill=INK),
        ]
        for k, content in enumerate(lines[:5]):
            parts.append(svg.text(x + 8, y + 33 + k * 14, _clip(content), 10, fill=INK))
        if ran:
            parts.append(
                svg.rect(
                    x + BOX_W - 34,
                    y + 5,
                    28,
                    16,
                    rx=8,
                    fill="none",
                    stroke=HIGHLIGHT,
                    class_="order-badge",
                )
            )
            parts.append(
                svg.text(
                    x + BOX_W - 20, y + 17, f"#{node.order}", 10, "middle", class_="order", fill=INK
                )
            )
        parts.append(svg.title(f"{self.rename(node.label)}: " + "; ".join(lines)))
        return svg.group(
            parts,
            class_=classes,
            data_node=self.rename(node.label),
            data_name=node.name,
            data_order=node.order,
        )

    def _edge(self, src: str, dst: str, input_nr: int) -> str:
        x1, y1, w1, h1 = self.boxes[src]
        x2, y2, w2, _ = self.boxes[dst]
        sx, sy, ex, ey = x1 + w1 / 2, y1 + h1, x2 + w2 / 2, y2 - 2
        mid = (sy + ey) / 2
        n = svg._n
        d = f"M {n(sx)} {n(sy)} C {n(sx)} {n(mid)} {n(ex)} {n(mid)} {n(ex)} {n(ey)}"
        return svg.group(
            [
                svg.path(d, fill="none", **EDGE, stroke_width=1.4, marker_end="url(#ag-arrow)"),
                svg.text((sx + ex) / 2 + 4, mid - 3, str(input_nr), 9.5, **MUTED),
            ],
            class_="edge",
            data_src=self.rename(src),
            data_dst=self.rename(dst),
            data_input_nr=input_nr,
        )


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def autograd_graph(
    source: Trace | Timeline, step: int | None = None, caption: str | None = None
) -> AutogradGraph:
    """The autograd graph recorded in a trace up to `step` (default: all of it)."""
    return AutogradGraph.from_trace(source, step, caption)
