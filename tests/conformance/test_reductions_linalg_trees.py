"""The aten-level call trees of reductions and matmul match torch.profiler's, op for op.

torch.profiler's event list drops an event that has its parent's name and is its parent's
only child (EventList._remove_dup_nodes: `x.sum()` is aten::sum calling aten::sum), so the
trace's tree is compared after the same rule; the trace itself keeps both frames.

The expected trees come from tests/data/profiler_trees_reductions_linalg.json (written by
tests/tools/capture_profiler_trees_reductions_linalg.py from torch 2.13); when torch is installed
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
DATA = TESTS / "data" / "profiler_trees_reductions_linalg.json"

Tree = list[list[Any]]  # [[name, children], ...]

CASES = {
    "sum": "x.sum()",
    "sum_dim": "x.sum(1)",
    "sum_keepdim": "x.sum((0, 1), keepdim=True)",
    "sum_dtype": "x.sum(dtype=M.float64)",
    "sum_out": "M.sum(x, 1, out=o3)",
    "mean": "x.mean()",
    "mean_dim": "x.mean(0)",
    "prod": "x.prod()",
    "prod_dim": "x.prod(1)",
    "max": "x.max()",
    "max_dim": "x.max(1)",
    "min_dim_keepdim": "x.min(0, keepdim=True)",
    "argmax": "x.argmax()",
    "argmax_dim": "x.argmax(1)",
    "var": "x.var()",
    "var_dim": "x.var(1)",
    "std": "x.std(0, correction=0)",
    "cumsum": "x.cumsum(1)",
    "all": "x.all()",
    "any_dim": "x.any(1)",
    "mm": "x.mm(m)",
    "bmm": "b.bmm(c)",
    "addmm": "M.addmm(r5, x, m)",
    "dot": "v.dot(v)",
    "matmul_1d_1d": "v @ v",
    "matmul_2d_1d": "x @ v",
    "matmul_1d_2d": "v @ m",
    "matmul_2d_2d": "x @ m",
    "matmul_3d_3d": "b @ c",
    "matmul_3d_2d": "b @ m",
    "matmul_3d_1d": "b @ v",
    "matmul_2d_3d": "r53 @ b",
    "matmul_1d_3d": "r3 @ b",
    "rmatmul": "v.__rmatmul__(x)",
    # above GRAIN_SIZE elements, on 2 threads: a reduction to one element takes the two-pass
    # path (unsqueeze, empty, copy_, select), a reduction along a dim splits the output
    "sum_parallel": "y.sum()",
    "sum_dim_parallel": "y.sum(1)",
    "mean_parallel": "y.mean()",
    "max_parallel": "y.max()",
    "argmax_parallel": "y.argmax()",
    "all_parallel": "(y > 0).all()",
    "add_parallel": "y + y",
}
THREADS = 2  # the trees above GRAIN_SIZE depend on running in parallel


def _env(module: Any) -> dict[str, Any]:
    module.manual_seed(0)
    r = module.rand
    return {
        "M": module,
        "x": r(3, 4),
        "v": r(4),
        "b": r(2, 3, 4),
        "c": r(2, 4, 5),
        "m": r(4, 5),
        "r53": r(5, 3),
        "r3": r(3),
        "r5": r(5),
        "o3": module.empty(3),
        "y": r(256, 256),
    }


@pytest.fixture(autouse=True)
def _threads() -> Any:
    saved = tensortrace.get_num_threads()
    tensortrace.set_num_threads(THREADS)
    yield
    tensortrace.set_num_threads(saved)


@functools.cache
def stored() -> dict[str, Any]:
    return json.loads(DATA.read_text())


def _plain(tree: Any) -> Tree:
    return [[name, _plain(children)] for name, children in tree]


def our_tree(src: str) -> Tree:
    env = _env(tensortrace)
    with tensortrace.record() as t:
        eval(src, env)
    # torch.profiler merges an op with its same-named only child (EventList._remove_dup_nodes)
    return _plain(t.operator_tree(profiler_view=True))


def test_stored_file_is_current() -> None:
    assert stored()["sources"] == CASES and set(stored()["cases"]) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_tree_matches_profiler(name: str) -> None:
    assert our_tree(CASES[name]) == stored()["cases"][name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_stored_trees_match_live_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    if str(TESTS / "tools") not in sys.path:
        sys.path.insert(0, str(TESTS / "tools"))
    from capture_profiler_trees_reductions_linalg import tree

    saved = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        assert tree(_env(torch), CASES[name]) == stored()["cases"][name]
    finally:
        torch.set_num_threads(saved)


def test_trace_keeps_the_nested_dispatcher_call() -> None:
    """x.sum() is aten::sum (sum) calling aten::sum (sum.dim_IntList): both are frames."""
    x = tensortrace.rand(3, 4)
    with tensortrace.record() as t:
        x.sum()
    tree = _plain(t.operator_tree())
    assert tree[0][0] == "aten::sum" and [n for n, _ in tree[0][1]] == ["aten::sum"]
