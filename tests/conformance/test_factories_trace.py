"""The aten-level call tree of factories and conversions is torch.profiler's (same ops, same
nesting), e.g. `torch.eye(3)` -> aten::eye > (aten::empty, aten::eye > (aten::resize_,
aten::zero_)).

The expected trees come from tests/data/profiler_trees_factories.json (written by
tests/tools/capture_profiler_trees_factories.py from torch 2.13); when torch is installed the
stored trees are also checked against a live torch.profiler capture, so a stale file shows up.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensortrace

TESTS = Path(__file__).resolve().parent.parent
DATA = TESTS / "data" / "profiler_trees_factories.json"

SETUP = "x = torch.rand(2, 3); a = np.ones(3)"
PROGRAMS = [
    "torch.zeros(2, 3)",
    "torch.ones(2, 3)",
    "torch.full((2,), 1)",
    "torch.empty_like(x)",
    "torch.zeros_like(x)",
    "torch.ones_like(x)",
    "torch.full_like(x, 2)",
    "torch.rand_like(x)",
    "torch.randn(2, 3)",
    "torch.randn_like(x)",
    "torch.randint(5, (3,))",
    "torch.randint(1, 5, (3,))",
    "torch.randint_like(x, 5)",
    "torch.arange(5)",
    "torch.arange(0, 1, 0.25)",
    "torch.linspace(0, 1, 5)",
    "torch.eye(3)",
    "torch.eye(2, 3)",
    "x.fill_(1)",
    "x.zero_()",
    "x.normal_()",
    "x.random_(0, 5)",
    "torch.cat([x, x])",
    "torch.stack([x, x])",
    "torch.stack([x, x], 2)",
    "torch.tensor([1, 2])",
    "torch.tensor([[1., 2], [3, 4]])",
    "torch.as_tensor([1, 2])",
    "torch.as_tensor(a)",
    "torch.from_numpy(a)",
    "x.numpy()",
    "x.tolist()",
    "x.to(torch.float64)",
    "x.double()",
    "x.float()",
    "x.to('cpu')",
    "x.to(x)",
    "list(x)",
    "x[0, 0].item()",
    "bool(x[0, 0])",
    "float(x[0, 0])",
]


@functools.cache
def stored() -> dict[str, Any]:
    return json.loads(DATA.read_text())


def as_lists(tree: Any) -> list[Any]:
    return [[name, as_lists(children)] for name, children in tree]


def test_stored_file_is_current() -> None:
    assert stored()["setup"] == SETUP and set(stored()["cases"]) == set(PROGRAMS)


@pytest.mark.parametrize("src", PROGRAMS)
def test_operator_tree(src: str) -> None:
    ns: dict[str, Any] = {"torch": tensortrace, "np": np}
    exec(SETUP, ns)
    with tensortrace.record() as t:
        exec(src, ns)
    assert as_lists(t.operator_tree()) == stored()["cases"][src]


@pytest.mark.parametrize("src", PROGRAMS)
def test_stored_trees_match_live_torch(src: str) -> None:
    pytest.importorskip("torch")
    if str(TESTS / "tools") not in sys.path:
        sys.path.insert(0, str(TESTS / "tools"))
    from capture_profiler_trees_factories import tree

    assert tree(SETUP, src) == stored()["cases"][src]
