"""The graph frees what it holds, with the cyclic garbage collector off.

Tensors own their grad_fn, Nodes own their next Nodes and saved inputs, a saved output keeps
only its data (Note [A saved output keeps only its data]) and a leaf holds its AccumulateGrad
weakly: the graph is acyclic, so plain refcounting frees it. After backward() without
retain_graph the saved tensors go at once; after `del loss` the whole graph goes; after an error
(in-place on a saved tensor, a second backward) nothing is left behind either.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import tensortrace as torch


@pytest.fixture(autouse=True)
def _no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def live() -> int:
    return torch.memory_allocated("cpu")


PROGRAMS = {
    "mul_sum": "l = (a * b).sum(); l.backward()",
    "saved_output": "l = a.exp().sigmoid().tanh().sum(); l.backward()",
    "views": "l = (a.t()[1:] * 2).sum() + a[0].sum(); l.backward()",
    "inplace_view": "c = a * 1; c[0].mul_(b[0]); l = c.sum(); l.backward()",
    "matmul": "l = (a @ b.t()).relu().mean(); l.backward()",
    "reductions": "l = a.max(1)[0].sum() + a.var() + a.prod(); l.backward()",
    "index_cat": "l = torch.cat([a[torch.tensor([0, 2])], b]).sum(); l.backward()",
    "autograd_grad": "g = torch.autograd.grad((a * a).sum(), [a, b], allow_unused=True)",
    "create_graph": "g, = torch.autograd.grad((a ** 3).sum(), a, create_graph=True); "
    "g.sum().backward()",
    "hooks": "c = a * 2; c.register_hook(lambda g: g * 2); a.register_hook(lambda g: g); "
    "c.retain_grad(); l = c.sum(); l.backward()",
    "retain_graph": "l = (a * b).sum(); l.backward(retain_graph=True); l.backward()",
    "setitem_scalar": "c = a * 1; c[0] = 1.0; c[1, 2] = 2.0; l = c.sum(); l.backward()",
    "setitem_scalar_no_grad": "x = torch.rand(3); x[0] = 1.5; x[1:] = 2.0",
    "dropped_graph": "l = (a.exp() * b).sum(); del l",
}

ERRORS = {
    "inplace_saved": "c = a * 1; d = c * c; c.add_(1); d.sum().backward()",
    "second_backward": "l = a.exp().sum(); l.backward(); l.backward()",
    "non_scalar": "(a * b).backward()",
    "leaf_inplace": "a.add_(1)",
    "not_implemented": "torch.floor_divide(a, 2).sum().backward()",
    "unused": "torch.autograd.grad((a * 2).sum(), [a, b])",
    "hook_raises": "c = a * 2; c.register_hook(lambda g: 1 / 0); c.sum().backward()",
}


def run(program: str) -> None:
    ns = {"torch": torch}
    exec("a = torch.rand(3, 4, requires_grad=True); b = torch.rand(3, 4, requires_grad=True)", ns)
    try:
        exec(program, ns)
    except (RuntimeError, ZeroDivisionError):
        pass
    ns.clear()


@pytest.mark.parametrize("name", sorted(PROGRAMS) + sorted(ERRORS))
def test_program_frees_everything(name: str) -> None:
    start = live()
    run({**PROGRAMS, **ERRORS}[name])
    assert live() == start


def test_backward_frees_saved_tensors_at_once() -> None:
    a = torch.rand(64, requires_grad=True)
    start = live()
    loss = a.exp().sum()  # ExpBackward0 saves its 256-byte result
    held = live()
    assert held > start
    loss.backward()
    after = live()
    grad_bytes = 64 * 4 + 64  # a.grad, aligned like every block
    assert after <= start + grad_bytes + 64
    del loss
    a.grad = None
    assert live() == start


def test_graph_is_freed_with_its_output() -> None:
    a = torch.rand(1000, requires_grad=True)
    start = live()
    loss = ((a * 2).exp() * a).sum()
    assert live() > start
    del loss
    assert live() == start


def test_leaf_keeps_no_accumulate_grad_alive() -> None:
    import weakref

    a = torch.rand(3, requires_grad=True)
    node = (a * 2).grad_fn.next_functions[0][0]
    ref = weakref.ref(node)
    del node
    assert ref() is None
