"""The trace file: a versioned, columnar JSON document, checked whole when it is loaded.

No PyTorch counterpart: torch.profiler writes Chrome traces but never reads them back. A trace
file is data from anyone, so loading it checks everything the consumers (Timeline, Chrome
export, to_html, the tree, the summary) rely on, against the declarations of schema.py: any
file either loads into a Trace they all survive, or raises one `TraceFormatError` that names the
file, the place (a JSON path such as `$.events.args[12].object`) and what was expected there.
The layout is documented in docs/trace-format.md.

Version 2 is columnar: the events are parallel arrays of small ints indexing a string table,
and each distinct `args` object is written once (`args` holds indices into `arg_table`), which
makes files smaller and save and load several times cheaper than one JSON list per event; a
loaded trace shares the identical args objects, so it is smaller in RAM too. Version 1 (one row
per event) still loads, through the same checks, its rendered summaries upgraded (legacy.py).
"""

import gc
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from tensortrace.trace.checks import (
    SKELETON,
    SKELETONS_SOUND,
    CheckError,
    check_args,
    check_json,
    check_sites,
)
from tensortrace.trace.columns import EventColumns
from tensortrace.trace.errors import TraceFormatError
from tensortrace.trace.events import Event, FrameSite
from tensortrace.trace.legacy import upgrade_value
from tensortrace.trace.schema import BEGIN, END, INSTANT, INSTANT_KINDS, LAYERS

FORMAT = "tensortrace-trace"
VERSION = 2
SUPPORTED = (1, 2)
COLUMNS = ("ph", "name", "layer", "kind", "ts", "depth", "site", "tid", "args")
MAX_TS = 2**63 - 1
_ROW_COLUMNS = {
    "ph": 0,
    "name": 1,
    "layer": 2,
    "ts": 3,
    "depth": 4,
    "site": 5,
    "kind": 6,
    "tid": 8,
}  # format 1's row layout
MAX_DEPTH = 2**31 - 1
_LONG_NUMBER = b"0" * 19  # in a skeleton: an integer that may not fit 64 bits


# ---- writing ------------------------------------------------------------------------------------
def _not_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON data")


# json's C encoder made once (JSONEncoder.encode makes one per call, most of a small object's
# cost): compact separators, no circular check (args are trees). NaN and Infinity are written
# as JSON's usual extension: a summarized float argument may be one.
if c_make_encoder is not None:
    _encode_chunks = c_make_encoder(
        None, _not_json, encode_basestring_ascii, None, ":", ",", False, False, True
    )

    def _encode(value: Any) -> str:
        return "".join(_encode_chunks(value, 0))
else:  # pragma: no cover - a Python without json's C accelerator
    _encoder = json.JSONEncoder(separators=(",", ":"), default=_not_json)

    def _encode(value: Any) -> str:
        return _encoder.encode(value)


encode = _encode  # the args' text in EventColumns (columns.py)

Loaded = tuple[EventColumns, list[FrameSite], dict[str, Any], dict[int, dict[str, Any]]]


def dumps(
    events: Sequence[Event],
    sites: list[FrameSite],
    meta: dict[str, Any],
    values: dict[int, dict[str, Any]] | None = None,
) -> str:
    """The version-2 document as compact JSON text."""
    with gc_paused():
        columns = events if isinstance(events, EventColumns) else EventColumns.from_events(events)
        return _dumps(columns, sites, meta, values or {})


def _int_list(column: Iterable[int]) -> str:
    return "[" + ",".join(map(str, column)) + "]"


def _dumps(
    columns: EventColumns,
    sites: list[FrameSite],
    meta: dict[str, Any],
    values: dict[int, dict[str, Any]],
) -> str:
    """Straight from the columns: the file's columns are the same arrays, as JSON lists."""
    head = {
        "format": FORMAT,
        "version": VERSION,
        "meta": meta,
        "sites": [[s.layer, s.name, s.source, s.symbol, s.legacy] for s in sites],
        "strings": columns.strings,
    }
    if values:  # Note [Values beside the events]: optional, what tensors held at a step
        head["values"] = {str(step): v for step, v in values.items()}
    parts = [_encode(head)[:-1], ',"events":{"ph":', _encode(columns.ph)]
    for key, column in (
        ("name", columns.name),
        ("layer", columns.layer),
        ("kind", columns.kind),
        ("ts", columns.ts),
        ("depth", columns.depth),
        ("site", columns.site),
        ("tid", columns.tids()),
        ("args", columns.arg),
    ):
        parts += [',"', key, '":', _int_list(column)]
    parts += ['},"arg_table":[', ",".join(columns.arg_texts), "]}"]
    return "".join(parts)


