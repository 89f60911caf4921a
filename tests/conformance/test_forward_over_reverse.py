"""Forward over reverse against torch 2.13: the tangent of a gradient computed with
create_graph inside a dual level (a Hessian-vector product). Saved outputs (exp's result,
tanh's) must carry their tangents into the backward formulas: gen_variable_type saves outputs
only after the forward AD has been set up."""

from __future__ import annotations

import pytest

from .harness import check

PRE = """fwAD = torch.autograd.forward_ad
w = torch.randn(3, 4, dtype=torch.float64)
v = torch.randn(3, 4, dtype=torch.float64)
def hvp(f):
    with fwAD.dual_level():
        a = fwAD.make_dual(w, v).view_as(w).requires_grad_()
        (g,) = torch.autograd.grad(f(a), a, create_graph=True)
        return fwAD.unpack_dual(g).tangent.detach()
"""

PROGRAMS = {
    "exp": "out = hvp(lambda a: a.exp().sum())",
    "exp_times_input": "out = hvp(lambda a: (a.exp() * a).sum())",
    "sin_prod": "out = hvp(lambda a: a.sin().prod())",
    "cube": "out = hvp(lambda a: (a * a * a).sum())",
    "sqrt_of_exp": "out = hvp(lambda a: a.exp().sqrt().sum())",
    "sigmoid": "out = hvp(lambda a: a.sigmoid().sum())",
    "tanh": "out = hvp(lambda a: a.tanh().pow(2).sum())",
    "matmul": "out = hvp(lambda a: (a @ a.t()).exp().sum())",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_over_reverse(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-7, atol=1e-9)
