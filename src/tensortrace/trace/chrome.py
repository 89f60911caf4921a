"""The Chrome Trace Event export, shaped like torch.profiler's `export_chrome_trace`.

Mirrors kineto's `ChromeTraceLogger` (what torch.profiler's export writes): `X` frames with
`cat` = layer, `[memory]` instants with `Bytes` / `Total Allocated` / `Addr` and a
`Memory Allocated` counter, integer pid and tid. Like kineto's logger, the file is written as
the events are walked, one compact event per line, so a trace of a million events never becomes
one list of dicts in RAM. The rendered text of an args object (`Inputs`, `Result`) is made
once per distinct object: a loop repeats the same arguments.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Iterator
from itertools import islice
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import IO, TYPE_CHECKING, Any

from tensortrace.trace.columns import EventColumns
from tensortrace.trace.events import BEGIN, END
from tensortrace.trace.schema import ALLOC, FREE, render_value

if TYPE_CHECKING:
    from tensortrace.trace.trace import Trace

_BATCH = 4096  # events encoded per write


def _not_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON data")


# json's C encoder made once (json.dumps makes one per call)
if c_make_encoder is not None:
    _chunks = c_make_encoder(
        None, _not_json, encode_basestring_ascii, None, ":", ",", False, False, True
    )

    def _encode(value: Any) -> str:
        return "".join(_chunks(value, 0))
else:  # pragma: no cover - a Python without json's C accelerator

    def _encode(value: Any) -> str:
        return json.dumps(value, default=_not_json, separators=(",", ":"))


def _header(trace: Trace) -> tuple[int, int, list[dict[str, Any]]]:
    """The process's pid, the tracing thread's native id, and the metadata events."""
    pid = int(trace.meta.get("pid", os.getpid()))
    main_tid = int(trace.meta.get("tid", threading.get_native_id()))
    out: list[dict[str, Any]] = [
        {"ph": "M", "name": name, "pid": pid, "tid": 0, "ts": 0, "args": args}
        for name, args in (
            ("process_name", {"name": "python"}),
            ("process_labels", {"labels": "CPU"}),
        )
    ]
    for tid in [t or main_tid for t in trace.threads()] or [main_tid]:
        out.append(
            {
                "ph": "M",
                "name": "thread_name",
                "pid": pid,
                "tid": tid,
                "ts": 0,
                "args": {"name": f"thread {tid} (python)"},
            }
        )
    return pid, main_tid, out


class _Texts(dict[Any, str]):
    """JSON texts made once per key (a string, an args object): a bounded cache, cleared when
    full, so that a million distinct objects never stay in RAM."""

    def __init__(self, make: Any, limit: int = 4096) -> None:
        super().__init__()
        self.make, self.limit = make, limit

    def __missing__(self, key: Any) -> str:
        if len(self) >= self.limit:
            self.clear()
        text = self[key] = self.make(key)
        return text


def chrome_lines(trace: Trace) -> Iterator[str]:
    """Every event of the Chrome file as one line of compact JSON, in order: the metadata
    first, then one `X` per frame (at its end, as the profiler emits a finished op), each
    `[memory]` instant with its `Memory Allocated` counter, and the other instants. Read from
    the columns (columns.py): an instant's args are its table entry's JSON text as it is."""
    pid, main_tid, head = _header(trace)
    yield from map(_encode, head)
    events = trace.events
    columns = events if isinstance(events, EventColumns) else EventColumns.from_events(events)
    string = [encode_basestring_ascii(text) for text in columns.strings]
    arg_texts, args_of = columns.arg_texts, columns.arg_object
    # summaries as the text torch.profiler's viewers show for an input, once per args object
    inputs = _Texts(lambda k: ',"Inputs":' + _encode(render_value(args_of(k).get("args", {}))))
    outcomes = _Texts(
        lambda k: "".join(
            f",{_encode(key.capitalize())}:{_encode(render_value(v))}"
            for key, v in args_of(k).items()
        )
    )
    site_texts = [
        f',"PyTorch source":{_encode(s.source)},"PyTorch symbol":{_encode(s.symbol)}'
        + (f',"2019 name":{_encode(s.legacy)}' if s.legacy else "")
        for s in trace.sites
    ]
    # every index of those kinds: a loaded string table may hold a string twice
    memory = {i for i, text in enumerate(columns.strings) if text in (ALLOC, FREE)}
    where = f'"pid":{pid},"tid":'
    begin_stacks: dict[int, list[tuple[int, int, int, int, int]]] = {}  # per thread
    for index, (ph, name, layer, kind, ts, site, thread, arg) in enumerate(
        zip(
            columns.ph,
            columns.name,
            columns.layer,
            columns.kind,
            columns.ts,
            columns.site,
            columns.tids(),
            columns.arg,
        )
    ):
        tid = thread or main_tid
        if ph == BEGIN:
            stack = begin_stacks.get(thread)
            if stack is None:
                stack = begin_stacks[thread] = []
            stack.append((name, layer, ts, site, arg))
        elif ph == END:
            b_name, b_layer, b_ts, b_site, b_arg = begin_stacks[thread].pop()
            yield (
                f'{{"ph":"X","cat":{string[b_layer]},"name":{string[b_name]},'
                f'{where}{tid},"ts":{b_ts / 1000.0!r},"dur":{(ts - b_ts) / 1000.0!r},'
                f'"args":{{"Ev Idx":{index}{site_texts[b_site] if b_site >= 0 else ""}'
                f"{inputs[b_arg]}{outcomes[arg]}}}}}"
            )
        elif kind in memory:
            a = args_of(arg)
            time = repr(ts / 1000.0)
            total = a["total_allocated"]  # integers, as schema.MemoryArgs declares
            yield (
                f'{{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]",{where}{tid},'
                f'"ts":{time},"args":{{"Total Reserved":{_encode(a.get("total_reserved", 0))},'
                f'"Total Allocated":{total},'
                f'"Bytes":{a["bytes"] if columns.strings[kind] == ALLOC else -a["bytes"]},'
                # CUDA (DeviceType 1) and its index, as torch's
                f'"Device Id":{_encode(a.get("device_id", -1))},'
                f'"Device Type":{_encode(a.get("device_type", 0))},'
                f'"Addr":{a["addr"]},"Ev Idx":{index}}}}}'
            )
            yield (
                f'{{"ph":"C","name":"Memory Allocated",{where}{tid},"ts":{time},'
                f'"args":{{{_encode(a.get("device", "cpu"))}:{total}}}}}'
            )
        else:
            # {"kind": ..., **args, "Ev Idx": ...}: the args' own text between the two (no
            # instant's facts are named kind or Ev Idx, schema.INSTANT_ARGS)
            text = arg_texts[arg]
            yield (
                f'{{"ph":"i","cat":{string[layer]},"s":"t","name":{string[name]},{where}{tid},'
                f'"ts":{ts / 1000.0!r},"args":{{"kind":{string[kind]},'
                f'{text[1:-1]}{"," if len(text) > 2 else ""}"Ev Idx":{index}}}}}'
            )


def write_chrome_trace(trace: Trace, f: IO[str]) -> None:
    """Stream the Chrome file to `f`, one event per line, a batch of lines per write."""
    f.write('{"schemaVersion":1,"traceName":"tensortrace","displayTimeUnit":"ms",\n')
    f.write('"traceEvents":[\n')
    lines = chrome_lines(trace)
    sep = ""
    while batch := list(islice(lines, _BATCH)):
        f.write(sep + ",\n".join(batch))
        sep = ",\n"
    f.write("\n]}\n")


def chrome_trace(trace: Trace) -> dict[str, Any]:
    """The whole Chrome document as data (tests, small traces): the exported file's."""
    buffer = io.StringIO()
    write_chrome_trace(trace, buffer)
    return json.loads(buffer.getvalue())  # type: ignore[no-any-return]
