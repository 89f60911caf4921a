"""Each elementwise statement records the same aten:: operator tree as torch.profiler.

`x * 2` is aten::mul > aten::to > aten::_to_copy > (aten::empty_strided, aten::copy_): the
wrapped number 2 (an int64 0-dim tensor) is converted to the common dtype by TensorIterator's
compute_types. The expected trees come from tests/data/profiler_trees_elementwise.json (written
by tests/tools/capture_profiler_trees_elementwise.py from torch 2.13); when torch is installed
the stored trees are also checked against a live torch.profiler capture, so a stale file shows up.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import tensortrace

TESTS = Path(__file__).resolve().parent.parent
DATA = TESTS / "data" / "profiler_trees_elementwise.json"

SETUP = (
    "x = torch.rand(3, 4); i = torch.ones(3, 4, dtype=torch.int64); b = x > 0.5; "
    "h = x.to(torch.float16)"
)
STATEMENTS = [
    "y = x * 2",
    "y = x - 2",
    "y = 2 - x",
    "y = x / 2",
    "y = 2 / x",
    "y = i / 2",
    "y = x // 2",
    "y = i // i",
    "y = x ** 2",
    "y = 2 ** x",
    "y = x.pow(0)",
    "y = x.pow(x)",
    "y = -x",
    "y = abs(x)",
    "y = x.exp()",
    "y = i.exp()",
    "y = i.sqrt()",
    "y = x.sigmoid()",
    "y = x.relu()",
    "y = x.clamp(0.2, 0.5)",
    "y = i.clamp(0.5)",
    "y = x.clamp(min=x)",
    "y = x == 2",
    "y = x < x",
    "y = x.logical_and(x)",
    "y = x.logical_not()",
    "y = b & b",
    "y = ~b",
    "y = torch.maximum(x, x)",
    "y = torch.where(b, x, x)",
    "y = torch.where(b, x, 0.)",
    "y = torch.where(b, 1., 0.)",
    "y = x.masked_fill(b, 1.0)",
    "x -= 1",
    "x *= 2",
    "x /= 2",
    "y = h * 2",
    "y = i.div(2, rounding_mode='floor')",
    "y = x.sub(x, alpha=2)",
    "y = torch.rsub(x, x)",
    "y = torch.true_divide(x, 2)",
    "y = i + x",
]
# A Scalar overload implemented as `at::remainder(self, wrapped_scalar_tensor(other))`
# (remainder.Scalar, bitwise_or.Scalar) records the redispatched Tensor overload as a second
# frame of the same name here; torch 2.13's profiler shows one frame. Kept visible as a known gap.
SCALAR_OVERLOADS = ["y = x % 2", "y = b | True"]


@functools.cache
def stored() -> dict[str, Any]:
    return json.loads(DATA.read_text())["cases"]


def ours(statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": tensortrace}
    exec(SETUP, namespace)
    with tensortrace.record() as t:
        exec(statement, namespace)

    def lists(nodes: Any) -> list[Any]:
        return [[name, lists(children)] for name, children in nodes]

    return lists(t.operator_tree())


def test_stored_file_is_current() -> None:
    data = json.loads(DATA.read_text())
    assert data["setup"] == SETUP and set(data["cases"]) == {*STATEMENTS, *SCALAR_OVERLOADS}


@pytest.mark.parametrize("statement", STATEMENTS)
def test_operator_tree_matches_torch_profiler(statement: str) -> None:
    assert ours(statement) == stored()[statement]


@pytest.mark.xfail(strict=True, reason="nested same-name frame of a Scalar overload")
@pytest.mark.parametrize("statement", SCALAR_OVERLOADS)
def test_scalar_overload_tree(statement: str) -> None:
    assert ours(statement) == stored()[statement]


@pytest.mark.parametrize("statement", STATEMENTS + SCALAR_OVERLOADS)
def test_stored_trees_match_live_torch(statement: str) -> None:
    pytest.importorskip("torch")
    if str(TESTS / "tools") not in sys.path:
        sys.path.insert(0, str(TESTS / "tools"))
    from capture_profiler_trees_elementwise import tree

    assert tree(SETUP, statement) == stored()[statement]
