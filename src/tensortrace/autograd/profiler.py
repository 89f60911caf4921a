"""torch.autograd.profiler: `profile` and `record_function`, on tensortrace's recorder.

Mirrors `torch/autograd/profiler.py`. torch.profiler collects the RecordFunction scopes of a run:
every operator the dispatcher calls (`aten::mul`, and `aten::to` > `aten::_to_copy` inside it),
the autograd engine's `autograd::engine::evaluate_function: MulBackward0` with the Node's own
scope, `record_function` blocks, the optimizers' annotations. tensortrace's trace records those
same scopes among its finer frames (Note [The profiler's view of a trace]), so `profile` runs a
recording and keeps them: `prof.key_averages().table()` prints torch's table for this runtime,
and `prof.trace` is the whole tensortrace trace, for the replay.

Note [The profiler's view of a trace]
A frame is one of torch.profiler's events if it is an `aten::` operator call (the dispatcher's
RECORD_FUNCTION), a scope recorded with the record_function flag (the engine's frames, a Node,
a custom Function's forward, a `record_function` block), or an optimizer's `Optimizer.step#...`
annotation. Its parent is the nearest such frame around it; its self time is its time minus its
children's; with profile_memory, the `[memory]` instants inside it (children included) are its
memory, and one outside every event is an event of its own, as torch lists it.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from typing import Any

from tensortrace.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg
from tensortrace.trace import FrameSite, recorder
from tensortrace.trace.schema import ALLOC, BEGIN, END, FREE
from tensortrace.trace.trace import Trace, events_of_rows

SOURCE = "torch/autograd/profiler.py"
_sites: dict[str, FrameSite] = {}


class record_function(contextlib.ContextDecorator):  # noqa: N801 - torch's name
    """`with record_function("model_inference"):` names a scope of the profile (and of the
    trace): a RECORD_FUNCTION of the user's own."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._rec: Any = None

    def __enter__(self) -> record_function:
        rec = recorder.current
        if rec is not None:
            site = _sites.get(self.name)
            if site is None:
                site = _sites[self.name] = FrameSite(
                    "python", self.name, SOURCE, "torch.autograd.profiler.record_function"
                )
            args = {"args": self.args} if self.args is not None else {}
            rec.begin(site, {"record_function": True, "args": args})
            self._rec = rec
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        rec: recorder.Recorder | None = self._rec
        self._rec = None
        if rec is None:
            return
        outcome = {"error": f"{exc_type.__name__}: {exc}"} if exc_type is not None else {}
        if recorder.current is rec:  # not if the recording stopped inside the block
            rec.end(_sites[self.name], outcome)


def _is_profiler_event(name: str, args: dict[str, Any]) -> bool:
    """Note [The profiler's view of a trace]."""
    return (
        name.startswith("aten::")
        or "overload" in args  # a torch.library operator's Dispatcher::call (`myns::foo`)
        or bool(args.get("record_function"))
        or name.startswith(("Optimizer.step#", "Optimizer.zero_grad#"))
    )


def _shape(value: Any) -> list[Any]:
    return (
        list(value.get("sizes", []))
        if isinstance(value, dict) and value.get("$") == "Tensor"
        else []
    )


def _input_shapes(name: str, args: dict[str, Any]) -> list[Any]:
    """record_shapes: each input's shape, [] for a non-tensor; a Node's inputs are its
    gradients; the engine's and the user's scopes record none."""
    if "grads" in args:
        return [_shape(g) for g in args["grads"]]
    if name.startswith("autograd::engine::") or "sequence_nr" in args:
        return []
    shapes: list[Any] = []
    for value in args.values():
        if isinstance(value, dict) and value.get("$") == "Tensor":
            shapes.append(list(value.get("sizes", [])))
        elif (
            isinstance(value, list)
            and value
            and all(isinstance(v, dict) and v.get("$") == "Tensor" for v in value)
        ):
            shapes.append([list(v.get("sizes", [])) for v in value])
        else:
            shapes.append([])
    return shapes


