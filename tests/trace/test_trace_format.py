"""Trace files from anyone: every file loads into a Trace that every consumer survives, or raises
one TraceFormatError naming the file, the place and what was expected (issue 12, item 1).

The fuzz test starts from a real trace in both layouts (format 2's columns, format 1's rows) and
breaks it the ways a file breaks: truncated, bytes flipped, a value of the wrong type, a key
missing, nesting thousands deep, numbers out of range.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensortrace as torch
from tensortrace.c10.cuda import cuda_caching_allocator as cca
from tensortrace.cuda import memory
from tensortrace.replay.timeline import Timeline, to_html, to_text
from tensortrace.replay.tree import render_tree
from tensortrace.trace import Trace, TraceFormatError, run_source

FILE = "fuzzed.json"


def _record() -> Trace:
    """A small trace with most instant kinds: a view, a death, and the caching allocator's."""
    memory.empty_cache()
    with torch.record() as t:
        run_source("x = torch.empty(2)\ny = x[0]\ndel x", {"torch": torch})
        block = cca.allocator.allocate(48)
        block.clear()
        memory.empty_cache()
    return t


BASE = _record()
V2 = BASE.to_json()
V1 = {
    "format": "tensortrace-trace",
    "version": 1,
    "meta": BASE.meta,
    "sites": [s.to_json() for s in BASE.sites],
    "events": [e.to_json() for e in BASE.events],
}


