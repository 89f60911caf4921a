"""The replay payload: a Timeline as one compact JSON document the browser can step through.

The TimelinePlayer ships this once; from then on stepping is pure JavaScript (no kernel round
trip), so the same player works in a notebook, in an exported HTML page and in slides. The
format, version 2:

- `n`: the number of events (steps); `ph`: one letter per event, `B`, `E` or `i`;
- `sites`: `[layer, name, source, symbol, legacy]`, the PyTorch counterpart of each frame;
- `frames`: `[site, begin, end, parent, args, details, outcome]` in BEGIN order; the three texts
  (already renumbered: `TensorImpl#1`, handles by their names) are indices into `strings`, where
  each distinct text is once (a loop repeats the same arguments: a page of 100k events is half
  the size). The player rebuilds the open stack of any
  step from `ph` and `frames`: a `B` opens the next frame, an `E` closes the open frame that ends
  there;
- `instants`: `[kind, text]` for each `i` event, in order;
- `deltas`: `[step, op, table, key, fields]` sorted by step: the state machine of `state.py`
  (tables `h` handles, `t` TensorImpls, `s` StorageImpls, `g` globals; ops `n` new, `u` update,
  `d` drop). The player snapshots the tables every `checkpoint_every` steps while loading, so a
  seek is a snapshot copy plus a few deltas, like the Python Timeline;
- `names`: display handle id -> name; `code`: `[start, end, text]` lines of the equivalent code;
- `blocks`: `[addr, bytes, alloc_step, free_step, storage]`, and for a caching allocator's block
  three more: `device, completed_step, from_cache` (completed_step: when a free that waited on
  another stream completed; null when it completed at once); `nav`: kind -> sorted steps;
- `segments`: `[addr, bytes, device, pool, alloc_step, free_step]`, the caching allocator's
  segments. `decode_segments` (and the player's segmentsAt) lay a segment's blocks out at a step.
- `values` (Note [Values beside the events]): `t`: `[step, tensor, text]`, a TensorImpl as torch
  prints it from that step on; `s`: `[step, storage, dtype, elements]`, a small storage's
  elements from that step on; both sorted by step. `decode_values` reads them at a step.

`decode_state(payload, step)` is the Python twin of the player's decoder: tests compare it with
the Timeline, so what the browser shows is what the Timeline computes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensortrace.replay.code_view import CodeLine, current_line
from tensortrace.replay.deltas import Tables, apply_delta, empty_tables
from tensortrace.trace.events import BEGIN, END

if TYPE_CHECKING:
    from tensortrace.replay.timeline import Timeline

FORMAT = "tensortrace-replay"
VERSION = 2
OUTCOME_LIMIT = 80


def build_payload(timeline: Timeline, title: str = "tensortrace") -> dict[str, Any]:
    trace = timeline.trace
    compiled = timeline.compiled
    fmt = timeline.format_value
    ph = "".join(e.ph for e in trace.events)
    frames: list[list[Any]] = []
    strings: list[str] = []
    string_index: dict[str, int] = {}

    def intern(text: str) -> int:
        index = string_index.get(text)
        if index is None:
            index = string_index[text] = len(strings)
            strings.append(text)
        return index

    for f in compiled.frames:
        args = ", ".join(f"{k}={fmt(v)}" for k, v in f.args.items())
        details = ", ".join(f"{k}={fmt(v)}" for k, v in f.details.items())
        if "error" in f.outcome:
            outcome = "raised " + fmt(f.outcome["error"])
        elif "result" in f.outcome:
            outcome = fmt(f.outcome["result"])
        else:
            outcome = ""
        frames.append(
            [
                f.site,
                f.begin,
                f.end,
                f.parent,
                intern(args),
                intern(details),
                intern(outcome[:OUTCOME_LIMIT]),
            ]
        )
    instants = [
        [e.kind, timeline.describe_event(i)]
        for i, e in enumerate(trace.events)
        if e.ph not in (BEGIN, END)
    ]
    deltas = [
        [step, op, table, key, fields]
        for step, step_deltas in enumerate(compiled.deltas)
        for op, table, key, fields in step_deltas
    ]
    blocks: list[list[Any]] = [
        [b.addr, b.bytes, b.alloc_step, b.free_step, b.storage]
        + ([b.device, b.completed_step, b.from_cache] if b.segment is not None else [])
        for b in compiled.blocks
    ]
    segments = [
        [g.addr, g.bytes, g.device, g.pool, g.alloc_step, g.free_step] for g in compiled.segments
    ]
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": title,
        "n": len(trace.events),
        "checkpoint_every": timeline.checkpoint_every,
        "ph": ph,
        "sites": [[s.layer, s.name, s.source, s.symbol, s.legacy] for s in trace.sites],
        "frames": frames,
        "strings": strings,
        "instants": instants,
        "deltas": deltas,
        "names": {str(k): v for k, v in timeline.names.names.items()},
        "code": [[line.start, line.end, line.text] for line in timeline.code],
        "blocks": blocks,
        "segments": segments,
        "nav": {kind: list(steps) for kind, steps in timeline.nav.items()},
        "values": values_payload(timeline),
    }


def values_payload(timeline: Timeline) -> dict[str, list[list[Any]]]:
    """The trace's values table with the Timeline's display ids, sorted by step."""
    ids = timeline.compiled.ids
    texts: list[list[Any]] = []
    storages: list[list[Any]] = []
    for step in sorted(timeline.trace.values):
        entry = timeline.trace.values[step]
        for name, text in entry.get("t", {}).items():
            found = ids.object(name)
            if found is not None:
                texts.append([step, found[1], text])
        for name, (dtype, elements) in entry.get("s", {}).items():
            found = ids.object(name)
            if found is not None:
                storages.append([step, found[1], dtype, elements])
    return {"t": texts, "s": storages}


def decode_values(payload: dict[str, Any], step: int, tensor: int) -> dict[str, Any]:
    """What the player's values panel shows for TensorImpl `tensor` at `step`: its text and
    its storage's elements as last recorded at or before `step` (None when not yet written),
    with the step each was recorded at."""
    tables = decode_tables(payload, step)
    row = tables["t"].get(tensor)
    if row is None:
        raise KeyError(f"no TensorImpl#{tensor} at step {step}")
    values = payload.get("values", {"t": [], "s": []})
    text = next(
        ([s, t] for s, k, t in reversed(values["t"]) if k == tensor and s <= step), [None, None]
    )
    storage = next(
        (
            [s, d, e]
            for s, k, d, e in reversed(values["s"])
            if k == row.get("storage") and s <= step
        ),
        [None, None, None],
    )
    return {
        "text": text[1],
        "text_step": text[0],
        "storage": row.get("storage"),
        "dtype": storage[1],
        "elements": storage[2],
        "elements_step": storage[0],
    }


def check_payload(payload: dict[str, Any]) -> None:
    if payload.get("format") != FORMAT:
        raise ValueError(f"not a replay payload (format {payload.get('format')!r})")
    if payload.get("version") != VERSION:
        raise ValueError(f"unsupported replay payload version {payload.get('version')!r}")


def decode_tables(payload: dict[str, Any], step: int) -> Tables:
    """The delta tables after `step`, replayed from the payload alone (as the player does)."""
    tables = empty_tables()
    for delta_step, op, table, key, fields in payload["deltas"]:
        if delta_step > step:
            break
        apply_delta(tables, (op, table, key, fields))
    return tables


def decode_stack(payload: dict[str, Any], step: int) -> list[int]:
    """The open frames after `step` (indices into payload["frames"]), outermost first."""
    stack: list[int] = []
    frames = payload["frames"]
    next_frame = 0
    for index, ph in enumerate(payload["ph"][: step + 1]):
        if ph == "B":
            stack.append(next_frame)
            next_frame += 1
        elif ph == "E":
            while stack:
                if frames[stack.pop()][2] == index:
                    break
    return stack


def decode_state(payload: dict[str, Any], step: int) -> dict[str, Any]:
    """What the player shows at `step`: tables, stack, `<--- here` line, allocator total."""
    check_payload(payload)
    if not 0 <= step < payload["n"]:
        raise IndexError(f"step {step} out of range for a payload of {payload['n']} events")
    tables = decode_tables(payload, step)
    stack = decode_stack(payload, step)
    frames, sites = payload["frames"], payload["sites"]
    code = payload["code"]
    here = current_line([CodeLine(text, start, end, "") for start, end, text in code], step)
    return {
        "step": step,
        "tables": tables,
        "stack": [sites[frames[f][0]][1] for f in stack],
        "here": here,
        "allocated": tables["g"].get(0, {}).get("allocated", 0),
        "live_blocks": [
            b[0] for b in payload["blocks"] if b[2] <= step and (b[3] is None or step < b[3])
        ],
        "segments": decode_segments(payload, step),
    }


def decode_segments(payload: dict[str, Any], step: int) -> list[list[Any]]:
    """The segments alive at `step`: `[addr, bytes, device, pool, blocks]`, each block
    `[offset, bytes, state, storage, from_cache]` with state allocated / pending / cached, as
    replay.snapshot.SegmentInfo.at lays them out."""
    out: list[list[Any]] = []
    for addr, nbytes, device, pool, alloc_step, free_step in payload.get("segments", []):
        if not (alloc_step <= step and (free_step is None or step < free_step)):
            continue
        end = addr + nbytes
        held = []
        for b in payload["blocks"]:
            if len(b) < 8 or b[5] != device or not addr <= b[0] < end:
                continue
            done = b[6] if b[6] is not None else b[3]
            if b[2] <= step and (done is None or step < done):
                held.append(b)
        held.sort(key=lambda b: b[0])
        blocks: list[list[Any]] = []
        cursor = addr
        for b in held:
            if b[0] > cursor:
                blocks.append([cursor - addr, b[0] - cursor, "cached", None, None])
            live = b[3] is None or step < b[3]
            blocks.append([b[0] - addr, b[1], "allocated" if live else "pending", b[4], b[7]])
            cursor = b[0] + b[1]
        if cursor < end:
            blocks.append([cursor - addr, end - cursor, "cached", None, None])
        out.append([addr, nbytes, device, pool, blocks])
    return out