def events_from_trace(
    trace: Trace, record_shapes: bool = False, profile_memory: bool = False
) -> EventList:
    """The FunctionEvents of a trace, in the order they began (Note [The profiler's view of a
    trace])."""
    thread = int(trace.meta.get("tid", threading.get_native_id()))
    events: list[FunctionEvent] = []
    open_frames: list[FunctionEvent | None] = []  # one entry per open frame, None if not kept
    open_events: list[FunctionEvent] = []
    for ev in trace.events:
        if ev.ph == BEGIN:
            begin_args = ev.args
            if not _is_profiler_event(ev.name, begin_args):
                open_frames.append(None)
                continue
            fn = FunctionEvent(
                id=len(events),
                # each ProfilerStep#N is one key, as _parse_kineto_results names it
                name="ProfilerStep*" if ev.name.startswith("ProfilerStep#") else ev.name,
                thread=ev.tid or thread,
                start_us=ev.ts_ns / 1000.0,
                end_us=ev.ts_ns / 1000.0,
                input_shapes=_input_shapes(ev.name, begin_args.get("args", {}))
                if record_shapes
                else [],
                is_user_annotation=ev.layer == "python" and bool(begin_args.get("record_function")),
            )
            if open_events:
                fn.set_cpu_parent(open_events[-1])
                open_events[-1].append_cpu_child(fn)
            events.append(fn)
            open_frames.append(fn)
            open_events.append(fn)
        elif ev.ph == END:
            closing = open_frames.pop() if open_frames else None
            if closing is not None:
                closing.time_range.end = ev.ts_ns / 1000.0
                open_events.pop()
        elif profile_memory and ev.kind in (ALLOC, FREE) and ev.args.get("device") == "cpu":
            nbytes = ev.args["bytes"] if ev.kind == ALLOC else -ev.args["bytes"]
            if not open_events:  # outside every event: a [memory] event of its own
                ts = ev.ts_ns / 1000.0
                mem = FunctionEvent(len(events), "[memory]", thread, ts, ts, input_shapes=[])
                mem.cpu_memory_usage = nbytes
                events.append(mem)
            for fn in open_events:
                fn.cpu_memory_usage += nbytes
    result = EventList(events, profile_memory=profile_memory)
    result._remove_dup_nodes()
    return result


class profile:  # noqa: N801 - torch's name
    """`with torch.autograd.profiler.profile() as prof:` records the block; then
    `prof.key_averages().table(sort_by="self_cpu_time_total")`."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        **kwargs: Any,
    ) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.entered = False
        self._rec: Any = None
        self.trace: Trace | None = None
        self._function_events: EventList | None = None

    # ---- recording ---------------------------------------------------------------------------
    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        self.entered = True
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self.enabled:
            return
        self._stop()

    def _start(self) -> None:
        if recorder.current is not None:
            raise RuntimeError(
                "a tensortrace trace is already active: profile inside it is not supported "
                "(the trace has every event the profiler would record)"
            )
        self._rec = recorder.start()

    def _stop(self) -> None:
        rec, self._rec = self._rec, None
        if rec is None:
            return
        recorder.stop(rec)
        meta = {"pid": os.getpid(), "tid": threading.get_native_id()}
        # its rows become Events, or columns (Note [Events made when the recording stops])
        self.trace = Trace(events_of_rows(rec.events), rec.sites, meta, rec.values)
        self._function_events = events_from_trace(
            self.trace, self.record_shapes, self.profile_memory
        )

    # ---- results -----------------------------------------------------------------------------
    def _check_finish(self) -> EventList:
        """The events of the finished recording (none while it runs, as torch's)."""
        if self._function_events is None:
            return EventList(profile_memory=self.profile_memory)
        return self._function_events

    @property
    def function_events(self) -> EventList:
        return self._check_finish()

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        return self._check_finish().key_averages(group_by_input_shape)

    def total_average(self) -> FunctionEventAvg:
        return self._check_finish().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._check_finish().self_cpu_time_total

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._check_finish().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def __str__(self) -> str:
        return self.table() if self._function_events is not None else "<unfinished profile>"

    def export_chrome_trace(self, path: str) -> str:
        """The events as Chrome trace events ("X" complete events, as torch writes them)."""
        pid = os.getpid()
        trace_events: list[dict[str, Any]] = []
        for evt in self._check_finish():
            if evt.name == "[memory]":
                trace_events.append(
                    {
                        "ph": "i",
                        "cat": "cpu_instant_event",
                        "s": "t",
                        "name": "[memory]",
                        "pid": pid,
                        "tid": evt.thread,
                        "ts": evt.time_range.start,
                        "args": {"Bytes": evt.cpu_memory_usage},
                    }
                )
                continue
            args: dict[str, Any] = {}
            if evt.input_shapes:
                args["Input Dims"] = evt.input_shapes
            trace_events.append(
                {
                    "ph": "X",
                    "cat": "user_annotation" if evt.is_user_annotation else "cpu_op",
                    "name": evt.name,
                    "pid": pid,
                    "tid": evt.thread,
                    "ts": evt.time_range.start,
                    "dur": evt.cpu_time_total,
                    "args": args,
                }
            )
        with open(path, "w") as f:
            json.dump({"traceEvents": trace_events, "displayTimeUnit": "ms"}, f)
        return path


__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]
