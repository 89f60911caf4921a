"""The memory map: the seed timeline's three blocks, their lifetimes and the step cursor."""

from __future__ import annotations

import tensortrace as torch
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, run_source
from tensortrace.viz import blocks_of, memory_map

from .svgutil import DATA, check_golden, parse, with_class


def test_seed_blocks_and_lifetimes() -> None:
    namespace = {"torch": torch}
    with torch.record() as t:
        run_source("r = torch.rand(3, 4)[0] + torch.rand(3, 4)", namespace)
    blocks = blocks_of(t)
    assert [(b.nbytes, b.owner) for b in blocks] == [
        (48, "StorageImpl#1"),
        (48, "StorageImpl#2"),
        (48, "StorageImpl#3"),
    ]
    # the first storage is freed when the view dies, after the second one was allocated
    assert blocks[0].end is not None and blocks[0].end > blocks[1].start
    assert blocks[1].end is not None
    assert blocks[2].end is None  # r survives the trace
    step = blocks[1].start
    root = parse(memory_map(t, step).to_svg())
    assert {el.get("data-owner") for el in with_class(root, "block", "live")} == {
        "StorageImpl#1",
        "StorageImpl#2",
    }
    assert [el.get("data-owner") for el in with_class(root, "block", "survives")] == [
        "StorageImpl#3"
    ]
    [cursor] = with_class(root, "cursor")
    assert cursor.get("data-step") == str(step)
    del namespace


def test_golden_memory_map_of_the_stored_seed_trace() -> None:
    trace = Trace.load(DATA / "viz_seed_trace.json")
    check_golden("viz_memory_map_seed.svg", memory_map(trace, 120).to_svg() + "\n")


def test_a_trace_and_its_timeline_draw_the_same_map() -> None:
    trace = Trace.load(DATA / "viz_seed_trace.json")
    timeline = Timeline(trace)
    assert blocks_of(trace) == blocks_of(timeline)
    assert memory_map(trace, 120).to_svg() == memory_map(timeline, 120).to_svg()


def test_no_allocations() -> None:
    with torch.record() as t:
        pass
    root = parse(memory_map(t).to_svg())
    assert with_class(root, "empty") and not with_class(root, "block")
