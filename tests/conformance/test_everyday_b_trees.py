"""The part B APIs record the aten:: operator tree torch.profiler records for them (live torch).

einsum goes through sumproduct_pair's bmm, hstack through atleast_1d + cat, topk / tril /
cumprod allocate their outputs without a dispatcher call as structured kernels do, and so on.
Ops whose tree still differs from torch's (flip's restrided input, repeat's unfold, sort's
copies, unique's sort, isclose's isfinite, rot90's transpose_) are left out; see the module
docstrings of their natives.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import tensortrace

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from capture_profiler_trees_views import tree  # noqa: E402

SETUP = (
    "a = torch.rand(2, 3); b = torch.rand(3, 4); v = torch.rand(3); "
    "i = torch.tensor([[0, 1], [2, 0]])"
)
STATEMENTS = [
    "torch.einsum('ij,jk->ik', a, b)",
    "torch.einsum('ij->ji', a)",
    "torch.einsum('i,i->', v, v)",
    "torch.outer(v, v)",
    "torch.hstack([a, a])",
    "torch.vstack([v, v])",
    "torch.dstack([a, a])",
    "torch.kron(a, a)",
    "a.topk(2)",
    "torch.tril(b)",
    "torch.diag(v)",
    "a.roll(1, 0)",
    "torch.meshgrid(v, v, indexing='ij')",
    "a.cumprod(1)",
    "torch.inner(a, a)",
    "a.movedim(0, 1)",
    "torch.where(a > 0.5)",
    "a.index_select(1, v.long())",
    "torch.block_diag(a, a)",
    "a.clip(0.2, 0.5)",
]


def _lists(nodes: Any) -> list[Any]:
    return [[name, _lists(children)] for name, children in nodes]


def ours(setup: str, statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": tensortrace}
    exec(setup, namespace)
    with tensortrace.record() as t:
        exec(statement, namespace)
    return _lists(t.operator_tree())


@pytest.mark.parametrize("statement", STATEMENTS)
def test_operator_tree_matches_torch_profiler(statement: str) -> None:
    assert ours(SETUP, statement) == tree(SETUP, statement)
