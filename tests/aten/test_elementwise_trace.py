"""Each elementwise statement records the same aten:: operator tree as torch.profiler.

`x * 2` is aten::mul > aten::to > aten::_to_copy > (aten::empty_strided, aten::copy_): the
wrapped number 2 (an int64 0-dim tensor) is converted to the common dtype by TensorIterator's
compute_types. The trees are captured live from torch 2.13 (skipped when torch is absent).
"""

from __future__ import annotations

from typing import Any

import pytest

import tensortrace

torch = pytest.importorskip("torch")

SETUP = ("x = torch.rand(3, 4); i = torch.ones(3, 4, dtype=torch.int64); b = x > 0.5; "
         "h = x.to(torch.float16)")
STATEMENTS = [
    "y = x * 2", "y = x - 2", "y = 2 - x", "y = x / 2", "y = 2 / x", "y = i / 2", "y = x // 2",
    "y = i // i", "y = x ** 2", "y = 2 ** x", "y = x.pow(0)", "y = x.pow(x)", "y = -x",
    "y = abs(x)", "y = x.exp()", "y = i.exp()", "y = i.sqrt()", "y = x.sigmoid()",
    "y = x.relu()", "y = x.clamp(0.2, 0.5)", "y = i.clamp(0.5)", "y = x.clamp(min=x)",
    "y = x == 2", "y = x < x", "y = x.logical_and(x)", "y = x.logical_not()", "y = b & b",
    "y = ~b", "y = torch.maximum(x, x)", "y = torch.where(b, x, x)", "y = torch.where(b, x, 0.)",
    "y = torch.where(b, 1., 0.)", "y = x.masked_fill(b, 1.0)", "x -= 1", "x *= 2", "x /= 2",
    "y = h * 2", "y = i.div(2, rounding_mode='floor')", "y = x.sub(x, alpha=2)",
    "y = torch.rsub(x, x)", "y = torch.true_divide(x, 2)", "y = i + x",
]


def _nest(events: list[tuple[str, int, int]]) -> list[Any]:
    """torch.profiler's flat events, nested by time range: [[name, children], ...]."""
    roots: list[Any] = []
    stack: list[tuple[int, list[Any]]] = []
    for name, start, end in sorted(events, key=lambda e: (e[1], -e[2])):
        while stack and not start < stack[-1][0]:
            stack.pop()
        node: list[Any] = [name, []]
        (stack[-1][1][1] if stack else roots).append(node)
        stack.append((end, node))  # type: ignore[arg-type]
    return roots


def _fix(nodes: list[Any]) -> list[Any]:
    # stack entries hold (end, node); children live in node[1]
    return [[n[0], _fix(n[1])] for n in nodes]


def theirs(statement: str) -> list[Any]:
    from torch.profiler import ProfilerActivity, profile

    namespace: dict[str, Any] = {"torch": torch}
    exec(SETUP, namespace)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        exec(statement, namespace)
    events = [(e.name, e.time_range.start, e.time_range.end) for e in prof.events()]
    return _fix(_nest(events))


def ours(statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": tensortrace}
    exec(SETUP, namespace)
    with tensortrace.trace() as t:
        exec(statement, namespace)

    def lists(nodes: Any) -> list[Any]:
        return [[name, lists(children)] for name, children in nodes]

    return lists(t.operator_tree())


@pytest.mark.parametrize("statement", STATEMENTS)
def test_operator_tree_matches_torch_profiler(statement: str) -> None:
    assert ours(statement) == theirs(statement)


# A Scalar overload implemented as `at::remainder(self, wrapped_scalar_tensor(other))`
# (remainder.Scalar, bitwise_or.Scalar) records the redispatched Tensor overload as a second
# frame of the same name here; torch 2.13's profiler shows one frame. Kept visible as a known gap.
@pytest.mark.xfail(strict=True, reason="nested same-name frame of a Scalar overload")
@pytest.mark.parametrize("statement", ["y = x % 2", "y = b | True"])
def test_scalar_overload_tree(statement: str) -> None:
    assert ours(statement) == theirs(statement)
