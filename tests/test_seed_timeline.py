"""The seed timeline, end to end: `rand(3,4)[0] + rand(3,4)` against torch.profiler's record.

These are the acceptance checks of the seed (shared/seeds/000): the operator tree, the order of
allocations and frees, every function the 2019 call stack names, torch's random numbers, the
allocator's alignment, and memory coming back after an exception.
"""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensortrace
from tensortrace.trace import Trace, run_source

CAPTURE = json.loads((Path(__file__).parent / "data" / "seed_profiler_capture.json").read_text())
SEED = "torch.rand(3, 4)[0] + torch.rand(3, 4)"


def trace_of(code: str) -> Trace:
    gc.collect()  # earlier tests' cyclic garbage is not counted in (or freed inside) the trace
    with tensortrace.record() as t:
        run_source(code, {"torch": tensortrace})
    return t


def nest_by_time(ops: list[dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """Rebuild torch.profiler's nesting from (ts, dur) intervals, as its viewers do."""
    roots: list[tuple[str, list[Any]]] = []
    stack: list[tuple[float, list[Any]]] = []
    for op in sorted(ops, key=lambda o: (o["ts"], -o["dur"])):
        while stack and op["ts"] >= stack[-1][0]:
            stack.pop()
        node: tuple[str, list[Any]] = (op["name"], [])
        (stack[-1][1] if stack else roots).append(node)
        stack.append((op["ts"] + op["dur"], node[1]))
    return roots


EXPECTED_TREE = [
    ("aten::rand", [("aten::empty", []), ("aten::uniform_", [])]),
    ("aten::select", [("aten::as_strided", [])]),
    ("aten::rand", [("aten::empty", []), ("aten::uniform_", [])]),
    ("aten::add", []),
]


def test_stored_capture_has_the_expected_tree() -> None:
    assert nest_by_time(CAPTURE["ops"]) == EXPECTED_TREE


def test_operator_tree_matches_stored_torch_profiler_capture() -> None:
    assert trace_of(SEED).operator_tree() == nest_by_time(CAPTURE["ops"])


def test_operator_tree_matches_live_torch_profiler() -> None:
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    torch.rand(3, 4)[0] + torch.rand(3, 4)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.rand(3, 4)[0] + torch.rand(3, 4)
    ops = [
        {"name": e.name, "ts": e.time_range.start, "dur": e.time_range.end - e.time_range.start}
        for e in prof.events()
    ]
    assert trace_of(SEED).operator_tree() == nest_by_time(ops)


def test_three_48_byte_allocations_and_frees_in_pytorch_order() -> None:
    t = trace_of(SEED)
    memory = [(e.kind, e.args["bytes"], e.args["total_allocated"]) for e in t.memory_events()]
    theirs = [
        ("alloc" if m["Bytes"] > 0 else "free", abs(m["Bytes"]), m["Total Allocated"])
        for m in CAPTURE["memory"]
    ]
    assert (
        memory
        == theirs
        == [
            ("alloc", 48, 48),
            ("alloc", 48, 96),
            ("alloc", 48, 144),
            ("free", 48, 96),
            ("free", 48, 48),
            ("free", 48, 0),
        ]
    )


def test_first_storage_is_freed_when_the_view_dies_not_at_del_t1() -> None:
    t = trace_of(SEED)
    allocs = t.instants("alloc")
    first_addr = allocs[0].args["addr"]
    events = t.events
    # _h1 is rand's result (_t1), _h2 the view (_t2): the first free follows _h2's death
    del_t1 = next(
        i
        for i, e in enumerate(events)
        if e.kind == "handle_del" and e.args["handle"] == t.instants("handle_new")[0].args["handle"]
    )
    del_t2 = next(
        i
        for i, e in enumerate(events)
        if e.kind == "handle_del" and e.args["handle"] == t.instants("handle_new")[1].args["handle"]
    )
    first_free = next(i for i, e in enumerate(events) if e.kind == "free")
    assert del_t1 < del_t2 < first_free
    assert events[first_free].args["addr"] == first_addr
    # at `del _t1` the base TensorImpl only loses the handle's reference: the view holds it
    after_del_t1 = [e for e in events[del_t1 : del_t1 + 3] if e.kind == "decref"]
    assert after_del_t1 and after_del_t1[0].args["refcount"] == 1


# Every function seed 000's call stacks name, and how the trace spells its modern counterpart.
SEED_FUNCTIONS = {
    "THPVariable_rand": "THPVariable_rand",
    "PythonArgParser": "torch::PythonArgParser::parse",
    "dispatch_rand": "dispatch_rand",
    "at::rand": "at::rand",
    "at::native::rand": "at::native::rand",
    "at::empty": "at::empty",
    "empty_cpu": "at::native::empty_cpu",
    "GetCPUAllocator": "c10::GetCPUAllocator",
    "alloc_cpu": "c10::alloc_cpu",
    "make_intrusive": "make_intrusive",
    "StorageImpl": "c10::StorageImpl::StorageImpl",
    "TensorImpl": "c10::TensorImpl::TensorImpl",
    "set_sizes_contiguous": "c10::TensorImpl::set_sizes_contiguous",
    "uniform_": "at::native::uniform_",
    "THPVariable_getitem": "THPVariable_getitem",
    "applySelect": "at::indexing::applySelect",
    "select": "at::native::select_symint",
    "as_strided": "at::native::as_strided_tensorimpl",
    "THPVariable_add": "THPVariable_add",
    "dispatch_add": "dispatch_add",
    "at::native::add": "at::native::structured_ufunc_add_CPU::impl",
    "TensorIterator::compute_shape": "TensorIteratorBase::compute_shape",
    "TensorIterator::compute_strides": "TensorIteratorBase::compute_strides",
    "TensorIterator::compute_types": "TensorIteratorBase::compute_types",
    "TensorIterator::allocate_outputs": "TensorIteratorBase::allocate_or_resize_outputs",
    "empty_strided": "at::detail::empty_strided_cpu",
    "add_stub": "add_stub",
    "add_kernel": "at::native::add_kernel",
    "cpu_kernel_vec": "at::native::cpu_kernel_vec",
    "release_resources": "c10::StorageImpl::release_resources",
    "free_cpu": "c10::free_cpu",
    "THPVariable_dealloc": "THPVariable_dealloc",
}


def test_every_function_of_the_seed_call_stack_is_in_the_trace() -> None:
    # a transposed operand makes TensorIterator compute strides and allocate a strided output,
    # the path seed 000 walks (its [4] + [3, 4] takes it too, minus the empty_strided call)
    t = trace_of(
        "x = torch.rand(3, 4)[0] + torch.rand(3, 4)\n"
        "y = torch.rand(4, 3).as_strided((3, 4), (1, 3)) + torch.rand(3, 4)"
    )
    frame_names = {f.name for f in t.frames()}
    instant_kinds = {e.kind for e in t.events if e.ph == "i"}
    missing = [
        seed
        for seed, modern in SEED_FUNCTIONS.items()
        if modern not in frame_names and modern not in instant_kinds
    ]
    assert missing == []


def test_frames_carry_their_pytorch_counterpart() -> None:
    t = trace_of(SEED)
    for node in t.frames():
        if node.site is None:
            continue
        assert node.site.source.endswith((".cpp", ".h", ".py")), node.site
        assert node.site.symbol
    legacy = {f.name: f.site.legacy for f in t.frames() if f.site is not None}
    assert legacy["at::native::uniform_"] == "legacy::cpu::_th_uniform_"
    assert legacy["c10::alloc_cpu"].startswith("alloc_cpu")


def test_manual_seed_rand_equals_torch_bit_for_bit() -> None:
    for dtype, name, int_type in (
        (tensortrace.float32, "torch.float32", np.int32),
        (tensortrace.float64, "torch.float64", np.int64),
    ):
        tensortrace.manual_seed(0)
        ours = tensortrace.rand(3, 4, dtype=dtype).cdata.numpy_view()
        expected = np.array(CAPTURE["rand_seed0_bits"][name], dtype=int_type)
        assert np.array_equal(ours.view(int_type).ravel(), expected)


def test_manual_seed_rand_equals_live_torch() -> None:
    torch = pytest.importorskip("torch")
    for seed in (0, 1, 1234):
        tensortrace.manual_seed(seed)
        torch.manual_seed(seed)
        ours = tensortrace.rand(5, 7).cdata.numpy_view()
        assert np.array_equal(ours, torch.rand(5, 7).numpy())


@pytest.mark.parametrize("shape", [(1,), (3, 4), (5, 7), (17,), (64, 3)])
def test_data_ptr_is_64_byte_aligned(shape: tuple[int, ...]) -> None:
    assert tensortrace.rand(*shape).data_ptr() % 64 == 0


def test_memory_returns_to_start_when_handles_die() -> None:
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    r = tensortrace.rand(3, 4)[0] + tensortrace.rand(3, 4)
    assert tensortrace.memory_allocated("cpu") == start + 48
    del r
    assert tensortrace.memory_allocated("cpu") == start


@pytest.mark.parametrize(
    "code",
    [
        "torch.rand(3, 4) + torch.rand(3)",
        "torch.rand(3, 4)[5]",
        "torch.rand(3, 4).as_strided((3, 5), (4, 1))",
        "torch.rand(4).add_(torch.rand(3, 4))",
        "torch.rand(3).to(torch.int64).add_(torch.rand(3))",
        "torch.rand(-1)",
    ],
)
def test_memory_returns_to_start_after_an_exception(code: str) -> None:
    gc.collect()
    start = tensortrace.memory_allocated("cpu")
    with pytest.raises((RuntimeError, IndexError)):
        exec(code, {"torch": tensortrace})
    assert tensortrace.memory_allocated("cpu") == start


# ---- the golden trace -------------------------------------------------------------------------
# Every speed change must leave the seed's trace as it is: the same frames and instants, in the
# same order, with the same names, layers, depths, sites and arguments. Only what varies from run
# to run is normalized: timestamps are dropped, addresses masked, and object and handle numbers
# (which count every object made since import) renumbered by first appearance.
# After a deliberate change to the trace: `python tests/test_seed_timeline.py --write-golden`.
GOLDEN = Path(__file__).parent / "data" / "seed_000_trace_golden.json"
_OBJECT = re.compile(r"\b([A-Za-z]\w*)#(\d+)\b")
_HANDLE = re.compile(r"\b_h(\d+)\b")


class _Renumber:
    """Object ids (`TensorImpl#9`) and handles (`_h5`, `handle: 5`) by order of appearance."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], int] = {}
        self.handles: dict[int, int] = {}

    def handle(self, number: int) -> int:
        return self.handles.setdefault(number, len(self.handles) + 1)

    def obj(self, kind: str, number: str) -> str:
        return f"{kind}#{self.objects.setdefault((kind, number), len(self.objects) + 1)}"

    def text(self, s: str) -> str:
        s = _OBJECT.sub(lambda m: self.obj(m[1], m[2]), s)
        return _HANDLE.sub(lambda m: f"_h{self.handle(int(m[1]))}", s)

    def value(self, key: str, v: Any) -> Any:
        if key.endswith("addr") and isinstance(v, int):
            return "<addr>"
        if key == "handle" and isinstance(v, int):
            return self.handle(v)
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {self.text(k): self.value(k, x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [self.value(key, x) for x in v]
        return v


def normalized_trace(t: Trace) -> dict[str, Any]:
    r = _Renumber()
    events = [
        [e.ph, r.text(e.name), e.layer, e.depth, e.site, e.kind, e.tid, r.value("", e.args)]
        for e in t.events
    ]
    return {"sites": [s.to_json() for s in t.sites], "events": events}


def seed_golden() -> dict[str, Any]:
    tensortrace.manual_seed(0)
    trace = normalized_trace(trace_of(SEED))
    tensortrace.manual_seed(0)
    result = tensortrace.rand(3, 4)[0] + tensortrace.rand(3, 4)
    values = result.cdata.numpy_view().tolist()  # float32 values, exact as Python floats
    return {"seed": SEED, "manual_seed": 0, "values": values, **trace}


def test_seed_trace_equals_the_stored_golden() -> None:
    golden = json.loads(GOLDEN.read_text())
    ours = json.loads(json.dumps(seed_golden()))  # tuples as lists, as stored
    assert ours["values"] == golden["values"]
    assert ours["sites"] == golden["sites"]
    for i, (mine, stored) in enumerate(zip(ours["events"], golden["events"])):
        assert mine == stored, f"event {i} differs"
    assert len(ours["events"]) == len(golden["events"])


if __name__ == "__main__":
    import sys

    if "--write-golden" in sys.argv:
        data = seed_golden()
        lines = [json.dumps({k: v for k, v in data.items() if k != "events"})[:-1] + ',"events":[']
        lines += [json.dumps(e) + "," for e in data["events"]]
        lines[-1] = lines[-1][:-1] + "]}"
        GOLDEN.write_text("\n".join(lines) + "\n")
        print(f"wrote {GOLDEN}")