# ---- reading ------------------------------------------------------------------------------------
def parse(raw: bytes | str, file: str) -> Any:
    """JSON text -> data, every failure a TraceFormatError (never UnicodeDecodeError or
    RecursionError). NaN, Infinity and 1e400 read as floats, which no integer fact accepts."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TraceFormatError(file, f"byte {exc.start}", "UTF-8 JSON text") from None
    try:
        with gc_paused():
            return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TraceFormatError(
            file, f"line {exc.lineno} column {exc.colno}", f"JSON ({exc.msg})"
        ) from None
    except RecursionError:
        raise TraceFormatError(file, "$", "JSON nested less deeply") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise TraceFormatError(file, "$", "JSON numbers in range", str(exc)[:80]) from None


def load_path(path: str | os.PathLike[str]) -> Loaded:
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TraceFormatError(file, "$", "a readable file", exc.strerror) from None
    return from_data(parse(raw, file), file)


def from_data(data: Any, file: str = "<data>") -> Loaded:
    """Checked data -> (events, sites, meta, values); TraceFormatError for anything else."""
    with gc_paused():
        try:
            return _from_data(data)
        except CheckError as bad:
            raise TraceFormatError(file, bad.place(), bad.expected, bad.got) from None


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while a million acyclic objects are made or encoded: each of its
    passes would walk the whole trace again (it doubled the load time); trace data holds no
    cycles to collect. Used by the Timeline's build too."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _from_data(data: Any) -> Loaded:
    if type(data) is not dict:
        raise CheckError("a JSON object (a tensortrace trace)", data)
    if data.get("format") != FORMAT:
        raise CheckError(
            f"'{FORMAT}' (this is not a tensortrace trace file)", data.get("format"), ["format"]
        )
    version = data.get("version")
    if type(version) is not int or version not in SUPPORTED:  # `true` is not 1
        raise CheckError(f"a version among {list(SUPPORTED)}", version, ["version"])
    meta = data.get("meta", {})
    _check_meta(meta)
    sites = check_sites(data.get("sites"), version)
    if version == 1:
        events = EventColumns.from_events(_rows(data.get("events"), len(sites)))
    else:
        events = _columns(data, len(sites))
    _check_nesting(events, version >= 2)
    return events, sites, meta, _values(data.get("values", {}))


def _values(raw: Any) -> dict[int, dict[str, Any]]:
    """The optional `values` table (Note [Values beside the events]): step -> {"t": {tensor:
    text}, "s": {storage: [dtype, elements]}}."""
    if type(raw) is not dict:
        raise CheckError("an object of steps", raw, ["values"])
    out: dict[int, dict[str, Any]] = {}
    for step, entry in raw.items():
        if not (step.isascii() and step.isdigit() and len(step) < 19) or type(entry) is not dict:
            raise CheckError("an object keyed by a step number", entry, ["values", step])
        texts, storages = entry.get("t", {}), entry.get("s", {})
        if type(texts) is not dict or not all(type(t) is str for t in texts.values()):
            raise CheckError("an object of texts", texts, ["values", step, "t"])
        if type(storages) is not dict or not all(
            type(v) is list and len(v) == 2 and type(v[0]) is str and type(v[1]) is list
            for v in storages.values()
        ):
            raise CheckError("an object of [dtype, elements]", storages, ["values", step, "s"])
        try:
            check_json(entry)
        except CheckError as bad:
            raise bad.within("values", step) from None
        out[int(step)] = entry
    return out


def _check_meta(meta: Any) -> None:
    if type(meta) is not dict:
        raise CheckError("an object", meta, ["meta"])
    for key in ("pid", "tid"):
        if key in meta and not (type(meta[key]) is int and 0 <= meta[key] <= MAX_TS):
            raise CheckError("a process or thread id (an integer >= 0)", meta[key], ["meta", key])
    try:
        check_json(meta)
    except CheckError as bad:
        raise bad.within("meta") from None


def _event(
    ph: Any,
    name: Any,
    layer: Any,
    kind: Any,
    ts: Any,
    depth: Any,
    site: Any,
    tid: Any,
    args: Any,
    n_sites: int,
) -> Event:
    """One event's fields checked; a CheckError names the field (the caller adds the event)."""
    if ph not in (BEGIN, END, INSTANT):
        raise CheckError("'B', 'E' or 'i'", ph, ["ph"])
    if type(name) is not str:
        raise CheckError("a string", name, ["name"])
    if layer not in LAYERS:
        raise CheckError(f"a layer among {list(LAYERS)}", layer, ["layer"])
    if type(ts) is not int or not 0 <= ts <= MAX_TS:
        raise CheckError("a time in ns (an integer >= 0, in 63 bits)", ts, ["ts"])
    if type(depth) is not int or not 0 <= depth <= MAX_DEPTH:
        raise CheckError("a depth (an integer >= 0)", depth, ["depth"])
    if type(tid) is not int or not 0 <= tid <= MAX_TS:
        raise CheckError("a thread id (an integer >= 0)", tid, ["tid"])
    if ph == INSTANT:
        if type(kind) is not str or kind not in INSTANT_KINDS:
            raise CheckError("an instant kind of schema.INSTANT_KINDS", kind, ["kind"])
        if site != -1:
            raise CheckError("-1 (an instant has no site)", site, ["site"])
    else:
        if kind != "":
            raise CheckError("'' (a frame has no kind)", kind, ["kind"])
        if type(site) is not int or not 0 <= site < n_sites:
            raise CheckError(f"an index into sites (0 to {n_sites - 1})", site, ["site"])
    return Event(ph, name, layer, ts, depth, site, kind, args, tid)


