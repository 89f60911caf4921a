"""Conformance of torch.func.jvp against torch 2.13: outputs and Jacobian-vector products of
one or several inputs and outputs (pytrees of tuples, lists and dicts), has_aux, strict, and
torch's errors. torch.autograd.functional.jvp keeps torch's double-backward trick."""

from __future__ import annotations

import pytest

from .harness import check

PRE = (
    "jvp = torch.func.jvp\nF = torch.nn.functional\n"
    "x = torch.randn(3); v = torch.randn(3); A = torch.randn(2, 3); B = torch.randn(2, 3)\n"
)

PROGRAMS = {
    "sin": "out = jvp(torch.sin, (x,), (v,))",
    "scalar_to_vector": "s = torch.randn([]); "
    "out = jvp(lambda a: a * torch.tensor([1.0, 2.0, 3.0]), (s,), (torch.tensor(1.0),))",
    "two_inputs": "out = jvp(lambda a, b: a * b + a.exp(), (x, v), (torch.ones(3), v))",
    "matrix": "out = jvp(lambda m: F.softmax(m @ A.t(), 1), (B.t() @ A,), (torch.randn(3, 3),))",
    "mlp": "W = torch.randn(4, 3); out = jvp(lambda a, w: torch.tanh(F.linear(a, w)).sum(), "
    "(A, W), (B, torch.randn(4, 3)))",
    "tuple_output": "out = jvp(lambda a: (a.sin(), a.cos().sum()), (x,), (v,))",
    "pytree_in_out": "out = jvp(lambda a, b: (a * b, [b.exp()]), (x, x + 1), (v, v))",
    "dict_input": "out = jvp(lambda d: d['q'].cos() * d['r'], ({'q': x, 'r': v},), "
    "({'q': v, 'r': x},))",
    "has_aux": "out = jvp(lambda a: (a * 2, {'k': a.cos()}), (x,), (v,), has_aux=True)",
    "independent_output": "out = jvp(lambda a: x * 2, (x,), (v,))",
    "views_and_inplace": "def f(a):\n    b = a.clone()\n    b[1:].mul_(3)\n    return b.t()\n"
    "out = jvp(f, (A,), (B,))",
    "linearity": "p, t1 = jvp(torch.tanh, (x,), (v,)); _, t2 = jvp(torch.tanh, (x,), (2 * v,)); "
    "out = (t1, t2, torch.allclose(t2, 2 * t1))",
    "functional_jvp": "out = torch.autograd.functional.jvp(lambda a: a.exp() * 2, x, v)",
    "err_not_tuple": "out = jvp(torch.sin, x, (v,))",
    "err_structure": "out = jvp(torch.sin, (x,), (v, v))",
    "err_structure_list": "out = jvp(torch.sin, (x,), [v])",
    "err_structure_nested": "out = jvp(lambda a, b: a, (x, x), (v,))",
    "err_empty": "out = jvp(torch.sin, (), ())",
    "err_non_tensor": "out = jvp(torch.sin, (1.0,), (1.0,))",
    "err_output_type": "out = jvp(lambda a: a.sum().item(), (x,), (v,))",
    "err_output_tuple_type": "out = jvp(lambda a: (a, 2), (x,), (v,))",
    "err_strict": "out = jvp(lambda a: x * 2, (x,), (v,), strict=True)",
    "err_aux": "out = jvp(lambda a: a * 2, (x,), (v,), has_aux=True)",
    "err_none_output": "out = jvp(lambda a: None, (x,), (v,))",
    "err_empty_output": "out = jvp(lambda a: [], (x,), (v,))",
    "err_size": "out = jvp(torch.sin, (x,), (torch.randn(2),))",
    "err_not_implemented": "out = jvp(lambda a: torch.igamma(a.abs(), x.abs()), (x,), (v,))",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_func_jvp(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-5, atol=1e-6)
