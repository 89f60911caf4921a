"""What torch.profiler hands back: FunctionEvent, FunctionEventAvg, EventList and its table.

Mirrors `torch/autograd/profiler_util.py` for the CPU: an event per recorded scope (an `aten::`
operator, an autograd engine frame or Node, a `record_function` block), with its total and self
time (self: minus the recorded scopes directly inside it) and, with `profile_memory`, the bytes
it allocated net of frees; `key_averages()` sums them by name (and input shapes), and `table()`
prints torch's table, column for column. The times are tensortrace's own: the table shows where
this Python runtime spends its time, in the structure torch's profiler shows for torch.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def _format_time(time_us: float) -> str:
    if time_us >= 1_000_000.0:
        return f"{time_us / 1_000_000.0:.3f}s"
    if time_us >= 1000.0:
        return f"{time_us / 1000.0:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes: int) -> str:
    kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


class Interval:
    __slots__ = ("start", "end")

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FormattedTimesMixin:
    """The *_str and average properties both event classes share."""

    cpu_time_total: float
    self_cpu_time_total: float
    count: int

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)


class FunctionEvent(FormattedTimesMixin):
    """One recorded scope: its name, its time range in microseconds, its nesting."""

    def __init__(
        self,
        id: int,  # noqa: A002 - torch's name
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        input_shapes: list[Any] | None = None,
        sequence_nr: int = -1,
        is_user_annotation: bool = False,
    ) -> None:
        self.id = id
        self.name = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_memory_usage = 0  # bytes allocated minus freed inside, children included
        self.count = 1
        self.is_async = False
        self.device_type = "DeviceType.CPU"
        self.node_id = -1
        self.overload_name = ""
        self.stack: list[str] = []

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:  # type: ignore[override]
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:  # type: ignore[override]
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def append_cpu_child(self, child: FunctionEvent) -> None:
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        self.cpu_parent = parent

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
            f"device_type={self.device_type} node_id={self.node_id} "
            f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
            f"end_us={self.time_range.end} "
            f"cpu_children={str([child.id for child in self.cpu_children])} "
            f"name={self.name} thread={self.thread} input_shapes={str(self.input_shapes)} "
            f"cpu_memory_usage={self.cpu_memory_usage} is_async={self.is_async} "
            f"seq_nr={self.sequence_nr}>"
        )


class FunctionEventAvg(FormattedTimesMixin):
    """The events of one key (name, and input shapes if grouped by them), summed."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes: Any = None
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.is_async = False
        self.node_id = -1
        self.overload_name = ""
        self.stack: list[str] = []

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        if self.key is None:  # the first event: its fields
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  input_shapes={str(self.input_shapes)} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class EventList(list[Any]):
    """A list of FunctionEvents (or of their averages) that can sum and print itself."""

    def __init__(self, *args: Any, profile_memory: bool = False, **kwargs: Any) -> None:
        super().__init__(*args)
        self._profile_memory = profile_memory

    def _remove_dup_nodes(self) -> None:
        """An event whose parent has its name and no other child is merged into the parent
        (`aten::sum` calling its other overload records one `aten::sum`), as torch's does."""
        while True:
            merged = [
                evt
                for evt in self
                if isinstance(evt, FunctionEvent)
                and evt.cpu_parent is not None
                and evt.cpu_parent.name == evt.name
                and len(evt.cpu_parent.cpu_children) == 1
            ]
            if not merged:
                return
            for evt in merged:
                parent = evt.cpu_parent
                assert parent is not None
                parent.cpu_children = evt.cpu_children
                for child in evt.cpu_children:
                    child.cpu_parent = parent
            gone = {id(evt) for evt in merged}
            self[:] = [evt for evt in self if id(evt) not in gone]

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shapes: bool = False) -> EventList:
        stats: dict[tuple[str, ...], FunctionEventAvg] = defaultdict(FunctionEventAvg)
        for evt in self:
            key = (str(evt.key), str(evt.input_shapes)) if group_by_input_shapes else (evt.key,)
            stats[key].add(evt)
        averages = EventList(stats.values(), profile_memory=self._profile_memory)
        if not group_by_input_shapes:
            for evt in averages:
                evt.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        return _build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            profile_memory=self._profile_memory,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def __str__(self) -> str:
        return self.table()


def _override_time_unit(time_us: float, default: str, time_unit: str | None) -> str:
    if time_unit == "s":
        return f"{time_us / 1_000_000.0:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1000.0:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return default


def _build_table(
    events: EventList,
    sort_by: str | None = None,
    header: str | None = None,
    row_limit: int = 100,
    max_name_column_width: int = 55,
    max_shapes_column_width: int = 80,
    profile_memory: bool = False,
    top_level_events_only: bool = False,
    time_unit: str | None = None,
) -> str:
    """profiler_util._build_table, for CPU events: the same columns, widths and footer."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = EventList(
            sorted(events, key=lambda evt: getattr(evt, sort_by), reverse=True),
            profile_memory=profile_memory,
        )
    name_width = min(max(len(evt.key) for evt in events) + 4, max_name_column_width)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [12] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    header_sep = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2

    lines: list[str] = []
    total = sum(evt.self_cpu_time_total for evt in events)
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for evt in events:
        if shown == row_limit:
            break
        if top_level_events_only and evt.cpu_parent is not None:
            continue
        shown += 1
        name = evt.key
        if len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row: list[Any] = [
            name,
            _format_time_share(evt.self_cpu_time_total, total),
            _override_time_unit(evt.self_cpu_time_total, evt.self_cpu_time_total_str, time_unit),
            _format_time_share(evt.cpu_time_total, total),
            _override_time_unit(evt.cpu_time_total, evt.cpu_time_total_str, time_unit),
            _override_time_unit(evt.cpu_time, evt.cpu_time_str, time_unit),
        ]
        if profile_memory:
            row += [_format_memory(evt.cpu_memory_usage), _format_memory(evt.self_cpu_memory_usage)]
        row.append(evt.count)
        if has_input_shapes:
            row.append(str(evt.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines.append(header_sep)
    lines.append(
        f"Self CPU time total: {_override_time_unit(total, _format_time(total), time_unit)}"
    )
    return "".join(line + "\n" for line in lines)


__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]
