"""The allocator's memory map over time: blocks by address against the step they live through.

The picture torch.cuda.memory's snapshot viewer (`torch/cuda/_memory_viz.py`, "Active Memory
Timeline") and the profiler's memory timeline draw, for the CPU allocator of one trace: each
allocator block is a bar on its address's lane, from the step of its `alloc` to the step of its
`free` (or to the end, open, if it survives), named by the StorageImpl that owns it; above it the
total allocated, as the `[memory]` events' "Total Allocated" reports it. Lanes are in address
order but not to scale: real addresses are megabytes apart, and 48-byte blocks drawn to scale
would be invisible. A block's height grows with the log of its size. A `step` draws a cursor and
marks the blocks alive at that step. The blocks and their owners are the replay's Timeline's
(`Compiled.blocks`), named with its numbering.

For a trace with the CUDA caching allocator, two more panels follow: reserved against allocated
bytes of each CUDA device over the steps (the gap is the cache), and the segments alive at the
step, each drawn to its own scale with its blocks at their offsets, as torch's memory_viz
"Allocator State History" does: allocated, pending free (waiting on another stream), and cached
(split remainders and freed blocks kept for reuse). A block whose request was served from the
cache is marked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tensortrace.trace import Trace
from tensortrace.trace.schema import ALLOC, FREE, SEGMENT_ALLOC, SEGMENT_FREE
from tensortrace.viz import svg
from tensortrace.viz.state import timeline_of
from tensortrace.viz.svg import HIGHLIGHT, INK, LAYER_COLORS, MUTED, SOFT, SvgPicture

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline

LEFT = 210
RIGHT = 30
PLOT_W = 640
CHART_H = 70
TOP = 30
SEG_H = 18  # the height of one segment's row


@dataclass
class Block:
    addr: int
    nbytes: int
    start: int  # index of the alloc event
    end: int | None  # index of the free event; None if alive at the end of the trace
    owner: str  # the StorageImpl that got this memory ("" if none recorded)

    def alive_at(self, step: int) -> bool:
        return self.start <= step and (self.end is None or step < self.end)


def blocks_of(source: Trace | Timeline) -> list[Block]:
    """Every allocator block of the trace, in allocation order, with its lifetime and owner."""
    return [
        Block(
            b.addr,
            b.bytes,
            b.alloc_step,
            b.free_step,
            f"StorageImpl#{b.storage}" if b.storage is not None else "",
        )
        for b in timeline_of(source).compiled.blocks
    ]


class MemoryMap(SvgPicture):
    """Blocks (lanes by address) against steps, with the total allocated above."""

    def __init__(self, source: Trace | Timeline, step: int | None = None) -> None:
        timeline = timeline_of(source)
        self.timeline = timeline
        self.trace = timeline.trace
        self.step = step
        self.blocks = blocks_of(timeline)
        body, height = self._draw()
        if timeline.compiled.segments:
            height = self._draw_caching_allocator(body, height)
        super().__init__(
            LEFT + PLOT_W + RIGHT,
            height,
            body,
            label=f"memory map of {len(self.blocks)} allocator blocks",
        )

    def _x(self, index: float) -> float:
        n = max(len(self.trace.events) - 1, 1)
        return LEFT + PLOT_W * index / n

    def _draw(self) -> tuple[list[str], float]:
        body: list[str] = []
        events = self.trace.events
        last = max(len(events) - 1, 0)
        cuda_only = bool(self.blocks) and all(
            b.device != "cpu" for b in self.timeline.compiled.blocks
        )
        body.append(
            svg.text(
                12,
                18,
                f"{'CUDA' if cuda_only else 'CPU'} allocator: blocks by "
                "address over the trace's steps",
                13,
                font_weight="bold",
                class_="title",
            )
        )

        # total allocated, a step line as torch.profiler's memory counter
        memory = [
            (i, e)
            for i, e in enumerate(events)
            if e.kind in (ALLOC, FREE)
            and e.args.get("device", "cpu") == ("cpu" if not cuda_only else "cuda:0")
        ]
        peak = max([e.args.get("total_allocated", 0) for _, e in memory] + [1])
        base_y = TOP + CHART_H
        body.append(svg.text(12, TOP + 14, "total allocated", 11, **SOFT))
        body.append(svg.text(12, TOP + 30, f"peak {peak} bytes", 10, **MUTED, class_="peak"))
        d = f"M {LEFT} {base_y}"
        for i, e in memory:
            y = base_y - (CHART_H - 10) * e.args.get("total_allocated", 0) / peak
            d += f" H {self._x(i):.1f} V {y:.1f}"
        d += f" H {self._x(last):.1f}"
        body.append(svg.line(LEFT, base_y, LEFT + PLOT_W, base_y, stroke=INK, stroke_opacity=0.35))
        body.append(
            svg.path(
                d,
                fill="none",
                stroke=LAYER_COLORS["allocator"],
                stroke_width=2,
                class_="total-allocated",
            )
        )

        # one lane per distinct address, lowest address on top
        addrs = sorted({b.addr for b in self.blocks})
        lane_h = {a: max(self._height(b.nbytes) for b in self.blocks if b.addr == a) for a in addrs}
        y = base_y + 24
        lane_y: dict[int, float] = {}
        for a in addrs:
            lane_y[a] = y
            y += lane_h[a] + 10
        for a in addrs:
            ly = lane_y[a]
            body.append(
                svg.text(
                    LEFT - 8,
                    ly + lane_h[a] / 2 + 4,
                    hex(a),
                    10.5,
                    "end",
                    **SOFT,
                    class_="lane-label",
                )
            )
            body.append(
                svg.line(
                    LEFT,
                    ly + lane_h[a] / 2,
                    LEFT + PLOT_W,
                    ly + lane_h[a] / 2,
                    stroke=INK,
                    stroke_opacity=0.12,
                )
            )
        for b in self.blocks:
            body.append(self._block(b, lane_y[b.addr], lane_h[b.addr], last))
        if not self.blocks:
            body.append(
                svg.text(LEFT, y + 10, "no allocations in this trace", 12, **MUTED, class_="empty")
            )
            y += 24

        # x axis: the top-level Python calls, where each statement's work begins
        axis_y = y + 4
        body.append(svg.line(LEFT, axis_y, LEFT + PLOT_W, axis_y, stroke=INK, stroke_opacity=0.55))
        for k, (i, label) in enumerate(_top_level_calls(self.trace)):
            x = self._x(i)
            body.append(svg.line(x, axis_y, x, axis_y + 5, stroke=INK, stroke_opacity=0.55))
            body.append(
                svg.text(
                    x, axis_y + 17 + (k % 2) * 12, label, 10, "middle", **SOFT, class_="call-label"
                )
            )
        height = axis_y + 44
        body.append(svg.text(LEFT, height - 4, f"step (event index, 0 .. {last})", 10, **MUTED))

        if self.step is not None:
            x = self._x(self.step)
            body.append(
                svg.line(
                    x,
                    TOP,
                    x,
                    axis_y,
                    stroke=HIGHLIGHT,
                    stroke_width=2,
                    class_="cursor",
                    data_step=self.step,
                )
            )
        return body, height + 6

    def _draw_caching_allocator(self, body: list[str], top: float) -> float:
        """Reserved vs allocated per CUDA device over the steps, then the segments at the step."""
        events = self.trace.events
        last = max(len(events) - 1, 0)
        y = top + 10
        body.append(
            svg.text(
                12,
                y + 8,
                "CUDA caching allocator: reserved vs allocated",
                13,
                font_weight="bold",
                class_="title",
            )
        )
        y += 20
        series: dict[str, list[tuple[int, int, int]]] = {}  # device -> (step, allocated, reserved)
        for i, e in enumerate(events):
            a = e.args
            device = a.get("device", "cpu")
            if device == "cpu" or e.kind not in (ALLOC, FREE, SEGMENT_ALLOC, SEGMENT_FREE):
                continue
            prev = series.setdefault(device, [(0, 0, 0)])[-1]
            series[device].append(
                (i, a.get("total_allocated", prev[1]), a.get("total_reserved", prev[2]))
            )
        for device, points in sorted(series.items()):
            peak = max([r for _, _, r in points] + [1])
            base_y = y + CHART_H
            body.append(svg.text(12, y + 14, f"{device}", 11, **SOFT))
            body.append(
                svg.text(12, y + 30, f"peak reserved {peak} B", 10, **MUTED, class_="peak-reserved")
            )
            for what, k, color in (
                ("reserved", 2, "#9aa7b5"),
                ("allocated", 1, LAYER_COLORS["allocator"]),
            ):
                d = f"M {LEFT} {base_y}"
                for point in points:
                    level = base_y - (CHART_H - 10) * point[k] / peak
                    d += f" H {self._x(point[0]):.1f} V {level:.1f}"
                d += f" H {self._x(last):.1f}"
                body.append(
                    svg.path(
                        d,
                        fill="none",
                        stroke=color,
                        stroke_width=2,
                        class_=f"total-{what}",
                        data_device=device,
                    )
                )
            body.append(
                svg.line(LEFT, base_y, LEFT + PLOT_W, base_y, stroke=INK, stroke_opacity=0.35)
            )
            y = base_y + 14
        if self.step is not None:
            body.append(
                svg.line(
                    self._x(self.step),
                    top + 30,
                    self._x(self.step),
                    y,
                    stroke=HIGHLIGHT,
                    stroke_width=2,
                    class_="cursor",
                )
            )

        step = self.step if self.step is not None else last
        state = self.timeline.state_at(step)
        served = events[step].args if events[step].kind == ALLOC else {}
        y += 12
        body.append(
            svg.text(
                12,
                y + 8,
                f"segments at step {step} ({len(state.segments)} "
                "live): allocated, pending free, cached",
                13,
                font_weight="bold",
                class_="title",
            )
        )
        y += 20
        for seg in state.segments:
            body.append(
                svg.text(
                    LEFT - 8,
                    y + SEG_H / 2 + 4,
                    f"{seg.pool} {seg.bytes} B {hex(seg.addr)}",
                    10,
                    "end",
                    **SOFT,
                    class_="segment-label",
                )
            )
            parts = [svg.rect(LEFT, y, PLOT_W, SEG_H, fill="none", stroke=INK, stroke_opacity=0.55)]
            x = float(LEFT)
            for b, w in zip(seg.blocks, _widths([b.bytes for b in seg.blocks], seg.bytes)):
                fill = {
                    "allocated": LAYER_COLORS["allocator"],
                    "pending": "#f0a030",
                    "cached": "none",
                }[b.state]
                is_served = b.state == "allocated" and served.get("addr") == seg.addr + b.offset
                classes = ["segment-block", b.state]
                if is_served:
                    classes.append(
                        "served-from-cache" if served.get("from_cache") else "served-new-segment"
                    )
                owner = f"StorageImpl#{b.storage}" if b.storage is not None else "block"
                parts.append(
                    svg.group(
                        [
                            svg.rect(
                                x,
                                y,
                                w,
                                SEG_H,
                                fill=fill,
                                stroke=HIGHLIGHT if is_served else INK,
                                stroke_opacity=1 if is_served else 0.4,
                                stroke_width=2.5 if is_served else 1,
                            ),
                            svg.title(
                                f"{owner if b.state != 'cached' else 'cached'}: {b.bytes} bytes "
                                f"at offset {b.offset} ({b.state})"
                            ),
                        ],
                        class_=" ".join(classes),
                        data_offset=b.offset,
                        data_bytes=b.bytes,
                    )
                )
                x += w
            body.append(
                svg.group(
                    parts,
                    class_="segment",
                    data_addr=hex(seg.addr),
                    data_pool=seg.pool,
                    data_bytes=seg.bytes,
                )
            )
            y += SEG_H + 8
        if not state.segments:
            body.append(
                svg.text(
                    LEFT,
                    y + 10,
                    "no segments: everything is back on the device",
                    12,
                    **MUTED,
                    class_="empty",
                )
            )
            y += 24
        return y + 10

    @staticmethod
    def _height(nbytes: int) -> float:
        return 14 + 3 * math.log2(max(nbytes, 1)) / 2

    def _block(self, b: Block, y: float, h: float, last: int) -> str:
        x1 = self._x(b.start)
        x2 = self._x(b.end if b.end is not None else last)
        live_now = self.step is not None and b.alive_at(self.step)
        classes = ["block", "freed" if b.end is not None else "survives"]
        if live_now:
            classes.append("live")
        color = LAYER_COLORS["allocator"]
        parts = [
            svg.rect(
                x1,
                y,
                max(x2 - x1, 3),
                h,
                rx=3,
                fill=color,
                fill_opacity=(0.45 if b.end is None else 0.25)
                * (1 if live_now or self.step is None else 0.6),
                stroke=HIGHLIGHT if live_now else color,
                stroke_width=2.5 if live_now else 1,
            )
        ]
        label = f"{b.owner or 'block'} {b.nbytes} B"
        parts.append(svg.text(x1 + 4, y + h / 2 + 4, label, 10, fill=INK))
        if b.end is None:  # survives the trace: an open end
            parts.append(svg.text(x2 + 3, y + h / 2 + 4, "\u2192", 12, fill=INK))
        life = f"steps {b.start}..{b.end}" if b.end is not None else f"from step {b.start} on"
        parts.append(svg.title(f"{b.owner or 'block'}: {b.nbytes} bytes at {hex(b.addr)}, {life}"))
        return svg.group(
            parts,
            class_=" ".join(classes),
            data_addr=hex(b.addr),
            data_owner=b.owner,
            data_start=b.start,
            data_end=b.end if b.end is not None else "",
        )


def _widths(sizes: list[int], total: int, minimum: float = 8.0) -> list[float]:
    """Widths of a segment's blocks: to scale, but no block narrower than `minimum` pixels
    (a 512-byte block of a 2 MiB segment would vanish); the wide ones give up the difference."""
    widths = [PLOT_W * n / total for n in sizes]
    narrow = [w < minimum for w in widths]
    need = sum(minimum for w, n in zip(widths, narrow) if n)
    wide = sum(w for w, n in zip(widths, narrow) if not n)
    scale = (PLOT_W - need) / wide if wide > 0 and need < PLOT_W else 1.0
    return [minimum if n else w * scale for w, n in zip(widths, narrow)]


def _top_level_calls(trace: Trace) -> list[tuple[int, str]]:
    """(begin index, short label) of each depth-0 Python frame: `rand`, `getitem`, `del`, ..."""
    out: list[tuple[int, str]] = []
    for i, e in enumerate(trace.events):
        if e.ph == "B" and e.depth == 0 and e.layer == "python":
            name = e.name.removeprefix("THPVariable_")
            out.append((i, "del" if name == "dealloc" else name))
    return out


def memory_map(source: Trace | Timeline, step: int | None = None) -> MemoryMap:
    """The memory map of a Trace or of the replay's Timeline (built here for a Trace)."""
    return MemoryMap(source, step)
