"""Timeline: the state of a finished trace at any step, with cheap seeking and navigation.

A step is an event index. `Timeline(trace).state_at(step)` is everything alive after the event
at `step`: the open call stack (each frame with its arguments and its PyTorch source, symbol and
2019 name), the live Python handles under the user's names (or `_tN`, as in the code view), each
TensorImpl and StorageImpl with its refcount, and the allocator's blocks. The trace is compiled
once into per-event deltas (`state.py`); a snapshot of persistent maps every `checkpoint_every`
events (`seek.py`) makes any seek fewer than that many events of deltas, whatever the trace's
length (Note [A seek does not grow with the trace]).

It is the replay side of torch.profiler: where `prof.key_averages().table()` summarizes what
happened, a Timeline also answers "what existed at that moment, and why" (seed 000's
`del _t1` frees nothing because the view `_t2` still holds TensorImpl#1).
Rich and Jupyter show it directly (`__rich__`, `_repr_html_`); `timeline.at(step)` shows one step.
Its sentences for each event are in describe.py, its rich pictures in render.py.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from tensortrace.replay.code_view import CodeLine, current_line, derive_code
from tensortrace.replay.code_view import render_code as _render_code
from tensortrace.replay.deltas import (
    GLOBALS,
    HANDLES,
    STORAGES,
    TENSORS,
    Tables,
    apply_delta,
    empty_tables,
)
from tensortrace.replay.describe import describe_event
from tensortrace.replay.navigation import NAV_KINDS, build_index, next_step, prev_step
from tensortrace.replay.render import (
    StepView,
    code_text,
    frame_text,
    objects_table,
    stack_tree,
    to_html,
    to_text,
)
from tensortrace.replay.seek import LIVE_BLOCKS, SHARES, Checkpoints
from tensortrace.replay.snapshot import (
    BlockList,
    HandleInfo,
    RowMap,
    SegmentInfo,
    StackFrame,
    State,
    StorageImplInfo,
    TensorImplInfo,
    shorten,
)
from tensortrace.replay.state import compile_trace
from tensortrace.trace import Trace, schema
from tensortrace.trace.columns import EventColumns
from tensortrace.trace.format import gc_paused

if TYPE_CHECKING:
    from tensortrace.replay.summary import SummaryRow

DEFAULT_CHECKPOINT_EVERY = 256
# the pictures of a Timeline live in render.py; these names were imported from here
__all__ = ["DEFAULT_CHECKPOINT_EVERY", "StepView", "Timeline", "frame_text", "to_html", "to_text"]


def _tensor_info(key: int, row: dict[str, Any]) -> TensorImplInfo:
    return TensorImplInfo(
        key,
        row.get("sizes", []),
        row.get("strides", []),
        row.get("offset", 0),
        row.get("dtype", "?"),
        row.get("itemsize", 0),
        row.get("storage"),
        row.get("refcount", 0),
        row.get("is_view", False),
        row.get("view_of"),
    )


class Timeline:
    """The replay of one trace: `state_at(step)`, `next("alloc", step)`, `code_view(step)` ..."""

    def __init__(
        self, trace: Trace, checkpoint_every: int = DEFAULT_CHECKPOINT_EVERY, thread: int = 0
    ) -> None:
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be positive, got {checkpoint_every}")
        # one thread's events: the tracing thread (0) unless another is asked for by its
        # native id (Trace.threads()); its call stack is its own (Note [Each thread has its
        # own stack])
        if thread not in (0, *trace.threads()):
            raise ValueError(
                f"no events of thread {thread} in this trace: it has {trace.threads()}"
            )
        self.trace = trace.thread_view(thread)
        self.checkpoint_every = checkpoint_every
        # compiled from the thread's own events, so that steps index self.trace
        events = self.trace.events
        # the build walks the events several times: held as columns (columns.py), they are
        # built once, as a list the build drops when it is done, each args text decoded once
        decoded = events.decoded() if isinstance(events, EventColumns) else nullcontext()
        with gc_paused(), decoded:  # millions of acyclic objects: see trace/format.py
            walked = (
                self.trace
                if not isinstance(events, EventColumns)
                else Trace(list(events), self.trace.sites, self.trace.meta, self.trace.values)
            )
            self.compiled = compile_trace(walked)
            self.code, self.names = derive_code(walked, self.compiled)
            self.nav = build_index(walked, self.compiled, self.code)
            del walked
            self._checkpoints = Checkpoints(self.compiled, checkpoint_every)
        self._alloc_steps = [b.alloc_step for b in self.compiled.blocks]  # nondecreasing

    # ---- seeking -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.trace.events)

    def _check(self, step: int) -> int:
        n = len(self)
        if not -n <= step < n:
            raise IndexError(f"step {step} out of range for a trace of {n} events")
        return step % n

    def tables_at(self, step: int) -> Tables:
        """The raw delta tables after `step` as plain dicts: the nearest checkpoint, then
        replay forward (what the player's decoder computes)."""
        return self._checkpoints.at(self._check(step)).tables()

    def tables_from_zero(self, step: int) -> Tables:
        """The same tables by replaying every event from the start (the reference for tests)."""
        step = self._check(step)
        tables = empty_tables()
        for deltas in self.compiled.deltas[: step + 1]:
            for delta in deltas:
                apply_delta(tables, delta)
        return tables

    # Note [A seek does not grow with the trace]: state_at takes the nearest checkpoint (a
    # snapshot of persistent maps, seek.py) and replays fewer than K events; its handles,
    # tensors, storages and blocks are views that make an info object only when read, and the
    # live blocks and each storage's TensorImpls come from tables of their own. So a seek costs
    # the same at 10k and 1M events, however many objects are alive.
    def state_at(self, step: int) -> State:
        step = self._check(step)
        maps = self._checkpoints.at(step).maps
        names = self.names
        handles = RowMap(maps[HANDLES], lambda k, row: HandleInfo(k, names(k), row.get("impl")))
        tensors = RowMap(maps[TENSORS], _tensor_info)
        shares = maps[SHARES]
        storages = RowMap(
            maps[STORAGES],
            lambda k, row: StorageImplInfo(
                k,
                row.get("nbytes", 0),
                row.get("addr", 0),
                row.get("device", "cpu"),
                row.get("refcount", 0),
                shares.get(k) or (),
            ),
        )
        blocks = BlockList(
            self.compiled.blocks, bisect_right(self._alloc_steps, step), step, maps[LIVE_BLOCKS]
        )
        totals = maps[GLOBALS].get(0) or {}
        allocated = totals.get("allocated", 0)
        segments = [
            SegmentInfo.at(seg, self.compiled.blocks, step)
            for seg in self.compiled.segments
            if seg.live_at(step)
        ]
        devices: dict[str, dict[str, int]] = {}
        for key, value in totals.items():
            what, _, device = key.partition(" ")
            if device:
                devices.setdefault(device, {})[what] = value
        return State(
            step,
            self.describe_event(step),
            self.stack_at(step),
            handles,
            tensors,
            storages,
            blocks,
            allocated,
            segments,
            devices,
        )

    def stack_at(self, step: int) -> list[StackFrame]:
        """The open frames after `step`, outermost first."""
        step = self._check(step)
        chain: list[StackFrame] = []
        frame_index = self.compiled.innermost[step]
        while frame_index >= 0:
            chain.append(self.stack_frame(frame_index))
            frame_index = self.compiled.frames[frame_index].parent
        chain.reverse()
        return chain

    def stack_frame(self, frame_index: int) -> StackFrame:
        frame = self.compiled.frames[frame_index]
        sites = self.trace.sites
        site = sites[frame.site] if 0 <= frame.site < len(sites) else None
        return StackFrame(
            frame.begin,
            frame.name,
            frame.layer,
            {k: self.format_value(v) for k, v in frame.args.items()},
            site.source if site else "",
            site.symbol if site else frame.name,
            site.legacy if site else None,
            {k: self.format_value(v) for k, v in frame.details.items()},
        )

    # ---- text --------------------------------------------------------------------------------
    def rename(self, text: str) -> str:
        """Process-wide object ids -> this trace's: `Tensor(TensorImpl#7, ...)` reads `#1`."""
        return self.compiled.ids.renumber_text(text)

    def format_value(self, value: Any) -> str:
        """An argument summary for display: object ids renumbered, handles by their names."""
        if isinstance(value, list):
            return shorten("[" + ", ".join(self.format_value(v) for v in value) + "]")
        if schema.is_summary(value):
            return shorten(
                schema.render_summary(value, self.compiled.ids.display, self._handle_name)
            )
        if not isinstance(value, str):
            return shorten(repr(value))
        return shorten(self.compiled.ids.display(value))  # a reference, or any other text

    def _handle_name(self, raw: int) -> str:
        handle = self.compiled.ids.known_handle(raw)
        return self.names(handle) if handle is not None else f"_h{raw}"

    def describe_event(self, step: int) -> str:
        """One line for the event at `step`: what just happened (describe.py)."""
        return describe_event(self, step)

    def code_view(self, step: int | None = None) -> str:
        """The equivalent code (seed 000); with `step`, `# <--- here` marks the line running."""
        return _render_code(self.code, None if step is None else self._check(step))

    def current_line(self, step: int) -> CodeLine | None:
        i = current_line(self.code, self._check(step))
        return self.code[i] if i is not None else None

    # ---- navigation --------------------------------------------------------------------------
    def next(self, kind: str, step: int) -> int | None:
        """The next step after `step` of `kind` (see NAV_KINDS), or None."""
        return next_step(self._steps(kind), step)

    def prev(self, kind: str, step: int) -> int | None:
        return prev_step(self._steps(kind), step)

    def steps(self, kind: str) -> list[int]:
        return list(self._steps(kind))

    def _steps(self, kind: str) -> list[int]:
        if kind not in self.nav:
            raise ValueError(f"unknown step kind {kind!r}; choose from {', '.join(NAV_KINDS)}")
        return self.nav[kind]

    # ---- rich --------------------------------------------------------------------------------
    def stack_tree(self, step: int) -> Tree:
        """The call stack at `step` as a rich Tree, colored by layer, with PyTorch's names."""
        return stack_tree(self, step)

    def objects_table(self, step: int) -> Table:
        """Handles, TensorImpls, StorageImpls and DataPtrs at `step`, with refcounts."""
        return objects_table(self, step)

    def code_text(self, step: int | None = None) -> Text:
        return code_text(self, step)

    def summary_table(
        self, sort_by: str = "total", row_limit: int | None = None, times: bool = True
    ) -> Table:
        """torch.profiler's key_averages().table(), with layers and bytes (summary.py)."""
        from tensortrace.replay.summary import summary_table

        return summary_table(
            self.trace, self.compiled, sort_by=sort_by, row_limit=row_limit, times=times
        )

    def summary_rows(self) -> list[SummaryRow]:
        from tensortrace.replay.summary import summary_rows

        return summary_rows(self.trace, self.compiled)

    def at(self, step: int) -> StepView:
        """One step, ready to show: `timeline.at(120)` in a notebook or `rich.print`."""
        return StepView(self, self._check(step))

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self)))

    def headline(self) -> str:
        n_frames = len(self.compiled.frames)
        n_ops = len(self.nav["dispatch"])
        peak = max(
            (e.args.get("total_allocated", 0) for e in self.trace.memory_events()), default=0
        )
        return (
            f"Timeline: {len(self)} events, {n_frames} frames, {n_ops} operator calls, "
            f"{len(self.nav['alloc'])} allocations, {len(self.nav['free'])} frees, "
            f"peak {peak} B"
        )

    def __rich__(self) -> RenderableType:
        return Group(
            Text(self.headline(), style="bold"),
            Panel(self.code_text(), title="equivalent code", title_align="left", expand=False),
            self.summary_table(row_limit=15),
        )

    def _repr_html_(self) -> str:
        return to_html(self)

    def payload(self) -> dict[str, Any]:
        """The compact JSON the TimelinePlayer ships to the browser once (see payload.py)."""
        from tensortrace.replay.payload import build_payload

        return build_payload(self)


def trace_rich(trace: Trace) -> RenderableType:
    """For `Trace.__rich__`: the trace as its Timeline overview."""
    return Timeline(trace).__rich__()


def trace_repr_html(trace: Trace) -> str:
    """For `Trace._repr_html_`: the Timeline overview in Jupyter."""
    return Timeline(trace)._repr_html_()
