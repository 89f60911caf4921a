"""The replay on fresh traces from the runtime: the seed's code view, names, kwargs, operators."""

from __future__ import annotations

from pathlib import Path

import tensortrace
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, run_source

DATA = Path(__file__).parent.parent / "data"


def trace_of(code: str) -> Trace:
    with tensortrace.record() as t:
        run_source(code, {"torch": tensortrace})
    return t


def test_fresh_seed_trace_gives_the_seed_code_view() -> None:
    timeline = Timeline(trace_of("r = torch.rand(3, 4)[0] + torch.rand(3, 4)"))
    assert timeline.code_view() + "\n" == (DATA / "seed_000_code_view.txt").read_text()
    last = timeline.state_at(timeline.code[-1].end)
    assert [h.name for h in last.handles.values()] == ["r"]
    assert [t.sizes for t in last.tensors.values()] == [[3, 4]]


def test_user_names_keywords_and_in_place_operators() -> None:
    timeline = Timeline(trace_of("x = torch.rand(2, 3)\nz = torch.add(x, 1, alpha=2)\nx += 1"))
    assert timeline.code_view().splitlines() == [
        "x = torch.rand(2, 3)",
        "z = torch.add(x, 1, alpha=2)",
        "x.__iadd__(1)",
    ]
    assert timeline.steps("source") == [
        i for i, e in enumerate(timeline.trace.events) if e.kind == "statement"
    ]


def test_a_failing_call_is_a_line_that_raises() -> None:
    try:
        with tensortrace.record() as t:
            run_source("a = torch.rand(3, 4)\nb = a + torch.rand(2, 2)", {"torch": tensortrace})
    except RuntimeError:
        pass
    timeline = Timeline(t)
    assert timeline.code_view().splitlines()[-1] == "_t1.__add__(_t2)  # raises RuntimeError"
    assert timeline.state_at(-1).stack == []  # the recorder closed every frame


def test_an_empty_trace_replays_to_nothing() -> None:
    timeline = Timeline(Trace([], []))
    assert len(timeline) == 0 and timeline.code_view() == "" and timeline.steps("alloc") == []
    assert "0 events" in timeline.headline()


def test_the_recorded_view_base_sets_view_of() -> None:
    """as_view records `view_base` after it increfs the base; the replay reads it, not a guess.

    The stored seed_000 trace predates the instant, so test_timeline.py covers the inference
    kept for such traces; here a split (two views made before either holds its base) is what
    the inference got wrong: it named a base for the last piece only.
    """
    namespace = {"torch": tensortrace}  # kept alive: a, b, c, d survive the trace
    with tensortrace.record() as trace:
        run_source("a = torch.rand(4, 3)\nb, c = a.split(2)\nd = b[0]", namespace)
    events = trace.events
    marks = [i for i, e in enumerate(events) if e.kind == "view_base"]
    assert len(marks) == 3
    for i in marks:  # right after the incref of the base it names
        assert events[i - 1].kind == "incref"
        assert events[i - 1].args["object"] == events[i].args["base"]
    timeline = Timeline(trace)
    state = timeline.state_at(len(timeline) - 1)
    impl = {h.name: h.impl for h in state.handles.values()}
    a = impl["a"]
    # a view of a view holds the root base (Note [A view holds its base])
    assert {name: state.tensors[impl[name]].view_of for name in "abcd"} == {
        "a": None,
        "b": a,
        "c": a,
        "d": a,
    }
    assert state.tensors[a].refcount == 4  # a's handle and the three views
    first = marks[0]
    assert timeline.state_at(first - 1).tensors[impl["b"]].view_of is None
    assert timeline.state_at(first).tensors[impl["b"]].view_of == a
    assert timeline.describe_event(first) == (
        f"TensorImpl#{impl['b']} is a view of TensorImpl#{a} (holds it)"
    )

    # the same events without the instant: the inference of older traces
    older = Trace([e for e in events if e.kind != "view_base"], trace.sites, trace.meta)
    guessed = Timeline(older).state_at(len(older.events) - 1).tensors
    assert [guessed[impl[name]].view_of for name in "cd"] == [a, a]
    del namespace
