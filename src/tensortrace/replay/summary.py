"""A profiler-style summary: one row per frame name with calls, self/total time and memory.

Mirrors `torch.profiler.profile(...).key_averages().table()` (torch/autograd/profiler_util.py,
`EventList.table` / `_build_table`): events grouped by name, `Self CPU` = time not spent in
child frames, `CPU total` = the whole frame, `# of Calls`, and `CPU Mem` / `Self CPU Mem` as the
bytes allocated minus freed inside the frame (with / without its children), as torch reports
them with `profile_memory=True`. tensortrace adds the layer of each row and the bytes allocated.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

from tensortrace.replay.state import Compiled, Frame
from tensortrace.replay.tree import LAYER_STYLES
from tensortrace.trace import Trace
from tensortrace.trace.events import INSTANT
from tensortrace.trace.schema import ALLOC, FREE

SORT_KEYS = ("total", "self", "calls", "alloc", "mem", "name", "first")


@dataclass
class SummaryRow:
    name: str
    layer: str
    calls: int = 0
    self_ns: int = 0
    total_ns: int = 0
    self_mem: int = 0  # bytes allocated - freed, children excluded
    mem: int = 0  # bytes allocated - freed, children included
    alloc_bytes: int = 0  # bytes allocated, children included
    first: int = 0  # BEGIN index of the first call

    @property
    def avg_ns(self) -> float:
        return self.total_ns / self.calls if self.calls else 0.0


def summary_rows(trace: Trace, compiled: Compiled) -> list[SummaryRow]:
    """Rows in order of first call. A recursive frame's total counts its outermost call only."""
    events = trace.events
    frames = compiled.frames
    self_mem = [0] * len(frames)
    self_alloc = [0] * len(frames)
    for index, event in enumerate(events):
        if event.ph == INSTANT and event.kind in (ALLOC, FREE):
            owner = compiled.event_frame[index]
            if owner >= 0:
                sign = 1 if event.kind == ALLOC else -1
                self_mem[owner] += sign * event.args["bytes"]
                if sign > 0:
                    self_alloc[owner] += event.args["bytes"]
    # children end before parents: walk frames backwards to fold totals into parents
    total = [0] * len(frames)
    mem = list(self_mem)
    alloc = list(self_alloc)
    child_ns = [0] * len(frames)
    last = len(events) - 1
    for frame in frames:
        end = frame.end if frame.end >= 0 else last
        total[frame.index] = events[end].ts_ns - events[frame.begin].ts_ns
    for frame in reversed(frames):
        if frame.parent >= 0:
            child_ns[frame.parent] += total[frame.index]
            mem[frame.parent] += mem[frame.index]
            alloc[frame.parent] += alloc[frame.index]
    rows: dict[str, SummaryRow] = {}
    for frame in frames:
        row = rows.get(frame.name)
        if row is None:
            row = rows[frame.name] = SummaryRow(frame.name, frame.layer, first=frame.begin)
        row.calls += 1
        row.self_ns += total[frame.index] - child_ns[frame.index]
        row.self_mem += self_mem[frame.index]
        if not _inside_same_name(frames, frame):
            row.total_ns += total[frame.index]
            row.mem += mem[frame.index]
            row.alloc_bytes += alloc[frame.index]
    return list(rows.values())


def _inside_same_name(frames: list[Frame], frame: Frame) -> bool:
    parent = frame.parent
    while parent >= 0:
        if frames[parent].name == frame.name:
            return True
        parent = frames[parent].parent
    return False


def format_time(ns: float) -> str:
    """torch's `_format_time`: us below a millisecond, ms below a second, else s."""
    us = ns / 1000.0
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes: int) -> str:
    """torch's `_format_memory`: b, Kb, Mb, Gb."""
    kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} Gb"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} Mb"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} Kb"
    return f"{nbytes} b"


def sort_rows(rows: list[SummaryRow], sort_by: str) -> list[SummaryRow]:
    keys = {
        "total": lambda r: -r.total_ns,
        "self": lambda r: -r.self_ns,
        "calls": lambda r: -r.calls,
        "alloc": lambda r: -r.alloc_bytes,
        "mem": lambda r: -r.mem,
        "name": lambda r: r.name,
        "first": lambda r: r.first,
    }
    if sort_by not in keys:
        raise ValueError(f"unknown sort key {sort_by!r}; choose from {', '.join(SORT_KEYS)}")
    return sorted(rows, key=keys[sort_by])


def summary_table(
    trace: Trace,
    compiled: Compiled,
    sort_by: str = "total",
    row_limit: int | None = None,
    times: bool = True,
) -> Table:
    """The rows as a rich Table, torch's columns plus the layer and the bytes allocated.

    `times=False` leaves the time columns out (they vary run to run; golden texts need that).
    """
    rows = sort_rows(summary_rows(trace, compiled), sort_by)
    self_sum = sum(r.self_ns for r in rows) or 1
    table = Table(title="tensortrace profile (like key_averages().table())", title_justify="left")
    # the name never wraps and never vanishes: on a narrow screen the numbers give way first
    table.add_column("Name", no_wrap=True, overflow="ellipsis", min_width=16, max_width=40)
    table.add_column("Layer", no_wrap=True, overflow="ellipsis")
    if times:
        for column in ("Self %", "Self", "Total %", "Total", "Avg"):
            table.add_column(column, justify="right", no_wrap=True, overflow="ellipsis")
    for column in ("Calls", "Alloc", "Mem", "Self Mem"):
        table.add_column(column, justify="right", no_wrap=True, overflow="ellipsis")
    shown = rows if row_limit is None else rows[:row_limit]
    for r in shown:
        cells: list[str | Text] = [Text(r.name, style=LAYER_STYLES.get(r.layer, "")), r.layer]
        if times:
            cells += [
                f"{100 * r.self_ns / self_sum:.2f}%",
                format_time(r.self_ns),
                f"{100 * r.total_ns / self_sum:.2f}%",
                format_time(r.total_ns),
                format_time(r.avg_ns),
            ]
        cells += [
            str(r.calls),
            format_memory(r.alloc_bytes),
            format_memory(r.mem),
            format_memory(r.self_mem),
        ]
        table.add_row(*cells)
    if times:
        table.caption = f"Self time total: {format_time(self_sum)}"
    if row_limit is not None and len(rows) > row_limit:
        table.caption = (table.caption or "") + f"  ({len(rows) - row_limit} more rows)"
    return table
