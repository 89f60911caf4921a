"""Threads: each event carries its thread, and each thread's frames nest on their own stack.

Note [Each thread has its own stack] in trace/recorder.py. The main thread opens a traced frame
and waits inside it while a second thread runs ops, so the two threads' events interleave.
"""

from __future__ import annotations

import json
import threading

import pytest

import tensortrace
from tensortrace.replay import Timeline
from tensortrace.trace import Trace, traced

record = getattr(tensortrace, "record", None) or tensortrace.trace


@traced("python", "test::wait_inside_a_frame", "tests/trace/test_threads.py")
def wait_inside_a_frame(inside: threading.Event, done: threading.Event) -> None:
    inside.set()  # only now may the worker start: its ops must run while this frame is open
    assert done.wait(timeout=60)


def interleaved_trace() -> tuple[Trace, int]:
    """Main: rand, then a frame that stays open while the worker runs rand + add twice."""
    inside = threading.Event()
    done = threading.Event()
    native: list[int] = []

    def worker() -> None:
        native.append(threading.get_native_id())
        assert inside.wait(timeout=60)
        for _ in range(2):
            y = tensortrace.rand(2) + 1
            del y
        done.set()

    with record() as t:
        x = tensortrace.rand(3)
        thread = threading.Thread(target=worker)
        thread.start()
        wait_inside_a_frame(inside, done)
        thread.join()
        del x
    return t, native[0]


@pytest.fixture(scope="module")
def traced_threads() -> tuple[Trace, int]:
    return interleaved_trace()


def test_events_carry_the_thread_that_ran_them(traced_threads: tuple[Trace, int]) -> None:
    t, worker = traced_threads
    assert t.threads() == [0, worker]
    ops_by_thread = {
        tid: [
            e.name for e in t.events if e.tid == tid and e.ph == "B" and e.name.startswith("aten::")
        ]
        for tid in t.threads()
    }
    assert ops_by_thread[worker].count("aten::add") == 2
    assert "aten::add" not in ops_by_thread[0]
    # the worker really ran while the main thread's frame was open
    wait = next(i for i, e in enumerate(t.events) if e.name == "test::wait_inside_a_frame")
    wait_end = max(i for i, e in enumerate(t.events) if e.name == "test::wait_inside_a_frame")
    assert any(e.tid == worker for e in t.events[wait:wait_end])


def test_each_thread_nests_on_its_own_stack(traced_threads: tuple[Trace, int]) -> None:
    t, _ = traced_threads
    for tid in t.threads():
        depth = 0
        for e in (e for e in t.events if e.tid == tid):
            if e.ph == "B":
                assert e.depth == depth
                depth += 1
            elif e.ph == "E":
                depth -= 1
                assert e.depth == depth
            else:
                assert e.depth == depth
        assert depth == 0
    for node in t.frames():
        tid = t.events[node.begin].tid
        assert t.events[node.end].tid == tid
        assert all(t.events[child.begin].tid == tid for child in node.children)
        assert all(i.tid == tid for i in node.instants)


def test_replay_shows_the_tracing_thread_by_default(traced_threads: tuple[Trace, int]) -> None:
    t, worker = traced_threads
    main = Timeline(t)
    assert len(main) == sum(1 for e in t.events if e.tid == 0)
    assert all(e.tid == 0 for e in main.trace.events)
    assert "aten::add" not in {e.name for e in main.trace.events}
    other = Timeline(t, thread=worker)
    assert {e.tid for e in other.trace.events} == {worker}
    assert other.state_at(len(other) - 1).allocated >= 0
    with pytest.raises(ValueError, match="no events of thread 12345"):
        Timeline(t, thread=12345)


def test_chrome_export_and_json_keep_the_threads(traced_threads: tuple[Trace, int]) -> None:
    t, worker = traced_threads
    chrome = t.chrome_trace_events()["traceEvents"]
    main_tid = t.meta["tid"]
    names = {e["tid"] for e in chrome if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {main_tid, worker}
    adds = [e for e in chrome if e["ph"] == "X" and e["name"] == "aten::add"]
    assert adds and all(e["tid"] == worker for e in adds)
    loaded = Trace.from_json(json.loads(json.dumps(t.to_json())))
    assert [e.tid for e in loaded.events] == [e.tid for e in t.events]
    # rows without the thread column (files written before threads were recorded) still load
    row = t.events[0].to_json()
    old = Trace.from_json({**t.to_json(), "version": 1, "events": [row]})
    assert len(row) == 8 and old.events[0].tid == 0


def test_intra_op_workers_record_nothing() -> None:
    previous = tensortrace.get_num_threads()
    tensortrace.set_num_threads(2)
    try:
        x = tensortrace.rand(400_000)
        with record() as t:
            y = (x * 2).sum()
        del x, y
    finally:
        tensortrace.set_num_threads(previous)
    assert t.threads() == [0]
