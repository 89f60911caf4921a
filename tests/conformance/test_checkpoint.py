"""torch.utils.checkpoint against torch 2.13: both variants, RNG state, warnings and errors.

Each program runs in tensortrace and in torch (harness.py): the outputs, the gradients through
the recomputation (with random draws in the checkpointed function: the recomputation must draw
the same numbers), how often the function ran, the warnings (as text) and the errors.
"""

from __future__ import annotations

import pytest

from .harness import check

PRELUDE = """
import warnings
calls = []
def f(x, y):
    calls.append(1)
    return (x.sin() * y).exp() + torch.rand(3)
def g(x, scale=1.0):
    return torch.nn.functional.dropout(x.tanh(), 0.5) * scale
def leaves():
    return torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
def warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(x.message) for x in w]
"""

PROGRAMS = {
    "reentrant": "x, y = leaves()\n"
    "out_ = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=True)\n"
    "out_.sum().backward()\n"
    "out = (out_, x.grad, y.grad, len(calls), out_.grad_fn.name())",
    "non_reentrant": "x, y = leaves()\n"
    "out_ = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=False)\n"
    "out_.sum().backward()\n"
    "out = (out_, x.grad, y.grad, len(calls), out_.grad_fn.name())",
    "same_gradients_as_without_checkpoint": "x, y = leaves()\n"
    "s = torch.get_rng_state()\n"
    "f(x, y).sum().backward(); plain = (x.grad, y.grad); x.grad = y.grad = None\n"
    "torch.set_rng_state(s)\n"
    "torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=True).sum().backward()\n"
    "out = (plain, (x.grad, y.grad))",
    "dropout_rng_preserved": "x = torch.randn(4, 5, requires_grad=True)\n"
    "a = torch.utils.checkpoint.checkpoint(g, x, use_reentrant=True)\n"
    "a.sum().backward(); ga = x.grad; x.grad = None\n"
    "b = torch.utils.checkpoint.checkpoint(g, x, use_reentrant=False, scale=2.0)\n"
    "b.sum().backward()\n"
    "out = (a, ga, b, x.grad, torch.rand(2))",
    "rng_not_preserved": "x = torch.randn(4, 5, requires_grad=True)\n"
    "a = torch.utils.checkpoint.checkpoint(g, x, use_reentrant=True, preserve_rng_state=False)\n"
    "a.sum().backward()\n"
    "out = (a, x.grad, torch.rand(2))",
    "non_reentrant_autograd_grad": "x, y = leaves()\n"
    "r = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=False)\n"
    "out = torch.autograd.grad(r.sum(), (x, y))",
    "non_reentrant_backward_twice": "x, y = leaves()\n"
    "r = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=False).sum()\n"
    "r.backward(retain_graph=True); r.backward()\n"
    "out = (x.grad, len(calls))",
    "non_reentrant_no_early_stop": "x, y = leaves()\n"
    "with torch.utils.checkpoint.set_checkpoint_early_stop(False):\n"
    "    r = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=False)\n"
    "r.sum().backward()\n"
    "out = (x.grad, len(calls))",
    "non_reentrant_no_grad": "x, y = leaves()\n"
    "with torch.no_grad():\n"
    "    r = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=False)\n"
    "out = (r, r.requires_grad)",
    "reentrant_autograd_grad": "x, y = leaves()\n"
    "r = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=True)\n"
    "torch.autograd.grad(r.sum(), x)",
    "reentrant_backward_inputs": "x, y = leaves()\n"
    "r = torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=True)\n"
    "r.sum().backward(inputs=[x])",
    "reentrant_no_input_requires_grad": "x = torch.randn(3)\n"
    "out = warned(lambda: torch.utils.checkpoint.checkpoint(f, x, x, use_reentrant=True))",
    "use_reentrant_not_passed": "x, y = leaves()\n"
    "r, w = warned(lambda: torch.utils.checkpoint.checkpoint(f, x, y))\n"
    "out = (r.grad_fn.name(), w)",
    "reentrant_unexpected_kwargs": "x, y = leaves()\n"
    "torch.utils.checkpoint.checkpoint(g, x, use_reentrant=True, scale=2.0)",
    "reentrant_context_fn": "x, y = leaves()\n"
    "torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=True,\n"
    "    context_fn=torch.utils.checkpoint.noop_context_fn, debug=True)",
    "bad_determinism_check": "x, y = leaves()\n"
    "torch.utils.checkpoint.checkpoint(f, x, y, use_reentrant=False, determinism_check='x')",
    # the message prints the saved tensors' device: x stays on the CPU, as in torch's run
    "recomputation_differs": "state = [0]\n"
    "def h(x):\n"
    "    state[0] += 1\n"
    "    return x.sin() if state[0] == 1 else x[:2].sin()\n"
    "x = torch.randn(3, device='cpu', requires_grad=True)\n"
    "r = torch.utils.checkpoint.checkpoint(h, x, use_reentrant=False)\n"
    "r.sum().backward()",
    "recomputation_saves_fewer": "state = [0]\n"
    "def h(x):\n"
    "    state[0] += 1\n"
    "    return x.sin().exp() if state[0] == 1 else x.sin() + 1\n"
    "x = torch.randn(3, requires_grad=True)\n"
    "r = torch.utils.checkpoint.checkpoint(h, x, use_reentrant=False, early_stop=False)\n"
    "r.sum().backward()",
    "determinism_check_none": "state = [0]\n"
    "def h(x):\n"
    "    state[0] += 1\n"
    "    return x.sin() * (1 if state[0] == 1 else 2)\n"
    "x = torch.randn(3, requires_grad=True)\n"
    "r = torch.utils.checkpoint.checkpoint(h, x, use_reentrant=False, determinism_check='none')\n"
    "r.sum().backward()\n"
    "out = x.grad",
    "checkpoint_sequential": "model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),\n"
    "    torch.nn.Linear(4, 4), torch.nn.Dropout(0.5), torch.nn.Linear(4, 2))\n"
    "inp = torch.randn(5, 3, requires_grad=True)\n"
    "res = []\n"
    "for reentrant in (True, False):\n"
    "    inp.grad = None\n"
    "    o = torch.utils.checkpoint.checkpoint_sequential(model, 2, inp, "
    "use_reentrant=reentrant)\n"
    "    o.sum().backward()\n"
    "    res.append((o, inp.grad, model[0].weight.grad.clone()))\n"
    "out = res",
    "checkpoint_sequential_list": "fns = [torch.sin, torch.cos, torch.exp, torch.tanh]\n"
    "inp = torch.randn(4, requires_grad=True)\n"
    "o, w = warned(lambda: torch.utils.checkpoint.checkpoint_sequential(fns, 3, inp))\n"
    "o.sum().backward()\n"
    "out = (o, inp.grad, w)",
    "checkpoint_sequential_kwargs": "torch.utils.checkpoint.checkpoint_sequential(\n"
    "    [torch.sin], 1, torch.ones(2), use_reentrant=False, scale=1)",
    "detach_variable": "x = torch.ones(2, requires_grad=True) * 2\n"
    "d = torch.utils.checkpoint.detach_variable((x, 3))\n"
    "out = (d[0].requires_grad, d[0].is_leaf, d[1])",
    "detach_variable_list": "torch.utils.checkpoint.detach_variable([torch.ones(2)])",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_checkpoint(name: str) -> None:
    check(PRELUDE + PROGRAMS[name], rtol=1e-5)  # tanh, sin, exp: libm and SLEEF differ
