"""The 2019 names the seed's frames carry are the ones seed 000's call stacks show.

Note [The 2019 name of an output allocation] in aten/empty_tensor.py: the same modern function
(at::detail::empty_cpu) is `empty_cpu` under torch.rand's at::empty, and `at::empty_strided`
under TensorIterator::allocate_outputs, as seed 000 writes `op.tensor = at::empty_strided(...)`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tensortrace
from tensortrace.trace import FrameNode, Trace

record = getattr(tensortrace, "record", None) or tensortrace.trace
SEEDS = Path("/work/shared/seeds")
DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    with record() as t:
        r = tensortrace.rand(3, 4)[0] + tensortrace.rand(3, 4)
    del r
    return t


def parents(trace: Trace) -> list[tuple[FrameNode, FrameNode | None]]:
    out: list[tuple[FrameNode, FrameNode | None]] = []

    def walk(node: FrameNode, parent: FrameNode | None) -> None:
        out.append((node, parent))
        for child in node.children:
            walk(child, node)

    for root in trace.roots():
        walk(root, None)
    return out


def legacy_under(trace: Trace, name: str, parent: str) -> set[str | None]:
    return {
        node.site.legacy
        for node, up in parents(trace)
        if node.name == name and up is not None and up.name == parent and node.site
    }


@pytest.mark.parametrize("stored", [None, "seed_000_trace.json", "viz_seed_trace.json"])
def test_output_allocation_is_at_empty_strided(seed_trace: Trace, stored: str | None) -> None:
    trace = seed_trace if stored is None else Trace.load(DATA / stored)
    assert legacy_under(
        trace, "at::detail::empty_cpu", "TensorIteratorBase::allocate_or_resize_outputs"
    ) == {"at::empty_strided"}
    assert legacy_under(trace, "at::detail::empty_cpu", "at::native::empty_cpu") == {"empty_cpu"}
    selects = {
        n.name: n.site.legacy for n, _ in parents(trace) if "BackendSelect" in n.name and n.site
    }
    assert selects == {
        "at::(anonymous)::BackendSelect::rand": "TypeDefault::rand (options.backend())",
        "at::(anonymous)::BackendSelect::empty": "CPUType::empty (options.backend())",
    }
    stubs = {n.site.legacy for n, _ in parents(trace) if n.name == "uniform_stub" and n.site}
    assert stubs == {"_th_uniform_ (LegacyTHFunctionsCPU.cpp)"}


def test_the_seed_names_these_steps() -> None:
    seed = next(SEEDS.glob("000_*.txt"), None)
    if seed is None:
        pytest.skip("seed 000 is not on this machine")
    text = re.sub(r"[\s_\\]+", "", seed.read_text())
    for name in (
        "op.tensor=at::emptystrided(",
        "&TypeDefault::rand",
        "CPU:emptycpu",
        "legacy::cpu::thuniform",
        "LegacyTHFunctionsCPU.cpp",
        "TensorIterator::allocateoutputs",
    ):
        assert name in text, name