def survive(trace: Trace) -> None:
    """Everything a reader does with a trace: none of it may raise."""
    timeline = Timeline(trace)
    for step in range(len(timeline)):
        timeline.describe_event(step)
    if len(timeline):
        state = timeline.state_at(len(timeline) // 2)
        list(state.tensors.values()), list(state.storages.values()), state.live_blocks
        to_text(timeline.at(len(timeline) // 2))  # code, stack and objects at a step
    timeline.summary_rows()
    to_html(timeline)  # the code view and the summary table
    timeline.payload()
    json.dumps(trace.chrome_trace_events())
    to_text(render_tree(trace))


def load_or_refuse(raw: str | bytes) -> None:
    try:
        trace = Trace.loads(raw, FILE)
    except TraceFormatError as exc:
        assert str(exc).startswith(f"{FILE}: ") and "expected" in str(exc)
        return
    survive(trace)


def _places(value: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key) of a JSON document, in a fixed order."""
    if isinstance(value, dict):
        for k in value:
            out.append((value, k))
            _places(value[k], out)
    elif isinstance(value, list):
        for i in range(len(value)):
            out.append((value, i))
            _places(value[i], out)
    return out


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, -1, 1, 2**63])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["B", "E", "i", "alloc", "TensorImpl#1", "python", "$", "Tensor"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["$", "args", "object", "impl", "handle", "sizes", "names", "1"])
            | st.text(max_size=4),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)
LAYOUTS = {"columns": V2, "rows": V1}
documents = st.sampled_from(sorted(LAYOUTS))
SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def _mutated(doc: str, pick: int) -> tuple[dict[str, Any], list[tuple[Any, Any]]]:
    copy = json.loads(json.dumps(LAYOUTS[doc]))
    places = _places(copy, [])
    return copy, [places[pick % len(places)]]


@SETTINGS
@given(doc=documents, pick=st.integers(0, 10**6), value=json_values)
def test_a_value_of_another_type(doc: str, pick: int, value: Any) -> None:
    copy, [(parent, key)] = _mutated(doc, pick)
    parent[key] = value
    load_or_refuse(json.dumps(copy))


@SETTINGS
@given(doc=documents, pick=st.integers(0, 10**6))
def test_a_key_or_item_missing(doc: str, pick: int) -> None:
    copy, [(parent, key)] = _mutated(doc, pick)
    del parent[key]
    load_or_refuse(json.dumps(copy))


@SETTINGS
@given(doc=documents, cut=st.floats(0, 1))
def test_truncated(doc: str, cut: float) -> None:
    text = json.dumps(LAYOUTS[doc])
    load_or_refuse(text[: int(len(text) * cut)])


@SETTINGS
@given(doc=documents, at=st.floats(0, 1), junk=st.binary(min_size=1, max_size=8))
def test_binary(doc: str, at: float, junk: bytes) -> None:
    raw = json.dumps(LAYOUTS[doc]).encode()
    i = int(len(raw) * at)
    load_or_refuse(raw[:i] + junk + raw[i + len(junk) :])


@SETTINGS
@given(
    doc=documents,
    pick=st.integers(0, 10**6),
    depth=st.sampled_from([33, 200, 5000, 10**5]),
    bracket=st.sampled_from(["[", '{"a":']),
)
def test_deep_nesting(doc: str, pick: int, depth: int, bracket: str) -> None:
    copy, [(parent, key)] = _mutated(doc, pick)
    parent[key] = "@@HERE@@"
    close = "]" if bracket == "[" else "}"
    load_or_refuse(json.dumps(copy).replace('"@@HERE@@"', bracket * depth + "1" + close * depth))


@SETTINGS
@given(
    doc=documents,
    pick=st.integers(0, 10**6),
    number=st.sampled_from(
        [
            "1e400",
            "-1e400",
            "NaN",
            "Infinity",
            "9" * 5000,
            "1" + "0" * 40,
            "-" + "9" * 30,
            "1.5",
            "18446744073709551616",
        ]
    ),
)
def test_huge_numbers(doc: str, pick: int, number: str) -> None:
    copy, [(parent, key)] = _mutated(doc, pick)
    parent[key] = "@@HERE@@"
    load_or_refuse(json.dumps(copy).replace('"@@HERE@@"', number))


# ---- the cases of issue 12, each by name --------------------------------------------------
def test_both_layouts_load_and_survive(tmp_path: Path) -> None:
    for doc in (V2, V1):
        trace = Trace.from_json(json.loads(json.dumps(doc)))
        assert [e.name for e in trace.events] == [e.name for e in BASE.events]
        survive(trace)
    path = tmp_path / "t.json"
    BASE.save(path)
    assert Trace.load(path).events == BASE.events


@pytest.mark.parametrize(
    "raw, place, expected",
    [
        (b"\xff\xfe\x00binary", "byte 0", "UTF-8 JSON text"),
        ("", "line 1 column 1", "JSON"),
        ("[]", "$", "a JSON object"),
        ('{"format": "tensortrace-trace", "version": true}', "$.version", "a version among"),
        ('{"format": "tensortrace-trace", "version": 2, "sites": {}}', "$.sites", "an array"),
        ("[" * 100_000, "$", "JSON nested less deeply"),
        ('{"format": "tensortrace-trace", "version": NaN}', "$.version", "a version among"),
        (
            '{"format": "tensortrace-trace", "version": 1' + "0" * 5000 + "}",
            "$",
            "JSON numbers in range",
        ),
        ('{"traceEvents": []}', "$.format", "this is not a tensortrace trace file"),
    ],
)
def test_each_malformed_file_gets_one_clear_error(
    raw: str | bytes, place: str, expected: str
) -> None:
    with pytest.raises(TraceFormatError) as info:
        Trace.loads(raw, FILE)
    assert info.value.file == FILE and info.value.place == place
    assert expected in info.value.expected


def test_the_place_is_a_json_path() -> None:
    doc = json.loads(json.dumps(V1))
    alloc = next(i for i, row in enumerate(doc["events"]) if row[6] == "alloc")
    doc["events"][alloc][7]["bytes"] = "48"
    with pytest.raises(TraceFormatError) as info:
        Trace.from_json(doc, FILE)
    assert info.value.place == f"$.events[{alloc}][7].bytes"
    assert str(info.value) == (
        f"{FILE}: $.events[{alloc}][7].bytes: expected an integer (64 bits), got '48'"
    )
    doc = Trace.from_json(json.loads(json.dumps(V2))).to_json()
    doc["arg_table"][doc["events"]["args"][alloc]]["bytes"] = -0.5
    with pytest.raises(TraceFormatError, match=r"\$\.arg_table\[\d+\]\.bytes: expected an "):
        Trace.from_json(doc, FILE)


def test_an_end_must_close_the_open_frame() -> None:
    doc = json.loads(json.dumps(V1))
    first_end = next(i for i, row in enumerate(doc["events"]) if row[0] == "E")
    del doc["events"][:first_end]
    with pytest.raises(TraceFormatError, match="a begin before this end"):
        Trace.from_json(doc, FILE)


def test_a_missing_file_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="a readable file"):
        Trace.load(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (2**64, "an integer (64 bits)"),  # the same skeleton's digits, one more: out of range
        (-(2**63) - 1, "an integer (64 bits)"),
        ("48", "an integer (64 bits)"),  # a string where the first had a number
        (4.5, "an integer (64 bits)"),
    ],
)
def test_args_with_a_checked_skeleton_are_still_checked(bad: Any, expected: str) -> None:
    """Note [Args checked once per skeleton]: a second alloc whose text differs from a valid
    one only in digits passes unchecked, any other difference is checked."""
    doc = Trace.from_json(json.loads(json.dumps(V2))).to_json()
    allocs = [i for i, k in enumerate(doc["events"]["kind"]) if doc["strings"][k] == "alloc"]
    first, second = (doc["events"]["args"][i] for i in allocs[:2])
    assert first != second
    entry = doc["arg_table"][first]
    doc["arg_table"][second] = dict(entry, addr=entry["addr"] + 64)  # same skeleton: loads
    Trace.from_json(json.loads(json.dumps(doc)), FILE)
    doc["arg_table"][second]["bytes"] = bad
    with pytest.raises(
        TraceFormatError, match=re.escape(f".arg_table[{second}].bytes: expected {expected}")
    ):
        Trace.from_json(doc, FILE)
