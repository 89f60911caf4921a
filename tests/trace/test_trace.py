"""The recorder, the Trace data, JSON save/load and the Chrome export."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

import tensortrace
from tensortrace.trace import LAYERS, Trace, recorder, run_source, traced

# the module (the package's `trace` attribute is torch.trace, the op)
trace_module = importlib.import_module("tensortrace.trace.trace")


@traced("native", "demo::f", "aten/src/ATen/native/Demo.cpp", legacy="TH_demo")
def f(x: int) -> int:
    return g(x) + 1


@traced("kernel", "demo::g", "aten/src/ATen/native/cpu/Demo.cpp")
def g(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    return x * 2


def test_untraced_call_goes_straight_through() -> None:
    assert recorder.current is None
    assert f(3) == 7


def test_frames_nest_with_args_and_results() -> None:
    with tensortrace.record() as t:
        f(3)
    (root,) = t.roots()
    assert (root.name, root.layer, root.args, root.outcome) == (
        "demo::f",
        "native",
        {"x": 3},
        {"result": 7},
    )
    assert [c.name for c in root.children] == ["demo::g"]
    assert root.site is not None and root.site.legacy == "TH_demo"


def test_an_exception_closes_its_frames_with_the_error() -> None:
    with tensortrace.record() as t, pytest.raises(ValueError):
        f(-1)
    (root,) = t.roots()
    assert root.outcome == {"error": "ValueError: negative"}
    assert root.children[0].outcome == {"error": "ValueError: negative"}
    assert recorder.current is None


def test_traces_cannot_nest() -> None:
    with tensortrace.record(), pytest.raises(RuntimeError, match="cannot be nested"):
        with tensortrace.record():
            pass


def seed_trace() -> Trace:
    with tensortrace.record() as t:
        run_source("r = torch.rand(3, 4)[0] + torch.rand(3, 4)", {"torch": tensortrace})
    return t


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    t = seed_trace()
    path = tmp_path / "seed.json"
    t.save(path)
    loaded = Trace.load(path)
    assert loaded.events == t.events
    assert loaded.sites == t.sites
    assert loaded.operator_tree() == t.operator_tree()
    assert json.loads(path.read_text())["format"] == "tensortrace-trace"


def test_load_refuses_what_is_not_a_trace(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"traceEvents": []}))
    with pytest.raises(ValueError, match="not a tensortrace trace"):
        Trace.load(path)


def test_chrome_export_has_torch_profiler_shape(tmp_path: Path) -> None:
    t = seed_trace()
    path = tmp_path / "chrome.json"
    t.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    meta = {e["name"] for e in events if e["ph"] == "M"}
    assert {"process_name", "thread_name"} <= meta
    frames = [e for e in events if e["ph"] == "X"]
    assert {e["cat"] for e in frames} <= set(LAYERS)
    assert [e["name"] for e in frames if e["name"].startswith("aten::")].count("aten::rand") == 2
    assert all(isinstance(e["pid"], int) and isinstance(e["tid"], int) for e in events)
    memory = [e for e in events if e["name"] == "[memory]"]
    assert [m["args"]["Bytes"] for m in memory] == [48, 48, 48, -48, -48, -48]
    assert [m["args"]["Total Allocated"] for m in memory] == [48, 96, 144, 96, 48, 0]
    assert all(
        m["ph"] == "i" and m["cat"] == "cpu_instant_event" and "Addr" in m["args"] for m in memory
    )
    counters = [e for e in events if e["ph"] == "C"]
    assert [c["args"]["cpu"] for c in counters] == [48, 96, 144, 96, 48, 0]
    for frame in frames:
        assert frame["dur"] >= 0 and "PyTorch source" in frame["args"]


def test_statements_and_survivor_names_are_recorded() -> None:
    t = seed_trace()
    (statement,) = t.instants("statement")
    assert statement.args["source"] == "r = torch.rand(3, 4)[0] + torch.rand(3, 4)"
    (names,) = t.instants("names")
    survivor = t.instants("handle_new")[-1].args["handle"]
    assert names.args["names"] == {str(survivor): ["r"]}


def test_profiler_view_merges_an_operator_with_its_same_named_only_child() -> None:
    x = tensortrace.rand(3, 4)
    with tensortrace.record() as t:
        x.sum()
    assert t.operator_tree()[0][0] == "aten::sum"
    assert t.operator_tree()[0][1][0][0] == "aten::sum"  # sum.dim_IntList under sum
    assert t.operator_tree(profiler_view=True) == [
        ("aten::sum", [("aten::as_strided", []), ("aten::fill_", [])])
    ]


def test_a_small_trace_keeps_the_recorders_list() -> None:
    with tensortrace.record() as t:
        tensortrace.rand(3, 4)[0] + tensortrace.rand(3, 4)
    assert len(t.events) < trace_module.COLUMNS_FROM and isinstance(t.events, list)


def test_rows_become_events_when_the_recording_stops() -> None:
    # Note [Events made when the recording stops]: while recording, each event is a plain row
    # of its nine fields; the finished trace holds Events with the same fields
    from tensortrace.trace.events import Event

    with tensortrace.record() as t:
        f(2)
        rows = list(t.events)
    assert all(type(row) is tuple and len(row) == 9 for row in rows)
    assert all(type(e) is Event for e in t.events) and [tuple(e) for e in t.events] == rows
    assert [(e.ph, e.name, e.depth, e.site) for e in t.events[:4]] == [
        ("B", "demo::f", 0, 0),
        ("B", "demo::g", 1, 1),
        ("E", "demo::g", 1, 1),
        ("E", "demo::f", 0, 0),
    ]


def test_a_large_trace_whose_args_are_not_json_keeps_a_list_of_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tensortrace.trace.events import Event

    monkeypatch.setattr(trace_module, "COLUMNS_FROM", 0)
    with tensortrace.record() as t:
        recorder.instant("names", "python", "names", names={"x": object()})
        f(1)
    assert isinstance(t.events, list) and all(type(e) is Event for e in t.events)
    assert t.events[0].kind == "names" and t.events[1].name == "demo::f"


def test_a_finished_trace_holds_its_events_as_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tensortrace.trace.columns import EventColumns
    from tensortrace.trace.events import Event

    monkeypatch.setattr(trace_module, "COLUMNS_FROM", 0)  # columns from the first event
    with tensortrace.record() as t:
        assert isinstance(t.events, list)  # while recording: the recorder's list
        run_source("x = torch.rand(3, 4)\ny = x[0] + 1\ndel y", {"torch": tensortrace})
    events = t.events
    assert isinstance(events, EventColumns)
    listed = list(events)
    assert all(isinstance(e, Event) for e in listed)
    assert [events[i] for i in range(len(events))] == listed
    assert events[-1] == listed[-1] and events[2:7] == listed[2:7]
    assert events[::3] == listed[::3] and events[5:2] == []
    with pytest.raises(IndexError):
        events[len(events)]
    assert events == Trace(listed, t.sites).events  # equal to a list of the same events
    # save and load go column to column; each distinct args object is kept once
    t.save(tmp_path / "t.json")
    loaded = Trace.load(tmp_path / "t.json")
    assert isinstance(loaded.events, EventColumns) and list(loaded.events) == listed
    assert len(loaded.events.arg_texts) < len(listed)
    assert Trace(listed, t.sites, t.meta, t.values).dumps() == t.dumps()
    with events.decoded():  # every args object decoded once inside, dropped after
        assert list(events) == listed
    assert not events._cache or len(events._cache) <= 512


def test_chrome_export_is_one_event_per_line(tmp_path: Path) -> None:
    """The export is streamed (chrome.py): each event its own line of JSON, the same events
    chrome_trace_events() gives, instants' facts between their kind and their index."""
    t = seed_trace()
    path = tmp_path / "chrome.json"
    t.export_chrome_trace(path)
    lines = path.read_text().splitlines()
    events = [json.loads(line.rstrip(",")) for line in lines if line.startswith('{"ph"')]
    assert events == t.chrome_trace_events()["traceEvents"]
    incref = next(e for e in events if e["ph"] == "i" and e["args"].get("kind") == "incref")
    assert list(incref["args"]) == ["kind", "object", "refcount", "Ev Idx"]
    index = incref["args"]["Ev Idx"]
    assert incref["args"]["refcount"] == t.events[index].args["refcount"]
    add = next(e for e in events if e["ph"] == "X" and e["name"] == "aten::add")
    assert list(add["args"])[:3] == ["Ev Idx", "PyTorch source", "PyTorch symbol"]
    assert add["args"]["Inputs"]["self"].startswith("Tensor(")


def test_chrome_export_reads_a_twin_string_as_its_kind() -> None:
    """A loaded string table may hold "alloc" twice: both indices are memory instants."""
    t = seed_trace()
    doc = t.to_json()
    doc["strings"].append("alloc")
    kinds = doc["events"]["kind"]
    first = next(i for i, k in enumerate(kinds) if doc["strings"][k] == "alloc")
    kinds[first] = len(doc["strings"]) - 1
    twin = Trace.from_json(doc)
    assert twin.chrome_trace_events()["traceEvents"] == t.chrome_trace_events()["traceEvents"]
