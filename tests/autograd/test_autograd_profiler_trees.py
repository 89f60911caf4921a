"""The aten/autograd tree of a backward pass equals torch.profiler's.

torch records, for each Node the engine runs, `autograd::engine::evaluate_function: <name>`
around the Node's own `<name>` record function, which holds the aten ops of its formula;
AccumulateGrad steals the gradient with aten::detach (and VariableTypeManual's `detach` record
function) or adds it with aten::add_. The trace's frames of layer autograd carry the same names.
Expected trees: tests/data/profiler_trees_autograd.json, written by
tests/tools/capture_profiler_trees_autograd.py under torch 2.13; with torch installed the stored
trees are also checked against a live capture.
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
DATA = TESTS / "data" / "profiler_trees_autograd.json"
record = getattr(tensortrace, "record", None) or tensortrace.trace

AB = "a = torch.rand(3, 4, requires_grad=True); b = torch.rand(3, 4, requires_grad=True)"
CASES: dict[str, tuple[str, str]] = {
    "mul_sum_backward": (AB, "(a * b).sum().backward()"),
    "backward_only": (AB + "; l = (a * b).sum()", "l.backward()"),
    "second_backward_accumulates": (
        AB + "; (a * b).sum().backward(); l = (a * b).sum()",
        "l.backward()",
    ),
    "add_broadcast": (AB + "; c = torch.rand(4, requires_grad=True)", "(a + c).sum().backward()"),
    "mm": (AB + "; w = torch.rand(4, 2, requires_grad=True)", "a.mm(w).sum().backward()"),
    "exp_mean": (AB, "a.exp().mean().backward()"),
    "grad_api": (AB, "torch.autograd.grad((a * b).sum(), [a])"),
    "activations": (AB, "(a.relu() * b.tanh() + a.sigmoid()).sum().backward()"),
    "mlp_ops_step": (
        "x = torch.rand(5, 4); y = torch.rand(5, 2); "
        "w1 = torch.rand(3, 4, requires_grad=True); "
        "b1 = torch.rand(3, requires_grad=True); "
        "w2 = torch.rand(2, 3, requires_grad=True)",
        "(((x @ w1.t() + b1).relu() @ w2.t() - y) ** 2).mean().backward()",
    ),
    "retain_graph_twice": (
        AB + "; l = (a - b).sum(); l.backward(retain_graph=True)",
        "l.backward()",
    ),
}


@functools.cache
def stored() -> dict[str, Any]:
    return json.loads(DATA.read_text())


def _record_function_tree(nodes: list[Any]) -> list[Any]:
    """The frames torch.profiler shows: aten:: operators and RecordFunction scopes."""
    out: list[Any] = []
    for node in nodes:
        inner = _record_function_tree(node.children)
        if node.name.startswith("aten::") or node.details.get("record_function"):
            # EventList._remove_dup_nodes: an op whose only child has its name is one event
            while len(inner) == 1 and inner[0][0] == node.name and node.name.startswith("aten::"):
                inner = inner[0][1]
            out.append([node.name, inner])
        else:
            out.extend(inner)
    return out


def our_tree(setup: str, statement: str) -> list[Any]:
    namespace: dict[str, Any] = {"torch": tensortrace}
    tensortrace.manual_seed(0)
    exec(setup, namespace)
    with record() as t:
        exec(statement, namespace)
    return _record_function_tree(t.roots())


def _torch_view(tree: list[Any]) -> list[Any]:
    """The stored tree after torch.profiler's own merge of same-named only children."""
    out = []
    for name, children in tree:
        inner = _torch_view(children)
        while len(inner) == 1 and inner[0][0] == name and name.startswith("aten::"):
            inner = inner[0][1]
        out.append([name, inner])
    return out


def test_stored_file_is_current() -> None:
    assert {k: tuple(v) for k, v in stored()["cases"].items()} == CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_tree_matches_profiler(name: str) -> None:
    assert our_tree(*CASES[name]) == _torch_view(stored()["trees"][name])


@pytest.mark.parametrize("name", sorted(CASES))
def test_stored_tree_matches_live_torch(name: str) -> None:
    pytest.importorskip("torch")
    if str(TESTS / "tools") not in sys.path:
        sys.path.insert(0, str(TESTS / "tools"))
    from capture_profiler_trees_autograd import tree

    assert tree(*CASES[name]) == stored()["trees"][name]
