"""torch.ops enters at the dispatcher: its trace opens with the `aten::add` frame of
Dispatcher::call, with no Python-binding frame (PythonArgParser, dispatch_add) before it
(Note [torch.ops skips the Python binding] in csrc/pybind_utils.py); an operator that
torch.library defines traces the same way under its own namespace. And a failed torch.ops call
frees everything it allocated."""

from __future__ import annotations

import gc
import warnings

import tensortrace as torch
from tensortrace.trace.trace import FrameNode


def _names(node: FrameNode, depth: int = 0) -> list[tuple[int, str, str]]:
    out = [(depth, node.layer, node.name)]
    for child in node.children:
        out.extend(_names(child, depth + 1))
    return out


def test_an_overload_call_enters_at_the_dispatcher() -> None:
    a, b = torch.ones(2, 3), torch.ones(2, 3)
    op = torch.ops.aten.add.Tensor
    gc.collect()  # no earlier test's garbage dies inside the recording
    with torch.record() as t:
        c = op(a, b)
    first = t.roots()[0]
    assert (first.layer, first.name) == ("dispatch", "aten::add")
    assert first.details["overload"] == "add.Tensor"
    frames = _names(first)
    assert (1, "autograd", "torch::autograd::VariableType::add") in frames
    assert (2, "dispatch", "redispatch add.Tensor -> CPU") in frames
    # no binding frame anywhere: the arguments were matched to the schema, not parsed
    assert not [
        f for f in t.frames() if f.name in ("torch::PythonArgParser::parse", "THPVariable_add")
    ]
    assert t.operator_tree() == [("aten::add", [])]
    assert c.tolist() == [[2.0] * 3] * 2


def test_the_binding_call_has_the_python_frames_torch_ops_skips() -> None:
    a = torch.ones(2)
    with torch.record() as t:
        torch.add(a, a)
    assert t.roots()[0].name == "THPVariable_add"


def test_a_packet_call_picks_its_overload_by_schema() -> None:
    a = torch.ones(2)
    with torch.record() as t:
        torch.ops.aten.add(a, 2)  # add.Tensor takes the number as a wrapped-number tensor
    scalar, call = t.roots()[:2]
    assert scalar.name == "at::scalar_to_tensor"
    assert call.details["overload"] == "add.Tensor"
    with torch.record() as t:
        torch.ops.aten.sum(a, [0])
    assert t.roots()[0].details["overload"] == "sum.dim_IntList"


def test_a_library_operator_traces_as_a_native_one() -> None:
    lib = torch.library.Library("tracens", "DEF")
    try:
        lib.define("double(Tensor x) -> Tensor")
        lib.impl("double", lambda x: x * 2, "CPU")
        x = torch.ones(3)
        gc.collect()
        with torch.record() as t:
            torch.ops.tracens.double(x)
        first = t.roots()[0]
        assert (first.layer, first.name) == ("dispatch", "tracens::double")
        # no autograd kernel: torch's autograd fallback runs first, then the CPU kernel
        assert first.details["dispatch_key"] == "AutogradCPU"
        assert first.details["kernel"] == "torch::autograd::basicAutogradNotImplementedFallback"
        redispatch = first.children[0]
        assert redispatch.name == "redispatch double -> CPU"
        assert redispatch.children[0].name.startswith("tracens::double [CPU]")
        assert t.operator_tree()[0][0] == "tracens::double"  # its kernel's aten::mul inside
    finally:
        lib._destroy()


def test_a_library_is_gone_when_destroyed_or_collected() -> None:
    lib = torch.library.Library("gonens", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    assert torch._C._dispatch_dump("gonens::f").startswith("name: gonens::f\n")
    del lib
    gc.collect()
    assert torch._C._dispatch_dump("gonens::f") == ""
    again = torch.library.Library("gonens", "DEF")  # the namespace is free again
    again._destroy()


def test_dump_table_shows_where_each_key_goes() -> None:
    table = torch._C._dispatch_dump_table("aten::add.Tensor")
    assert "CPU: registered at build/aten/src/ATen/RegisterCPU.cpp [kernel]" in table
    assert "AutogradCPU: registered at torch/csrc/autograd/generated/VariableType.cpp" in table
    assert "ADInplaceOrView: fallthrough registered at" in table
    dump = torch._C._dispatch_dump("aten::add.Tensor")
    assert dump.splitlines()[:2] == [
        "name: aten::add.Tensor",
        "schema: aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    ]


FAILING = [
    "aten.add.Tensor(torch.ones(3), torch.ones(3), torch.ones(3))",
    "aten.add.Tensor(torch.ones(3), 'x')",
    "aten.mm.default(torch.ones(2, 3), torch.ones(2, 3))",
    "aten.atan2(torch.ones(2), 2)",
    "aten.cat.default([torch.ones(2), torch.ones(2, 2)])",
]


def test_a_failed_call_frees_everything() -> None:
    gc.disable()  # reference counting alone must free everything: no cycles
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            leaks = []
            for source in FAILING:
                start = torch.memory_allocated("cpu")
                namespace = {"torch": torch, "aten": torch.ops.aten}
                try:
                    exec(source, namespace)
                except (RuntimeError, TypeError, IndexError, ValueError):
                    pass
                namespace.clear()
                if torch.memory_allocated("cpu") != start:
                    leaks.append(source)
    finally:
        gc.enable()
    assert leaks == []
