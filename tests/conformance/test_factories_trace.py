"""The aten-level call tree of factories and conversions is torch.profiler's (same ops, same
nesting), e.g. `torch.eye(3)` -> aten::eye > (aten::empty, aten::eye > (aten::resize_,
aten::zero_))."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensortrace

torch = pytest.importorskip("torch")
from torch.profiler import ProfilerActivity, profile  # noqa: E402

SETUP = "x = torch.rand(2, 3); a = np.ones(3)"
PROGRAMS = [
    "torch.zeros(2, 3)", "torch.ones(2, 3)", "torch.full((2,), 1)", "torch.empty_like(x)",
    "torch.zeros_like(x)", "torch.ones_like(x)", "torch.full_like(x, 2)", "torch.rand_like(x)",
    "torch.randn(2, 3)", "torch.randn_like(x)", "torch.randint(5, (3,))",
    "torch.randint(1, 5, (3,))", "torch.randint_like(x, 5)", "torch.arange(5)",
    "torch.arange(0, 1, 0.25)", "torch.linspace(0, 1, 5)", "torch.eye(3)", "torch.eye(2, 3)",
    "x.fill_(1)", "x.zero_()", "x.normal_()", "x.random_(0, 5)", "torch.cat([x, x])",
    "torch.stack([x, x])", "torch.stack([x, x], 2)", "torch.tensor([1, 2])",
    "torch.tensor([[1., 2], [3, 4]])", "torch.as_tensor([1, 2])", "torch.as_tensor(a)",
    "torch.from_numpy(a)", "x.numpy()", "x.tolist()", "x.to(torch.float64)", "x.double()",
    "x.float()", "x.to('cpu')", "x.to(x)", "list(x)", "x[0, 0].item()", "bool(x[0, 0])",
    "float(x[0, 0])",
]

Tree = list[tuple[str, Any]]


def torch_tree(src: str) -> Tree:
    ns: dict[str, Any] = {"torch": torch, "np": np}
    exec(SETUP, ns)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        exec(src, ns)
    events = sorted((e for e in prof.events() if e.name.startswith("aten::")),
                    key=lambda e: (e.time_range.start, -e.time_range.end))
    root: Tree = []
    stack: list[tuple[int, Tree]] = [(2**62, root)]
    for e in events:
        while e.time_range.start >= stack[-1][0]:
            stack.pop()
        children: Tree = []
        stack[-1][1].append((e.name, children))
        stack.append((e.time_range.end, children))
    return root


def as_tuples(tree: Any) -> Any:
    return [(name, as_tuples(children)) for name, children in tree]


@pytest.mark.parametrize("src", PROGRAMS)
def test_operator_tree(src: str) -> None:
    ns: dict[str, Any] = {"torch": tensortrace, "np": np}
    exec(SETUP, ns)
    with tensortrace.trace() as t:
        exec(src, ns)
    assert as_tuples(t.operator_tree()) == as_tuples(torch_tree(src))
