"""The autograd graph drawn from a trace: seed 004's `a + b` story, and an MLP's backward."""

from __future__ import annotations

import pytest

import tensortrace as torch
from tensortrace.trace import Trace
from tensortrace.viz import AutogradGraph, autograd_graph

from .svgutil import check_golden, parse, texts, with_class

record = torch.record


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    """Seed 004: c = a + b; the loss uses c and a again; backward walks back to both leaves."""
    torch.manual_seed(0)
    a = torch.rand(3, requires_grad=True)
    b = torch.rand(3, requires_grad=True)
    with record() as t:
        c = a + b
        loss = (c * a).sum()
        loss.backward()
    return t


def nodes(graph: AutogradGraph) -> dict[str, str]:
    root = parse(graph.to_svg())
    return {el.get("data-node"): el.get("class") for el in with_class(root, "node")}


def edges(graph: AutogradGraph) -> set[tuple[str, str, str]]:
    root = parse(graph.to_svg())
    return {
        (el.get("data-src"), el.get("data-dst"), el.get("data-input-nr"))
        for el in with_class(root, "edge")
    }


def test_nodes_edges_and_accumulate_grad(seed_trace: Trace) -> None:
    graph = autograd_graph(seed_trace)
    assert nodes(graph) == {
        "SumBackward0#2": "node backward ran",
        "MulBackward0#1": "node backward ran",
        "AddBackward0#0": "node backward ran",
        "AccumulateGrad(TensorImpl#1)": "node accumulate ran",
        "AccumulateGrad(TensorImpl#2)": "node accumulate ran",
    }
    assert edges(graph) == {
        ("SumBackward0#2", "MulBackward0#1", "0"),
        ("MulBackward0#1", "AddBackward0#0", "0"),
        ("MulBackward0#1", "AccumulateGrad(TensorImpl#1)", "0"),
        ("AddBackward0#0", "AccumulateGrad(TensorImpl#1)", "0"),
        ("AddBackward0#0", "AccumulateGrad(TensorImpl#2)", "0"),
    }


def test_saved_tensors_and_evaluation_order(seed_trace: Trace) -> None:
    graph = autograd_graph(seed_trace)
    root = parse(graph.to_svg())
    (mul,) = [el for el in with_class(root, "node") if el.get("data-name") == "MulBackward0"]
    # MulBackward0 saved both of its inputs: c (the AddBackward0 output) and the leaf a
    assert "saved self = TensorImpl#3 (v0)" in texts(mul)
    assert "saved other = TensorImpl#1 (v0)" in texts(mul)
    order = {el.get("data-node"): int(el.get("data-order")) for el in with_class(root, "node")}
    # the engine runs the loss's node first and a leaf's AccumulateGrad only when both of the
    # gradients flowing into it (from Mul and from Add) have arrived
    assert order["SumBackward0#2"] == 1 and order["MulBackward0#1"] == 2
    assert order["AddBackward0#0"] == 3
    assert sorted(order.values()) == [1, 2, 3, 4, 5]


def test_before_backward_nothing_ran(seed_trace: Trace) -> None:
    first_eval = next(
        i
        for i, e in enumerate(seed_trace.events)
        if e.name.startswith("autograd::engine::evaluate_function")
    )
    graph = autograd_graph(seed_trace, first_eval - 1)
    assert all("ran" not in c for c in nodes(graph).values())
    assert len(nodes(graph)) == 5


def test_golden_seed_graph(seed_trace: Trace) -> None:
    check_golden("viz_autograd_graph_seed004.svg", autograd_graph(seed_trace).to_svg())


def test_mlp_graph_has_torchs_node_names() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    x, y = torch.randn(5, 3), torch.tensor([0, 1, 1, 0, 1])
    with record() as t:
        torch.nn.functional.cross_entropy(model(x), y).backward()
    names = sorted(n.name for n in autograd_graph(t).nodes.values())
    assert names == sorted(
        [
            "NllLossBackward0",
            "LogSoftmaxBackward0",
            "AddmmBackward0",
            "TBackward0",
            "ReluBackward0",
            "AddmmBackward0",
            "TBackward0",
            *["torch::autograd::AccumulateGrad"] * 4,
        ]
    )
    assert all(n.order is not None for n in autograd_graph(t).nodes.values())


def test_a_trace_without_autograd_draws_an_empty_graph() -> None:
    with record() as t:
        torch.rand(2) + 1
    graph = autograd_graph(t)
    assert graph.nodes == {} and with_class(parse(graph.to_svg()), "empty")


def test_the_graph_survives_json(seed_trace: Trace, tmp_path: object) -> None:
    path = tmp_path / "t.json"  # type: ignore[operator]
    seed_trace.save(path)
    again = Trace.load(path)
    assert autograd_graph(again).to_svg() == autograd_graph(seed_trace).to_svg()


def test_the_picture_does_not_depend_on_earlier_graphs(seed_trace: Trace) -> None:
    x = torch.rand(2, requires_grad=True)
    (x * 2).sum().backward()  # Nodes made before the trace move the process-wide counter
    torch.manual_seed(0)
    a = torch.rand(3, requires_grad=True)
    b = torch.rand(3, requires_grad=True)
    with record() as t:
        c = a + b
        (c * a).sum().backward()
    assert autograd_graph(t).to_svg() == autograd_graph(seed_trace).to_svg()
