"""Timeline on seed 000: the state at chosen steps, the code view, navigation, seeking, goldens.

The trace is the stored seed trace (tests/data/seed_000_trace.json), so the goldens do not move
when the runtime changes; test_live.py runs the same checks on a fresh trace.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensortrace.replay.code_view import _Operators
from tensortrace.replay.payload import decode_state
from tensortrace.replay.snapshot import dims
from tensortrace.replay.timeline import Timeline, to_text
from tensortrace.trace import Trace

DATA = Path(__file__).parent.parent / "data"
SEED_TRACE = DATA / "seed_000_trace.json"


@pytest.fixture(scope="module")
def trace() -> Trace:
    return Trace.load(SEED_TRACE)


@pytest.fixture(scope="module")
def timeline(trace: Trace) -> Timeline:
    return Timeline(trace)


def line_named(timeline: Timeline, text: str) -> int:
    return [line.text for line in timeline.code].index(text)


# ---- the equivalent code ---------------------------------------------------------------------
def test_code_view_is_the_seed_text(timeline: Timeline) -> None:
    assert timeline.code_view() + "\n" == (DATA / "seed_000_code_view.txt").read_text()


def test_here_marks_the_line_running(timeline: Timeline) -> None:
    # before the first binding call (the statement instant) the first line is next to run
    assert timeline.code_view(0).splitlines()[0] == "_t1 = torch.rand(3, 4)  # <--- here"
    getitem = timeline.code[1]
    marked = timeline.code_view((getitem.start + getitem.end) // 2).splitlines()
    assert marked[1] == "_t2 = _t1.__getitem__(0)  # <--- here"
    assert sum("<--- here" in line for line in marked) == 1
    add = timeline.next("dispatch", timeline.code[4].start)
    assert add is not None and timeline.trace.events[add].name == "aten::add"
    assert "r = _t2.__add__(_t3)  # <--- here" in timeline.code_view(add)
    # after the last line (the end of the script's namespace) nothing is running
    assert "<--- here" not in timeline.code_view(len(timeline) - 1)


def test_operator_or_method_comes_from_the_statement() -> None:
    assert _Operators("r = a + b").python_name("add") == "__add__"
    assert _Operators("r = a.add(b)").python_name("add") == "add"
    assert _Operators("r = 1 + b").python_name("add") == "__radd__"
    assert _Operators("a += 1").python_name("add_") == "__iadd__"
    assert _Operators(None).python_name("add") == "add"


def test_object_ids_are_renumbered_per_trace(trace: Trace, timeline: Timeline) -> None:
    """The process-wide counter may start anywhere: the display reads the same."""
    text = json.dumps(trace.to_json())
    shifted = re.sub(
        r"(TensorImpl|StorageImpl)#(\d+)", lambda m: f"{m.group(1)}#{int(m.group(2)) + 1000}", text
    )
    shifted = re.sub(r'"handle": (\d+)', lambda m: f'"handle": {int(m.group(1)) + 50}', shifted)
    shifted = re.sub(r"_h(\d+)", lambda m: f"_h{int(m.group(1)) + 50}", shifted)
    shifted = re.sub(r'"(\d+)": \["r"\]', lambda m: f'"{int(m.group(1)) + 50}": ["r"]', shifted)
    other = Timeline(Trace.from_json(json.loads(shifted)))
    assert other.code_view() == timeline.code_view()
    for step in (98, 112, 240, 290):
        assert other.state_at(step) == timeline.state_at(step)


# ---- the state at chosen steps (seed 000's story) -----------------------------------------
def test_del_t1_frees_nothing(timeline: Timeline) -> None:
    state = timeline.state_at(timeline.code[line_named(timeline, "del _t1")].end)
    assert [h.name for h in state.handles.values()] == ["_t2"]
    base, view = state.tensors[1], state.tensors[2]
    assert base.refcount == 1  # held by the view (Note [A view holds its base])
    assert view.view_of == 1 and view.is_view and view.sizes == [4] and view.strides == [1]
    assert base.storage == view.storage == 1
    assert state.storages[1].refcount == 2
    assert state.storages[1].tensors == (1, 2)
    block = state.block_of(1)
    assert block is not None and block.live and block.bytes == 48
    assert state.allocated == 48


def test_the_view_dying_frees_the_first_storage(timeline: Timeline) -> None:
    before = timeline.state_at(timeline.code[line_named(timeline, "del _t2")].start)
    assert 1 in before.storages
    state = timeline.state_at(timeline.code[line_named(timeline, "del _t2")].end)
    assert 1 not in state.tensors and 2 not in state.tensors and 1 not in state.storages
    first = state.blocks[0]
    assert first.storage == 1 and not first.live and first.free_step is not None
    assert [h.name for h in state.handles.values()] == ["_t3", "r"]
    assert state.allocated == 96


def test_refcount_rises_when_the_view_takes_its_base(timeline: Timeline) -> None:
    state = timeline.state_at(98)
    assert state.event == "incref TensorImpl#1 → refcount 2"
    assert state.tensors[1].refcount == 2
    assert state.stack[-1].name == "torch::ADInplaceOrView::select_int"


def test_stack_at_the_first_allocation(timeline: Timeline) -> None:
    step = timeline.next("alloc", 0)
    assert step is not None
    state = timeline.state_at(step)
    names = [f.name for f in state.stack]
    assert names[0] == "THPVariable_rand" and names[-1] == "c10::DefaultCPUAllocator::allocate"
    assert "aten::empty" in names
    op = state.stack[names.index("aten::rand")]
    assert op.args["size"] == "[3, 4]"
    assert op.symbol == "c10::Dispatcher::call" and op.legacy == "op table getOp"
    assert op.details["dispatch_key"] == "BackendSelect"
    native = state.stack[names.index("at::native::rand")]
    assert native.source == "aten/src/ATen/native/TensorFactories.cpp"
    assert state.event.startswith("+ alloc 48 B at 0x")


def test_steps_out_of_range(timeline: Timeline) -> None:
    with pytest.raises(IndexError):
        timeline.state_at(len(timeline))
    assert timeline.state_at(-1).step == len(timeline) - 1


# ---- navigation --------------------------------------------------------------------------
def test_navigation_by_kind(timeline: Timeline) -> None:
    events = timeline.trace.events
    allocs, frees = timeline.steps("alloc"), timeline.steps("free")
    assert len(allocs) == 3 and len(frees) == 3
    assert all(events[s].kind == "alloc" for s in allocs)
    ops = [events[s].name for s in timeline.steps("dispatch")]
    assert ops == [
        "aten::rand",
        "aten::empty",
        "aten::uniform_",
        "aten::select",
        "aten::as_strided",
        "aten::rand",
        "aten::empty",
        "aten::uniform_",
        "aten::add",
    ]
    kernels = [events[s].name for s in timeline.steps("kernel")]
    assert kernels == ["at::native::uniform_kernel"] * 2 + ["at::native::add_kernel"]
    assert timeline.steps("statement") == [line.start for line in timeline.code]
    assert timeline.next("free", 0) == frees[0]
    assert timeline.next("free", frees[0]) == frees[1]
    assert timeline.prev("free", frees[1]) == frees[0]
    assert timeline.prev("alloc", allocs[0]) is None
    assert timeline.next("alloc", allocs[-1]) is None
    with pytest.raises(ValueError, match="unknown step kind"):
        timeline.next("nope", 0)


# ---- seeking -----------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(step=st.integers(min_value=0, max_value=310), every=st.sampled_from([1, 7, 64, 1000]))
def test_checkpoint_seek_equals_replay_from_zero(trace: Trace, step: int, every: int) -> None:
    timeline = _timelines(trace, every)
    assert timeline.tables_at(step) == timeline.tables_from_zero(step)


_CACHE: dict[int, Timeline] = {}


def _timelines(trace: Trace, every: int) -> Timeline:
    if every not in _CACHE:
        _CACHE[every] = Timeline(trace, checkpoint_every=every)
    return _CACHE[every]


def test_seeking_backwards_and_forwards_agrees(timeline: Timeline) -> None:
    rng = random.Random(0)
    steps = [rng.randrange(len(timeline)) for _ in range(30)]
    first = [timeline.state_at(s) for s in steps]
    assert [timeline.state_at(s) for s in reversed(steps)] == first[::-1]


# ---- payload -----------------------------------------------------------------------------
def test_payload_round_trip(timeline: Timeline) -> None:
    payload = json.loads(json.dumps(timeline.payload()))
    assert payload["n"] == len(timeline) and len(payload["ph"]) == len(timeline)
    rng = random.Random(1)
    for step in [0, 98, 112, 269, len(timeline) - 1] + rng.sample(range(len(timeline)), 20):
        decoded = decode_state(payload, step)
        assert decoded["tables"] == timeline.tables_at(step)
        assert decoded["stack"] == [f.name for f in timeline.stack_at(step)]
        line = timeline.current_line(step)
        assert decoded["here"] == (timeline.code.index(line) if line else None)
        assert decoded["allocated"] == timeline.state_at(step).allocated


# ---- rich and Jupyter --------------------------------------------------------------------
def test_stack_tree_golden(timeline: Timeline) -> None:
    assert to_text(timeline.stack_tree(98)) == (DATA / "seed_000_stack_step98.txt").read_text()


def test_summary_table_golden(timeline: Timeline) -> None:
    text = to_text(timeline.summary_table(sort_by="first", times=False))
    assert text == (DATA / "seed_000_summary.txt").read_text()


def test_summary_rows_count_calls_and_bytes(timeline: Timeline) -> None:
    rows = {r.name: r for r in timeline.summary_rows()}
    assert rows["aten::rand"].calls == 2 and rows["aten::rand"].alloc_bytes == 96
    assert rows["aten::add"].calls == 1 and rows["aten::add"].alloc_bytes == 48
    assert rows["c10::alloc_cpu"].calls == 3
    assert rows["THPVariable_dealloc"].mem == -144  # three frees of 48 bytes
    for row in rows.values():
        assert 0 <= row.self_ns <= row.total_ns or row.calls > 1


def test_rich_and_html(timeline: Timeline) -> None:
    text = to_text(timeline)
    assert "_t1 = torch.rand(3, 4)" in text and "Timeline: 311 events" in text
    html = timeline._repr_html_()
    assert "<pre" in html and "aten::rand" in html and "_t2.__add__(_t3)" in html
    step_html = timeline.at(112)._repr_html_()
    assert "del _t1" in step_html and "&lt;--- here" in step_html
    step_text = to_text(timeline.at(112))
    assert "TensorImpl#1" in step_text and "view of TensorImpl#1" in step_text


def test_large_shapes_are_summarized() -> None:
    text = dims(list(range(20)))
    assert "…" in text and "(20 dims)" in text and "10" not in text
