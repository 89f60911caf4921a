"""The trace shows the engine at work: one evaluate_function frame per Node, in the ready
queue's order, with the Node's frame and its aten ops inside, and the dependency counts and
ready queue the player can show; grad mode is thread-local.
"""

from __future__ import annotations

import threading

import tensortrace as torch

record = getattr(torch, "record", None) or torch.trace


def _frames(t: torch.Trace, layer: str) -> list[str]:
    return [f.name for f in t.frames() if f.layer == layer]


def test_engine_frames_in_ready_queue_order() -> None:
    a = torch.rand(3, 4, requires_grad=True)
    b = torch.rand(3, 4, requires_grad=True)
    loss = (a * b).sum()
    with record() as t:
        loss.backward()
    evaluated = [f for f in t.frames() if f.name.startswith("autograd::engine::")]
    assert [f.name for f in evaluated] == [
        "autograd::engine::evaluate_function: SumBackward0",
        "autograd::engine::evaluate_function: MulBackward0",
        "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
        "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
    ]
    assert all(f.layer == "autograd" for f in evaluated)
    # the Node's own frame, with the formula's aten ops inside
    mul = evaluated[1].children[0]
    assert mul.name == "MulBackward0"
    assert [f.name for f in mul.walk() if f.name.startswith("aten::")] == ["aten::mul", "aten::mul"]
    # what the player shows: the dependencies still pending and the ready queue
    assert evaluated[0].args["dependencies"] == [
        ["MulBackward0", 1],
        ["torch::autograd::AccumulateGrad", 1],
        ["torch::autograd::AccumulateGrad", 1],
    ]
    assert evaluated[2].args["dependencies"] == []
    assert evaluated[1].args["ready_queue"] == "[]"
    assert evaluated[1].outcome["ready_queue"] == (
        "['torch::autograd::AccumulateGrad', 'torch::autograd::AccumulateGrad']"
    )


def test_trace_of_a_forward_records_the_graph_building_kernel() -> None:
    a = torch.rand(3, requires_grad=True)
    with record() as t:
        a * 2
    names = _frames(t, "autograd")
    assert "torch::autograd::VariableType::mul" in names


def test_grad_mode_is_thread_local() -> None:
    seen: dict[str, bool] = {}

    def other() -> None:
        seen["other"] = torch.is_grad_enabled()
        with torch.no_grad():
            seen["other_inside"] = torch.is_grad_enabled()

    with torch.no_grad():
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        seen["main"] = torch.is_grad_enabled()
    assert seen == {"other": True, "other_inside": False, "main": False}
    assert torch.is_grad_enabled()


def test_seed_like_program_without_requires_grad_records_no_graph() -> None:
    x = torch.rand(3, 4)
    with record() as t:
        y = x[0] + x
    assert y.grad_fn is None
    assert not [f for f in t.frames() if f.name.startswith("autograd::engine")]