def _rows(rows: Any, n_sites: int) -> list[Event]:
    if type(rows) is not list:
        raise CheckError("an array of events", rows, ["events"])
    events = []
    for i, row in enumerate(rows):
        if type(row) is not list or len(row) not in (8, 9):
            raise CheckError(
                "an event [ph, name, layer, ts, depth, site, kind, args(, tid)]", row, ["events", i]
            )
        ph, name, layer, ts, depth, site, kind, args, *rest = row
        try:
            event = _event(
                ph, name, layer, kind, ts, depth, site, rest[0] if rest else 0, args, n_sites
            )
            check_args(event.ph, event.kind, args)
        except CheckError as bad:
            # a field of _event's by its name, else a place inside args: the row's column
            column = _ROW_COLUMNS.get(bad.path[0]) if bad.path else None
            if column is not None:
                bad.path[0] = column
            else:
                bad.within(7)
            raise bad.within("events", i) from None
        if event.ph != INSTANT:  # format 1 rendered its summaries as text
            event = event._replace(args=upgrade_value(args))
        events.append(event)
    return events


def _ints(columns: dict[str, Any], key: str, low: int, high: int, what: str) -> list[int]:
    """A column of integers within [low, high], checked in bulk (C-speed in the common case),
    with the first bad item found only when there is one."""
    values = columns[key]
    if not values or (
        set(map(type, values)) == {int} and low <= min(values) and max(values) <= high
    ):
        return values
    for i, v in enumerate(values):
        if type(v) is not int or not low <= v <= high:
            raise CheckError(what, v, ["events", key, i])
    return values  # pragma: no cover - the loop always finds the bad item


def _first(column: Any, bad: Any) -> int:
    return next(i for i, v in enumerate(column) if v == bad)


