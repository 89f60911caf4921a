"""Conformance of torch.func.jacfwd and hessian against torch 2.13: argnums, has_aux, pytrees,
under vmap, the "Jacobians, Hessians, hvp, vhp" tutorial's programs (small sizes) and torch's
errors."""

from __future__ import annotations

import pytest

from .harness import check

PRE = """func = torch.func
vmap, grad, jvp, jacrev, jacfwd, hessian = (func.vmap, func.grad, func.jvp, func.jacrev,
                                           func.jacfwd, func.hessian)
F = torch.nn.functional
x = torch.randn(4, dtype=torch.float64)
w = torch.randn(3, 4, dtype=torch.float64)
"""

TUTORIAL = """
def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()
D = 4
weight = torch.randn(D, D, dtype=torch.float64)
bias = torch.randn(D, dtype=torch.float64)
x0 = torch.randn(D, dtype=torch.float64)
fwd = jacfwd(predict, argnums=2)(weight, bias, x0)
rev = jacrev(predict, argnums=2)(weight, bias, x0)
jw, jb = jacfwd(predict, argnums=(0, 1))(weight, bias, x0)
hess = hessian(predict, argnums=2)(weight, bias, x0)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x0)
xs = torch.randn(3, D, dtype=torch.float64)
batched = vmap(jacfwd(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xs).contiguous()
def f(x):
    return x.sin().sum()
def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]
tangent = torch.randn(D, dtype=torch.float64)
out = (fwd, torch.allclose(fwd, rev), jw, jb, hess, torch.allclose(hess, hess_revrev), batched,
       hvp(f, (x0,), (tangent,)))
"""

PROGRAMS = {
    "elementwise": "out = jacfwd(lambda t: t.sin() * t)(x)",
    "matrix_vector": "out = jacfwd(lambda m, v: m @ v, argnums=(0, 1))(w, x)",
    # .contiguous() where the values match but the strides come from torch's batching rules'
    # layouts (a stride-0 or transposed jvp result), which tensortrace's rules do not reproduce
    # (argnums=-1: torch 2.13's jacfwd returns zeros there, which tensortrace does not copy)
    "argnum_second": ("out = jacfwd(lambda m, v: (m @ v).exp(), argnums=1)(w, x).contiguous()"),
    "scalar_output": "out = jacfwd(lambda t: (t * t).sum())(x)",
    "scalar_input": "out = jacfwd(lambda s: s * x)(torch.tensor(2.0, dtype=torch.float64))",
    "matrix_input": "out = jacfwd(lambda m: m.t() @ m)(w)",
    "two_outputs": "out = jacfwd(lambda t: (t.exp(), t.sum()))(x)",
    "dict_input": "out = jacfwd(lambda d: d['a'] * d['b'].sum())({'a': x, 'b': x.cos()})",
    "has_aux": "out = jacfwd(lambda t: (t.tanh(), t.detach() * 2), has_aux=True)(x)",
    "softmax": "out = jacfwd(lambda t: t.softmax(0))(x)",
    "under_vmap": "out = vmap(jacfwd(lambda t: t.sin() * t.sum()))(w).contiguous()",
    "hessian_quadratic": "out = hessian(lambda t: (t * t * t).sum())(x)",
    "hessian_matrix": "out = hessian(lambda m: (m.exp() * m).sum())(w)",
    "hessian_argnums": "out = hessian(lambda m, v: (m @ v).tanh().sum(), argnums=(0, 1))(w, x)",
    "hessian_vs_autograd": (
        "h = hessian(lambda t: t.sin().prod())(x)\n"
        "out = (h, torch.allclose(h, torch.autograd.functional.hessian("
        "lambda t: t.sin().prod(), x)))"
    ),
    "tutorial": TUTORIAL,
    "error_complex_input": ("out = jacfwd(lambda t: t * 2)(torch.ones(2, dtype=torch.complex64))"),
    "error_randomness": "out = jacfwd(lambda t: t + torch.rand(4, dtype=torch.float64))(x)",
    "error_argnums": "out = jacfwd(lambda t: t * 2, argnums=1)(x)",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_func_jacfwd(name: str) -> None:
    check("torch.manual_seed(0)\n" + PRE + PROGRAMS[name], rtol=1e-6, atol=1e-7)
