"""Values beside the events (Note [Values beside the events]): what tensors held, by step.

The values table must never change the events (seed 000's timeline is compared event by event),
must save and load with the trace, and must let the replay show each TensorImpl as torch prints
it and its storage's elements at any step.
"""

from __future__ import annotations

import gc
import math
import re

import tensortrace
from tensortrace.replay.payload import decode_values
from tensortrace.replay.timeline import Timeline
from tensortrace.trace import Trace, recorder, run_source

SEED = "torch.rand(3, 4)[0] + torch.rand(3, 4)"


def _trace(code: str, names: dict | None = None) -> Trace:
    gc.collect()
    with tensortrace.record() as t:
        run_source(code, {"torch": tensortrace, **(names or {})})
    return t


def test_values_change_no_event() -> None:
    with_values = _trace(SEED)
    installed = recorder.capture_values
    recorder.capture_values = None
    try:
        without = _trace(SEED)
    finally:
        recorder.capture_values = installed
    assert without.values == {}
    assert with_values.values
    # raw object ids differ between runs: the replay's renumbered descriptions do not
    a, b = Timeline(with_values), Timeline(without)
    assert len(a) == len(b)
    hex_addr = re.compile(r"0x[0-9a-f]+")
    assert [hex_addr.sub("0x?", a.describe_event(i)) for i in range(len(a))] == [
        hex_addr.sub("0x?", b.describe_event(i)) for i in range(len(b))
    ]


def test_values_are_read_when_kernels_end() -> None:
    t = _trace(SEED)
    kernel_ends = {i for i, e in enumerate(t.events) if e.ph == "E" and e.layer == "kernel"}
    top_ends = {i for i, e in enumerate(t.events) if e.ph == "E" and e.depth == 0}
    assert set(t.values) <= kernel_ends | top_ends
    # every storage the seed fills (two rand, one add) has its 12 elements recorded
    storages = [v for entry in t.values.values() for v in entry.get("s", {}).values()]
    assert len(storages) == 3
    assert all(dtype == "torch.float32" and len(elements) == 12 for dtype, elements in storages)


def test_replay_shows_what_torch_prints() -> None:
    gc.collect()
    torch = tensortrace
    with tensortrace.record() as t:
        a = torch.arange(24, dtype=torch.float32).view(2, 3, 4)
        b = a[1]
        a.mul_(2)
        big = torch.arange(5000)
    timeline = Timeline(t)
    payload = timeline.payload()
    last = len(timeline) - 1
    state = timeline.state_at(last)
    by_sizes = {tuple(row.sizes): key for key, row in state.tensors.items()}
    shown = decode_values(payload, last, by_sizes[(3, 4)])
    assert shown["text"] == repr(b)  # the view follows the in-place write to its storage
    assert shown["elements"] == [2.0 * i for i in range(24)]
    assert decode_values(payload, last, by_sizes[(2, 3, 4)])["text"] == repr(a)
    big_shown = decode_values(payload, last, by_sizes[(5000,)])
    assert big_shown["text"] == repr(big) and "..." in big_shown["text"]
    assert big_shown["elements"] is None  # past STORAGE_LIMIT: no strip values
    # before mul_ ran, the view printed its old values
    mul_begin = next(i for i, e in enumerate(t.events) if e.name == "aten::mul_")
    assert decode_values(payload, mul_begin, by_sizes[(3, 4)])["text"] == (
        "tensor([[12., 13., 14., 15.],\n        [16., 17., 18., 19.],\n"
        "        [20., 21., 22., 23.]])"
    )


def test_values_save_and_load(tmp_path) -> None:
    torch = tensortrace
    with tensortrace.record() as t:
        x = torch.tensor([1.0, float("nan"), float("inf")])
        del x
    path = tmp_path / "t.json"
    t.save(path)
    loaded = Trace.load(path)
    assert loaded.values == t.values
    elements = [v for entry in t.values.values() for v in entry.get("s", {}).values()]
    assert elements[-1][1][0] == 1.0 and elements[-1][1][1:] == ["nan", "inf"]
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in elements[-1][1])


def test_values_follow_the_tracing_threads_steps() -> None:
    import threading

    torch = tensortrace
    with tensortrace.record() as t:
        a = torch.ones(2)
        worker = threading.Thread(target=lambda: torch.zeros(3))
        worker.start()
        worker.join()
        b = a + 1
    main = t.thread_view(0)
    assert len(main.events) < len(t.events)
    # each value entry sits at the same event (a frame's END) in the view as in the trace
    assert {main.events[s].name for s in main.values} == {t.events[s].name for s in t.values}
    assert list(main.values.values()) == list(t.values.values())
    del a, b


def test_malformed_values_are_refused_on_load() -> None:
    import pytest

    with tensortrace.record() as t:
        tensortrace.ones(2)
    data = t.to_json()
    for bad in ([], {"x": {}}, {"3": []}, {"3": {"t": {"T#1": 5}}}, {"3": {"s": {"S#1": [1]}}}):
        # a TraceFormatError (a ValueError) that names the place (trace/format.py)
        with pytest.raises(ValueError, match=r": \$\.values(\.\w+)*: expected "):
            Trace.from_json({**data, "values": bad})
    assert Trace.from_json(data).values == t.values