def _columns(data: dict[str, Any], n_sites: int) -> EventColumns:
    strings = data.get("strings")
    if type(strings) is not list or not set(map(type, strings)) <= {str}:
        raise CheckError("an array of strings", strings, ["strings"])
    table = data.get("arg_table")
    if type(table) is not list:
        raise CheckError("an array of args objects", table, ["arg_table"])
    columns = data.get("events")
    if type(columns) is not dict:
        raise CheckError("an object of event columns", columns, ["events"])
    ph = columns.get("ph")
    if type(ph) is not str:
        raise CheckError("a string of phase letters", ph, ["events", "ph"])
    n = len(ph)
    for key in COLUMNS[1:]:
        value = columns.get(key)
        if type(value) is not list or len(value) != n:
            raise CheckError(f"an array of {n} items (one per event)", value, ["events", key])
    for letter in set(ph) - {BEGIN, END, INSTANT}:
        raise CheckError("'B', 'E' or 'i'", letter, ["events", "ph", ph.index(letter)])
    last = len(strings) - 1
    names, layers, kinds = (
        _ints(columns, key, 0, last, f"an index into strings (0 to {last})")
        for key in ("name", "layer", "kind")
    )
    ts = _ints(columns, "ts", 0, MAX_TS, "a time in ns (an integer >= 0, in 63 bits)")
    depth = _ints(columns, "depth", 0, MAX_DEPTH, "a depth (an integer >= 0)")
    tid = _ints(columns, "tid", 0, MAX_TS, "a thread id (an integer >= 0)")
    site = _ints(columns, "site", -1, n_sites - 1, f"-1 or an index into sites (< {n_sites})")
    args = _ints(
        columns, "args", 0, len(table) - 1, f"an index into arg_table (0 to {len(table) - 1})"
    )
    for index in set(layers):
        if strings[index] not in LAYERS:
            raise CheckError(
                f"a layer among {list(LAYERS)}",
                strings[index],
                ["events", "layer", _first(layers, index)],
            )
    for letter, index in set(zip(ph, kinds)):
        if (strings[index] in INSTANT_KINDS) if letter == INSTANT else strings[index] == "":
            continue
        i = next(i for i, pair in enumerate(zip(ph, kinds)) if pair == (letter, index))
        expected = (
            "an instant kind of schema.INSTANT_KINDS"
            if letter == INSTANT
            else "'' (a frame has no kind)"
        )
        raise CheckError(expected, strings[index], ["events", "kind", i])
    for letter, where in set(zip(ph, site)):
        if (where == -1) == (letter == INSTANT):
            continue
        i = next(i for i, pair in enumerate(zip(ph, site)) if pair == (letter, where))
        raise CheckError(
            "-1 (an instant has no site)"
            if letter == INSTANT
            else "an index into sites (a frame has one)",
            where,
            ["events", "site", i],
        )
    # each distinct args object kept as its compact text (columns.py), decoded on access
    texts = list(map(_encode, table))
    passed: set[tuple[str, int, bytes]] = set()  # Note [Args checked once per skeleton]
    for letter, index, a in set(zip(ph, kinds, args)):  # each distinct args object once
        text = texts[a].encode()  # ASCII: our encoder escapes the rest
        skeleton = (letter, index, text.translate(SKELETON))
        if skeleton in passed and _LONG_NUMBER not in skeleton[2]:
            continue
        try:
            check_args(letter, strings[index], table[a])
        except CheckError as bad:
            raise bad.within("arg_table", a) from None
        if SKELETONS_SOUND:
            passed.add(skeleton)
    return EventColumns(ph, strings, names, layers, kinds, ts, depth, site, tid, args, texts)


def _check_nesting(events: EventColumns, columnar: bool) -> None:
    """Every END closes the frame its thread opened last (the Chrome export and the call tree
    pair them); frames left open at the end are allowed (the recording stopped inside them)."""
    strings = events.strings
    if events.tid is None and len(set(strings)) == len(strings):  # one thread, no twin strings
        frames: list[tuple[int, int]] = []  # (name index, site) of each open frame
        push, pop = frames.append, frames.pop
        for i, ph, key in zip(range(len(events)), events.ph, zip(events.name, events.site)):
            if ph == BEGIN:
                push(key)
            elif ph == END:
                if not frames or frames[-1] != key:
                    top = strings[frames[-1][0]] if frames else None
                    raise CheckError(
                        f"an end of the open frame {top!r}"
                        if top is not None
                        else "a begin before this end",
                        strings[key[0]],
                        ["events", "ph", i] if columnar else ["events", i],
                    )
                pop()
        return
    open_frames: dict[int, list[tuple[str, int]]] = {}
    for i, (ph, name, site, tid) in enumerate(
        zip(events.ph, events.name, events.site, events.tids())
    ):
        if ph == INSTANT:
            continue
        if ph == BEGIN:
            open_frames.setdefault(tid, []).append((strings[name], site))
        else:
            stack = open_frames.get(tid)
            if not stack or stack[-1] != (strings[name], site):
                opened = stack[-1][0] if stack else None
                raise CheckError(
                    f"an end of the open frame {opened!r}"
                    if opened is not None
                    else "a begin before this end",
                    strings[name],
                    ["events", "ph", i] if columnar else ["events", i],
                )
            stack.pop()
